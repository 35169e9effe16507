package target

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/target/model"
)

// Server is the real-time driver of a Model: an HTTP/1.1 server (or
// HTTP/2, wire.go) on a loopback port. Every request is answered 200 "ok" once the model has
// served it, or as the active faults say.
type Server struct {
	// listen opens the listener at addr (again after a refuse outage).
	listen ListenFunc
	// limits cap the connections and time out slow and idle ones.
	limits netguard.Limits
	origin time.Time
	// slow lives the model's time slow times slower on the wall clock
	// (package slowmo): the engine's slow-motion runs.
	slow slowmo.Factor
	plan *chaos.Plan
	kind model.Kind
	// routes are the target's routes (model.Config.Routes), read by the
	// handlers without the lock: the configuration never changes.
	routes *model.Config
	addr   string
	srv    *http.Server
	// grpc, when set, serves gRPC instead of srv (grpc.go); grpcConns are
	// its connections, which a crash resets.
	grpc      *grpc.Server
	grpcConns connSet
	proto     wire.Protocol
	tls       *tls.Config  // the listener's TLS (h2), nil for cleartext
	cert      *wire.Cert   // tls's certificate
	h2        *http.Server // HTTP/2's own server, for goAway (wire.go); nil for HTTP/1.1

	mu      sync.Mutex
	model   *model.Model  // guarded by mu: use locked
	crashed chan struct{} // closed when a crash begins; replaced after
	timers  map[*model.Job]*time.Timer
	conns   map[net.Conn]*connInfo
	ln      net.Listener
	served  chan struct{} // closed when the accept loop on ln has ended
	closed  bool

	// next, when set, takes admitted requests instead of the capacity model:
	// the chaos proxy forwards them to its upstream.
	next http.Handler
	// nextGRPC is next for a gRPC server.
	nextGRPC GRPCHandler
	// call, when set, makes the server a middle tier of a chain: a request
	// the model has served calls the next tier, holding its slot (tier.go).
	call      Caller
	clock     planClock     // guarded by mu; see control.go
	replan    chan struct{} // wakes runPlan when the plan is replaced
	counters  Counters
	drift     driftLog     // how late the model's waits ended (drift.go)
	observer  Observer     // a recording of the traffic, or nil (observe.go)
	lastCrash atomic.Int64 // when the latest crash began, Unix ns
	history   faultHistory // guarded by mu: the faults as they acted (history.go)

	stop chan struct{}
	wg   sync.WaitGroup
}

// ListenFunc opens a listener, like net.Listen. Tests pass an in-memory
// network's; the default is the host's TCP stack.
type ListenFunc func(network, addr string) (net.Listener, error)

// lockCheck makes locked panic when its caller does not hold the server's
// lock: set in tests (export_test.go), where no other goroutine holding it
// at that instant is the rule, so a model used outside the lock is caught.
var lockCheck bool

// locked returns the server's model, which its caller must use under s.mu
// (every call: the model is a state machine that is not safe for
// concurrent use). With lockCheck, a caller that does not hold it panics.
func (s *Server) locked() *model.Model {
	if lockCheck && s.mu.TryLock() {
		s.mu.Unlock()
		panic("target: the model used outside the server's lock")
	}
	return s.model
}

// newServer returns a server whose plan runs from origin; run starts it.
func newServer(cfg model.Config, plan *chaos.Plan, rng *rand.Rand, origin time.Time, listen ListenFunc, limits netguard.Limits) *Server {
	s := &Server{
		origin:  origin,
		plan:    plan,
		kind:    cfg.Kind,
		model:   model.NewModel(cfg, plan, rng),
		routes:  &cfg,
		crashed: make(chan struct{}),
		timers:  map[*model.Job]*time.Timer{},
		conns:   map[net.Conn]*connInfo{},
		stop:    make(chan struct{}),
		listen:  listen,
		limits:  limits,
		clock:   planClock{sched: plan, running: true},
		replan:  make(chan struct{}, 1),
	}
	s.history.update(plan.Faults(), 0)
	s.srv = &http.Server{
		ConnState: s.trackConn,
		ErrorLog:  log.New(io.Discard, "", 0),
	}
	limits.Apply(s.srv)
	return s
}

// run serves on ln and starts applying the plan. A plan that begins in
// an outage without a listener (refuse, goaway) starts with ln closed, so
// that no client connects at all, as the model refuses every one: left to
// the plan loop's first look, clients that open their connections ahead
// of t = 0 (the swarm's, in its lead) raced it, and in a synctest bubble,
// where they run at one instant in a random order, some of them connected
// before the listener closed and were reset instead.
func (s *Server) run(ln net.Listener) {
	s.addr = ln.Addr().String()
	ln = s.limits.Listener(ln)
	s.ln = ln
	start := chaos.NoOutage
	if o := s.plan.ActiveAt(s.elapsed()).Outage; !o.Listening() {
		_ = ln.Close()
		start = o
	} else {
		s.serve(s.wrapTLS(ln))
	}
	s.wg.Add(1)
	go s.runPlan(start)
}

// URL returns the server's base URL: https for h2, else http.
func (s *Server) URL() string { return s.proto.Scheme() + "://" + s.addr }

// Stats returns a copy of the model's counters.
func (s *Server) Stats() model.Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.locked().Stats
}

// Close stops the server, its plan and every pending service timer, and
// waits for its goroutines.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for j, t := range s.timers {
		t.Stop()
		delete(s.timers, j)
	}
	close(s.stop)
	close(s.crashed) // wakes every waiting handler
	s.crashed = make(chan struct{})
	g := s.grpc
	s.mu.Unlock()
	var err error
	if g != nil {
		g.Stop()
	} else {
		err = s.srv.Close()
	}
	s.wg.Wait()
	return err
}

func (s *Server) serve(ln net.Listener) {
	done := make(chan struct{})
	s.mu.Lock()
	s.served = done
	g := s.grpc // replaced by goAwayGRPC
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(done)
		if g != nil {
			_ = g.Serve(ln)
			return
		}
		_ = s.srv.Serve(ln)
	}()
}

func (s *Server) trackConn(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateNew:
		if s.conns[c] == nil {
			s.conns[c] = &connInfo{}
		}
	case http.StateClosed, http.StateHijacked:
		delete(s.conns, c)
	}
}

func (s *Server) elapsed() time.Duration { return max(0, s.slow.Since(s.origin)) }

// runPlan applies the plan's connection-level transitions on the wall clock,
// from outage mode cur (the one run started in):
// a crash when a reset or refuse outage begins, every connection told to
// go away when a goaway outage begins, the listener closed while refusing
// or going away and opened again after. It wakes at every segment edge, and when
// the plan is replaced (a standalone target's control calls).
func (s *Server) runPlan(cur chaos.OutageMode) {
	defer s.wg.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	last := time.Duration(-1) // when the loop last looked; -1: segments at 0 are ahead
	for {
		replanned := false
		select {
		case <-s.stop:
			return
		case <-t.C:
		case <-s.replan:
			replanned = true
		}
		s.mu.Lock()
		plan := s.plan
		s.mu.Unlock()
		now := s.elapsed()
		if replanned {
			// A plan started or changed by hand: its past is not replayed
			// (a crash it had before now resets nothing now).
			last = now
		}
		look := now
		if edge, ok := nextEdge(plan, now); ok && edge-now <= reopenLead && reopens(plan, cur, edge) {
			look = edge // listening again by the edge, not after it
		}
		if crash, next := crossed(plan, cur, last, look); crash || next != cur {
			s.transition(cur, next, crash)
			cur = next
		}
		last = look
		if edge, ok := nextEdge(plan, look); ok {
			if reopens(plan, cur, edge) {
				edge -= reopenLead
			}
			t.Reset(time.Until(s.slow.At(s.origin, edge)))
		} else {
			t.Stop()
		}
	}
}

// reopenLead is how long before a refuse outage's end the listener opens
// again. The model serves a client that dials at the very instant the
// outage ends; so must the server, even when that client's timer and the
// plan loop's fire at the same instant (always, for a wave of retries in
// a synctest bubble, where the order of goroutines at one instant is
// random: without the lead, anywhere from a few to all of such a wave
// were refused). A microsecond is far below any timer's precision in
// real time; no client acts in it in virtual time but by chance.
const reopenLead = time.Microsecond

// reopens reports whether the plan's edge ends a refuse or goaway outage
// (the mode before it being cur) without a crash: the listener opens
// again there.
func reopens(p *chaos.Plan, cur chaos.OutageMode, edge time.Duration) bool {
	next := p.ActiveAt(edge).Outage
	return !cur.Listening() && next.Listening() && !next.Crashes()
}

// crossed returns what happened to the connections between two looks at
// the plan, from and now, the outage mode at from being cur: whether a
// crash (a reset or refuse outage) began in (from, now], even one that
// is already over (a short outage on a machine whose timers are late
// would otherwise never crash anything), and the outage mode at now.
func crossed(p *chaos.Plan, cur chaos.OutageMode, from, now time.Duration) (crash bool, next chaos.OutageMode) {
	prev := cur
	for _, seg := range p.Segments() {
		if seg.Start <= from {
			continue
		}
		if seg.Start > now {
			break
		}
		if o := seg.Effect.Outage; o != prev {
			crash = crash || o.Crashes()
			prev = o
		}
	}
	next = p.ActiveAt(now).Outage
	return crash || next != cur && next.Crashes(), next
}

// transition acts on the connections when the outage mode changes, or a
// crash began since the last look (crash).
func (s *Server) transition(prev, next chaos.OutageMode, crash bool) {
	if prev.Listening() && !next.Listening() {
		// Stop accepting first, and let the accept loop end (every
		// connection it took is then tracked), so that no connection
		// slips in between the crash or goaway and the close.
		s.mu.Lock()
		_ = s.ln.Close()
		served := s.served
		s.mu.Unlock()
		select {
		case <-served:
		case <-time.After(100 * time.Millisecond):
		}
	}
	if crash {
		s.crash()
	}
	if next == chaos.Goaway && prev != chaos.Goaway {
		s.goAway()
	}
	if prev == chaos.Goaway && next != chaos.Goaway {
		s.srv.SetKeepAlivesEnabled(true)
	}
	if !prev.Listening() && next.Listening() {
		s.reopen()
	}
}

// nextEdge returns the start of the first segment after now.
func nextEdge(p *chaos.Plan, now time.Duration) (time.Duration, bool) {
	segs := p.Segments()
	i := sort.Search(len(segs), func(i int) bool { return segs[i].Start > now })
	if i == len(segs) {
		return 0, false
	}
	return segs[i].Start, true
}

// crash drops all in-flight work and resets every connection at once:
// the model and the timers under the lock, then every connection in one
// sweep outside it (resetAll), so the resets reach the clients as close
// together as the sockets allow and no handler waits for the lock
// meanwhile; then the handlers of the reset connections wake and abort.
func (s *Server) crash() {
	s.mu.Lock()
	s.lastCrash.Store(time.Now().UnixNano())
	s.locked().Crash()
	for j, t := range s.timers {
		t.Stop()
		delete(s.timers, j)
	}
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	crashed := s.crashed
	s.crashed = make(chan struct{}) // requests from now on are after the crash
	s.mu.Unlock()
	resetAll(conns)
	s.grpcConns.resetAll()
	close(crashed) // wakes the handlers of the reset connections, which abort
}

// resetAll resets every connection of cs. TCP connections first get their
// RST in one tight loop of system calls (abortSocket), so that the peers
// learn of the crash as close together as the kernel can tell them, and
// are closed after; others are closed with SO_LINGER 0, split among the
// process's cores when there are many: such a close costs a system call
// or two, and waits for the goroutine reading the connection to run.
func resetAll(cs []net.Conn) {
	rest := cs[:0:0]
	var aborted []net.Conn
	for _, c := range cs {
		if abortSocket(c) {
			aborted = append(aborted, c)
		} else {
			rest = append(rest, c)
		}
	}
	closeAll(rest)
	for _, c := range aborted {
		_ = c.Close()
	}
}

// closeAll resets every connection of cs by closing it with SO_LINGER 0.
func closeAll(cs []net.Conn) {
	const perWorker = 128 // below this a goroutine costs more than it saves
	workers := min(runtime.GOMAXPROCS(0), (len(cs)+perWorker-1)/perWorker)
	if workers <= 1 {
		for _, c := range cs {
			resetConn(c)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(cs); i += workers {
				resetConn(cs[i])
			}
		}()
	}
	wg.Wait()
}

func (s *Server) reopen() {
	for attempt := 0; ; attempt++ {
		ln, err := s.listen("tcp", s.addr)
		if err == nil {
			ln = s.limits.Listener(ln)
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				_ = ln.Close()
				return
			}
			s.ln = ln
			s.mu.Unlock()
			s.serve(s.wrapTLS(ln))
			return
		}
		if attempt >= 50 {
			return // the port was taken; the target stays down and the run shows it
		}
		select {
		case <-s.stop:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// resetConn closes c with an RST instead of a FIN, as a crashed process's
// kernel does.
func resetConn(c net.Conn) {
	if tc := netguard.Socket(c); tc != nil {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// reset resets the request's connection: an HTTP/1.1 one hijacked, an
// HTTP/2 one (which cannot be) from the request's context, every stream
// on it failing at once, as a crashed server's would.
func (s *Server) reset(ctx context.Context, w http.ResponseWriter) {
	c, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		if c, ok := ctx.Value(connKey{}).(net.Conn); ok {
			resetConn(c)
		}
		panic(http.ErrAbortHandler)
	}
	resetConn(c)
}

var okBody = []byte("ok\n")

// RecordCalls makes the server's model report every OCC write it serves
// to r. Call it before the run starts.
func (s *Server) RecordCalls(r model.CallRecorder) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.locked().RecordCalls(r)
}

// hop draws one network hop from the model.
func (s *Server) hop() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.locked().Hop()
}

// ServeHTTP implements http.Handler: a request goes through the steps
// below in order, each of which may end it.
//
//  1. parseOp: what it asks (a plain request, or an OCC read or write);
//  2. exchange.hop: the modelled network carries it to the server;
//  3. exchange.applyFaults: the chaos plan's decision (Model.Ingress)
//     resets it, answers it at once, holds it, or delays it;
//  4. forward (the proxy's Next) or exchange.serve: the capacity model
//     queues and serves it, and exchange.respond answers after the
//     return hop.
//
// With a network delay in the model, the server plays the network: it
// holds each request for one hop before the model sees it, and each answer
// for one hop before writing it, so the model processes requests in the
// order the modelled network delivers them. A crash during either hop
// resets the connection, as it would a request in flight. Resets are not
// delayed (an RST is seen at once).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ci, ok := r.Context().Value(connInfoKey{}).(*connInfo); ok {
		ci.inFlight.Add(1)
		defer ci.inFlight.Add(-1)
	}
	op, version, ok := s.parseOp(r)
	if !ok {
		http.Error(w, "herdbench target: POST /occ/read or /occ/write?version=N (OCC targets only), or any other path for a plain request", http.StatusNotFound)
		return
	}
	s.mu.Lock()
	x := exchange{s: s, w: w, ctx: r.Context(), crashed: s.crashed}
	s.mu.Unlock()
	x.hop()
	if !x.applyFaults() {
		return
	}
	if s.next != nil {
		s.forward(w, r, x.crashed)
		return
	}
	route := 0
	if len(s.routes.Routes) > 0 {
		route = s.routes.Route(r.Method, r.URL.Path)
	}
	x.serve(op, version, route)
}

// exchange is one request on its way through the server.
type exchange struct {
	s       *Server
	w       http.ResponseWriter
	g       *grpcCall       // a gRPC call's side instead of w (grpc.go)
	ctx     context.Context // ends when the client goes away
	crashed <-chan struct{} // closed if a crash begins while the request is in
}

// hop holds the request (or its answer) for one network hop of the model;
// a crash meanwhile aborts it.
func (x *exchange) hop() {
	if d := x.s.hop(); d > 0 && !x.s.wait(x.ctx, x.crashed, d) {
		panic(http.ErrAbortHandler)
	}
}

// answer applies the model's answer a to the request: the one place the
// server turns an Answer into HTTP, for every kind of answer and every
// tier. It reports whether the request goes on to be served (Admit, after
// its added delay). A reset or refuse answer resets the connection at
// once; a hang holds the request until its client gives up or a crash
// begins; a response is written after the return hop, with Retry-After
// when set, body as its body, and a truncated one has its body cut
// half-way and its connection closed. A recording classifies the request
// from a, not from how it was written (noteAnswer).
func (x *exchange) answer(a chaos.Answer, body []byte) bool {
	if x.g != nil {
		return x.answerGRPC(a)
	}
	s := x.s
	switch a.Verdict {
	case chaos.Admit:
		if a.Delay > 0 && !s.wait(x.ctx, x.crashed, a.Delay) {
			panic(http.ErrAbortHandler)
		}
		return true
	case chaos.ResetConn, chaos.RefuseConn:
		noteAnswer(x.w, a)
		s.reset(x.ctx, x.w)
		return false
	case chaos.Hang:
		select {
		case <-x.ctx.Done():
			return false
		case <-x.crashed:
			panic(http.ErrAbortHandler)
		}
	}
	x.hop()
	h := x.w.Header()
	if a.RetryAfter > 0 {
		h.Set("Retry-After", chaos.RetryAfterHeader(a.RetryAfter))
	}
	if body != nil {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	noteAnswer(x.w, a)
	x.w.WriteHeader(a.Status)
	if a.Truncate {
		_, _ = x.w.Write(body[:len(body)/2])
		_ = http.NewResponseController(x.w).Flush()
		panic(http.ErrAbortHandler) // closes the connection short of Content-Length
	}
	_, _ = x.w.Write(body)
	return false
}

// applyFaults applies the chaos plan's decision for the request as it
// reaches the server (Model.Ingress), and reports whether it goes on to be
// served.
func (x *exchange) applyFaults() bool {
	s := x.s
	s.mu.Lock()
	a := s.locked().Ingress(s.elapsed())
	x.crashed = s.crashed
	s.mu.Unlock()
	return x.answer(a, nil)
}

// serve hands the request to the capacity model and answers when the
// model has served it (200, or an OCC read's version, or 409 for a stale
// OCC write), or 503 when the queue is full or the request waited in it
// past the queue timeout. A client that gives up abandons its job.
func (x *exchange) serve(op model.Op, version uint64, route int) {
	s := x.s
	wt := &waiter{done: make(chan struct{})}
	done := wt.done
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	j, adm := s.locked().ArriveOn(s.elapsed(), route)
	j.Owner = wt
	j.Op, j.Version = op, version
	var over chaos.Answer // the model's answer to a request capacity turned away, read under the lock
	if adm == model.Rejected {
		over = s.locked().Overloaded()
	}
	if adm == model.Started {
		if j.Service == 0 {
			// Served at once, under the lock: the order of effects on an
			// OCC row is the order of arrival.
			s.finishLocked(j)
		} else {
			s.schedule(j)
		}
	}
	s.mu.Unlock()

	if adm == model.Rejected {
		x.answer(over, nil)
		return
	}
	var expire <-chan time.Time
	if adm == model.Queued {
		t := time.NewTimer(time.Until(s.slow.At(s.origin, j.Deadline)))
		defer t.Stop()
		expire = t.C
	}
	for {
		select {
		case <-done:
			if s.call != nil {
				x.relay(j)
				return
			}
			x.respondServed(j, op)
			return
		case <-expire:
			s.mu.Lock()
			timedOut := s.locked().Expire(s.elapsed(), j)
			if timedOut {
				over = s.locked().Overloaded()
			}
			s.mu.Unlock()
			if timedOut {
				x.answer(over, nil)
				return
			}
			expire = nil
		case <-x.ctx.Done():
			s.mu.Lock()
			wt.gone = true
			s.locked().Abandon(s.elapsed(), j)
			s.mu.Unlock()
			panic(http.ErrAbortHandler)
		case <-x.crashed:
			// The connection was reset; make sure nothing is written.
			panic(http.ErrAbortHandler)
		}
	}
}

// respondServed answers a job the model has served.
func (x *exchange) respondServed(j *model.Job, op model.Op) {
	s := x.s
	s.mu.Lock()
	a := s.locked().Served(s.elapsed(), j)
	s.mu.Unlock()
	switch {
	case op == model.OpRead:
		x.answer(a, strconv.AppendUint(nil, j.Version, 10))
	case a.Status == http.StatusOK:
		x.answer(a, okBody)
	default:
		x.answer(a, nil)
	}
}

// schedule arms the timer that ends j's service. Called with s.mu held.
func (s *Server) schedule(j *model.Job) {
	d := s.slow.Wall(j.Service)
	due := time.Now().Add(d)
	s.timers[j] = time.AfterFunc(d, func() {
		s.drift.record(s.slow.Scenario(time.Since(due)))
		s.finish(j)
	})
}

func (s *Server) finish(j *model.Job) {
	s.mu.Lock()
	if _, ok := s.timers[j]; !ok {
		s.mu.Unlock()
		return // stopped by a crash or Close
	}
	delete(s.timers, j)
	s.finishLocked(j)
	s.mu.Unlock()
}

// waiter is a request's handler waiting for its job (Job.Owner).
type waiter struct {
	done chan struct{} // closed when the job's service ends
	gone bool          // the handler left: its client went away (guarded by Server.mu)
}

// finishLocked ends j's service, starts the jobs that take its slot and
// wakes j's handler. At a middle tier the handler keeps the slot while it
// calls the next tier, and releases it itself (relay), unless it left.
// Called with s.mu held.
func (s *Server) finishLocked(j *model.Job) {
	w := j.Owner.(*waiter)
	if s.call == nil || w.gone {
		s.releaseLocked(j)
	}
	close(w.done)
}

// releaseLocked frees j's slot and starts the jobs that take it. Called
// with s.mu held.
func (s *Server) releaseLocked(j *model.Job) {
	for _, next := range s.locked().Finish(s.elapsed(), j) {
		if next.Service == 0 {
			s.finishLocked(next)
			continue
		}
		s.schedule(next)
	}
}

// OCC paths.
const (
	PathRead  = "/occ/read"
	PathWrite = "/occ/write" // ?version=N
)

// parseOp reads what a request asks. On an OCC target, POST /occ/read reads
// the row and POST /occ/write?version=N writes it (409 Conflict if N is not
// current); every other path is a plain request. POST, because net/http
// retries idempotent requests on a reused connection that failed, which
// would hide resets from the client's count of attempts.
func (s *Server) parseOp(r *http.Request) (model.Op, uint64, bool) {
	switch r.URL.Path {
	case PathRead, PathWrite:
	default:
		return model.OpPlain, 0, true
	}
	if s.kind != model.OCC || r.Method != http.MethodPost {
		return 0, 0, false
	}
	if r.URL.Path == PathRead {
		return model.OpRead, 0, true
	}
	v, err := strconv.ParseUint(r.URL.Query().Get("version"), 10, 64)
	if err != nil {
		return 0, 0, false
	}
	return model.OpWrite, v, true
}

// sleep waits d unless ctx ends or a crash begins; it reports whether d
// passed.
func sleep(ctx context.Context, crashed <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
	case <-crashed:
	}
	return false
}

// untilCrash returns a context of parent's that is cancelled too when a
// crash begins (crashed closes), for work handed on (the proxy's next, a
// middle tier's call) that a crash must cut; cancel must be called.
func untilCrash(parent context.Context, crashed <-chan struct{}) (ctx context.Context, cancel context.CancelFunc) {
	ctx, cancel = context.WithCancel(parent)
	go func() {
		select {
		case <-crashed:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// abortIfCrashed aborts the request (http.ErrAbortHandler) if a crash has
// begun: its connection was reset mid-request.
func abortIfCrashed(crashed <-chan struct{}) {
	select {
	case <-crashed:
		panic(http.ErrAbortHandler)
	default:
	}
}

var _ http.Handler = (*Server)(nil)
