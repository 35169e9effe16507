package herdtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/engine"

	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/internal/httpwire"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
)

// Mode says on which clock and network a run goes.
type Mode uint8

// Modes.
const (
	// Virtual runs in a testing/synctest bubble over an in-memory
	// network: the bubble's clock, seconds of wall time for minutes of
	// scenario.
	Virtual Mode = iota
	// Real runs on the wall clock over loopback (127.0.0.1).
	Real
)

func (m Mode) String() string {
	if m == Real {
		return "real time"
	}
	return "virtual time"
}

// Client is what one client of a cohort gets to build its client code
// with: the target's address, ready connections to it, and its own random
// stream.
type Client struct {
	Cohort string // the cohort's name
	Index  int    // the client's index in its cohort, from 0
	// URL is the target's base URL, http://127.0.0.1:PORT/: send any
	// method to any path under it.
	URL string
	// HTTP is a ready client whose every round trip is one attempt,
	// recorded; it has no timeout of its own (give it your library's).
	// Its connections are this client's alone, as a real client's pool.
	HTTP *http.Client
	// Transport is HTTP's transport, for libraries that take a
	// RoundTripper: its round trips are recorded too.
	Transport http.RoundTripper
	// Dial opens a connection to the target's address, for libraries that
	// build their own transport; what goes over it is not recorded unless
	// it goes through Transport.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Rand is the client's own random stream, from the run's seed: the
	// same numbers in every cohort and every run of that seed.
	Rand *rand.Rand

	// When the scenario's target speaks gRPC (target.protocol: grpc), URL,
	// HTTP and Transport are empty and these are set instead.

	// GRPC is a ready channel to the target, this client's alone, made
	// with DialGRPC and no options of yours (grpc-go's defaults: no retry
	// policy, so only its transparent retries), connected before the run's
	// t = 0. Every attempt it sends is recorded. Hand it to your generated
	// client (pb.NewGreeterClient(c.GRPC)); for a retry policy of your
	// own, make a channel with DialGRPC.
	GRPC *grpc.ClientConn
	// GRPCTarget is the target's address, 127.0.0.1:PORT. In real time any
	// grpc-go client reaches it over loopback, but only channels made by
	// DialGRPC (and GRPC) are recorded; in virtual time only they reach it.
	GRPCTarget string
	// Method is the scenario's target.method (/herdbench.Target/Call by
	// default). The target answers any method with an empty message, which
	// every protobuf client reads as its message with default values.
	Method string

	grpc *grpcClient // nil for an HTTP target

	cleanups []func()
}

// Cleanup registers f to be called when the run ends, after this
// client's requests have returned (or were given up on), last registered
// first. Stop there what the client's code started and the run's end
// does not stop: a library's background refresher, a ticker, a pool's
// reaper (close the library's client). In virtual time it runs on the
// run's clock, where those goroutines live; a goroutine still running
// when the run ends fails the test.
func (c *Client) Cleanup(f func()) {
	c.cleanups = append(c.cleanups, f)
}

// RequestFunc performs one logical request: nil when it succeeded, an
// error when it gave up. ctx ends at the run's end: pass it to your
// requests (http.NewRequestWithContext) so an unfinished request stops
// there, and so its round trips count as its attempts. Under an open
// workload one client serves every arrival, as one process serves its
// callers: its RequestFunc is called from many goroutines at once.
type RequestFunc func(ctx context.Context) error

// Cohort is one fleet of clients running the same code.
type Cohort struct {
	// Name names the cohort in the figures (summary.json's runs[].strategy).
	Name string
	// New builds one client's code, once per client, before the run's
	// t = 0, and returns its request function.
	New func(c *Client) RequestFunc
	// Thresholds are gates for this cohort alone, in the scenario's
	// grammar ("herd_factor < 3", "failed_after_fault <= 10").
	Thresholds []string
}

// Options say which scenario to run and how.
type Options struct {
	// Scenario is a built-in scenario's name (herdbench list) or a
	// scenario file; with YAML set, the name the scenario is known by.
	Scenario string
	// YAML, if set, is the scenario itself.
	YAML []byte
	// Mode is Virtual (the default) or Real.
	Mode Mode
	// Seed replaces the scenario's root seed when not 0.
	Seed uint64
	// Duration and Clients replace the scenario's when not 0.
	Duration time.Duration
	Clients  int
	// Set changes fields of the scenario, each PATH=VALUE as herdbench's
	// --set takes it, one value each: "target.protocol=grpc" runs an HTTP
	// scenario's storm over gRPC.
	Set []string
	// Thresholds are gates for every cohort, besides the scenario's.
	Thresholds []string
	// Out is where a failing run's results folder goes. When "": the
	// test's artifact folder with go test -artifacts (kept under
	// -outputdir), else $TMPDIR/herdtest/TESTNAME, which outlives the test.
	Out string
	// Grace is how long after the run's end a request may take to return
	// before it is reported as one that never returns; 10 s when 0.
	Grace time.Duration
	// Stall is, in virtual time, how long the bubble's clock may stand
	// still, in wall time, while the run is unfinished, before herdtest
	// stops the test (a wait outside the bubble); 30 s when 0.
	Stall time.Duration
	// FailUntrustworthy fails the test when a real-time run's verdict is
	// not trustworthy (results.Verdict: the harness was later than the
	// scenario's timescales allow, so its figures may be the machine's);
	// without it the verdict is logged, as in every real-time test.
	FailUntrustworthy bool
}

// ErrUnsupported is wrapped by the errors of what herdtest cannot run.
var ErrUnsupported = errors.New("herdtest: not supported")

// plan compiles the scenario for the cohorts: one plan, whose strategies
// name the cohorts, with the scenario's thresholds for every cohort and
// each cohort's own.
func plan(o Options, cohorts []Cohort) (*scenarios.Plan, error) {
	if len(cohorts) == 0 {
		return nil, errors.New("herdtest: no cohort to run; pass at least one Cohort")
	}
	seen := map[string]bool{}
	for i, c := range cohorts {
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("herdtest: cohort %d has no Name", i)
		case seen[c.Name]:
			return nil, fmt.Errorf("herdtest: two cohorts are named %q; each names a row of the figures", c.Name)
		case c.New == nil:
			return nil, fmt.Errorf("herdtest: cohort %q has no New function to build its clients", c.Name)
		}
		seen[c.Name] = true
	}
	ov := scenarios.Overrides{Duration: o.Duration, Seed: nilIfZero(o.Seed), Cohorts: true}
	if o.Clients > 0 {
		ov.Set = []scenarios.Axis{{Path: "workload.clients", Values: []string{fmt.Sprint(o.Clients)}, Origin: "herdtest.Options.Clients"}}
	}
	for _, arg := range o.Set {
		a, err := scenarios.ParseSet(arg)
		if err != nil {
			return nil, fmt.Errorf("herdtest: Options.Set: %w", err)
		}
		if len(a.Values) != 1 {
			return nil, fmt.Errorf("herdtest: Options.Set %q gives %d values; herdtest runs one point, give one", arg, len(a.Values))
		}
		a.Origin = "herdtest.Options.Set"
		ov.Set = append(ov.Set, a)
	}
	var op *scenarios.Opened
	var err error
	if o.YAML == nil {
		op, err = scenarios.Open(o.Scenario, ov)
	} else {
		name := o.Scenario
		if name == "" {
			name = "herdtest.yaml"
		}
		op, err = scenarios.OpenData(name, o.YAML, ov)
	}
	if err != nil {
		return nil, fmt.Errorf("herdtest: %w", err)
	}
	plans := op.Plans
	if len(plans) != 1 {
		return nil, fmt.Errorf("%w: the scenario sweeps %d points; herdtest runs one (set the swept fields in the file)", ErrUnsupported, len(plans))
	}
	p := plans[0]
	switch {
	case p.TargetURL != "":
		return nil, fmt.Errorf("%w: the scenario sends to an external target (%s); herdtest runs against herdbench's own target, in-process: remove target.url", ErrUnsupported, p.TargetURL)
	case len(p.Tiers) > 0:
		return nil, fmt.Errorf("%w: a chain of tiers; herdtest calls a single target", ErrUnsupported)
	}
	var ths []results.Threshold
	for _, th := range p.Thresholds {
		// A strategy's own gates, and the file's that name cohorts (a
		// built-in's claims), are about the scenario's strategies, not
		// these cohorts.
		if th.Cohort == "" && len(th.Cohorts()) == 0 {
			ths = append(ths, th)
		}
	}
	add := func(cohort string, exprs []string) error {
		for _, e := range exprs {
			th, err := results.ParseThreshold(e)
			if err != nil {
				return fmt.Errorf("herdtest: threshold %q: %w", e, err)
			}
			th.Cohort = cohort
			ths = append(ths, th)
		}
		return nil
	}
	if err := add("", o.Thresholds); err != nil {
		return nil, err
	}
	p.Strategies = make([]clients.Strategy, len(cohorts))
	for i, c := range cohorts {
		if err := add(c.Name, c.Thresholds); err != nil {
			return nil, err
		}
		p.Strategies[i] = clients.Strategy{Name: c.Name}
	}
	p.Thresholds = ths
	return p, nil
}

// hostPort is the host:port of a target's URL.
func hostPort(u string) string {
	if p, err := url.Parse(u); err == nil && p.Host != "" {
		return p.Host
	}
	return strings.TrimSuffix(u, "/")
}

// nilIfZero is a pointer to v, or nil when v is 0.
func nilIfZero(v uint64) *uint64 {
	if v == 0 {
		return nil
	}
	return &v
}

// problems collects what went wrong in the cohorts' code during a run: a
// panic, a request that never returned. Reported once the run is over.
type problems struct {
	mu   sync.Mutex
	msgs []string
	seen map[string]int // by cohort and kind: how many more of the same
}

func (p *problems) add(cohort, kind, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]int{}
	}
	key := cohort + "\x00" + kind
	if p.seen[key]++; p.seen[key] == 1 {
		p.msgs = append(p.msgs, msg)
	}
}

// kindPanic is the kind of problem of a request function that panicked.
const kindPanic = "a panic in its request function"

// has reports whether cohort had a problem of kind.
func (p *problems) has(cohort, kind string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[cohort+"\x00"+kind] > 0
}

func (p *problems) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]string(nil), p.msgs...)
	for key, n := range p.seen {
		if n > 1 {
			c, kind, _ := strings.Cut(key, "\x00")
			out = append(out, fmt.Sprintf("cohort %s: %d clients in all had this problem: %s", c, n, kind))
		}
	}
	return out
}

// driver runs the user's cohorts as engine.Options.Drive.
type driver struct {
	cohorts []Cohort
	grace   time.Duration
	probs   *problems
	virtual bool // in a synctest bubble
	// grpc says the target speaks gRPC, with the scenario's method: the
	// clients get channels instead of an HTTP client.
	grpc   bool
	method string
	// progress is the latest instant of the run's clock a client saw, in
	// ns since t = 0: what the virtual-time watchdog reads.
	progress *atomic.Int64
}

// drive runs one cohort's clients until the run's end.
func (d *driver) drive(ctx context.Context, c engine.Driven) {
	end := c.Origin.Add(c.Duration)
	ctx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	co := d.cohorts[c.Index]
	var wg sync.WaitGroup
	done := make(chan struct{})
	var transports []*http.Transport
	var grpcs []*grpcClient
	tally := &tally{}
	n := c.Workload.Clients
	if c.Workload.Kind == clients.Open {
		n = 1 // one process serves the arrivals: its policies see them all
	}
	var fns []func()
	var envs []*Client
	for i := range n {
		dial := c.Dial
		if dial == nil {
			dial = (&net.Dialer{}).DialContext
		}
		cl := &client{d: d, c: c, id: i, shard: c.Rec.Shard(i), think: seeds.Stream(c.Seed, seeds.Client(i)), end: end, tally: tally}
		env := &Client{Cohort: co.Name, Index: i, Dial: dial, Rand: seeds.Stream(c.Seed, seeds.User(i))}
		envs = append(envs, env)
		if d.grpc {
			g := &grpcClient{cl: cl, addr: hostPort(c.URL), dialer: dial}
			grpcs = append(grpcs, g)
			env.grpc, env.GRPCTarget, env.Method = g, g.addr, d.method
			cc, err := g.dial(nil)
			if err != nil {
				d.probs.add(co.Name, "no channel", fmt.Sprintf("cohort %s: client %d: %v", co.Name, i, err))
				continue
			}
			env.GRPC = cc
		} else {
			base := &http.Transport{DialContext: counting(dial), MaxIdleConnsPerHost: 16, DisableCompression: true}
			transports = append(transports, base)
			rt := &recordingTransport{base: base, cl: cl}
			env.URL, env.HTTP, env.Transport = c.URL+"/", &http.Client{Transport: rt}, rt
		}
		fn, ok := cl.build(co, env)
		if !ok {
			continue
		}
		fns = append(fns, func() {
			if c.Workload.Kind == clients.Open {
				cl.arrivals(ctx, co.Name, fn)
				return
			}
			cl.loop(ctx, co.Name, fn)
		})
	}
	if len(grpcs) > 0 && time.Now().Before(c.Origin) {
		var chans []*grpc.ClientConn
		for _, g := range grpcs {
			chans = append(chans, g.toWarm()...)
		}
		swarm.Warm(context.Background(), chans, c.Origin)
	}
	for _, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn()
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Until(end) + d.grace):
		// They are left running: in virtual time the bubble reports
		// them once the run is over (inBubble), instead of a deadlock.
		d.probs.add(co.Name, "a request that did not return", fmt.Sprintf(
			"cohort %s: requests still running %s after the run's end: a request function must return once its ctx ends (pass ctx to its requests, and to its waits); the figures leave them out", co.Name, d.grace))
	}
	for _, env := range envs {
		env.cleanup(d.probs)
	}
	for _, t := range transports {
		t.CloseIdleConnections()
	}
	for _, g := range grpcs {
		g.close()
	}
	d.roundTrips(co.Name, tally)
}

// roundTrips says when cohort's requests ended without one round trip
// through herdtest's transport or channels: the code sent with a client
// herdtest neither sees nor counts.
func (d *driver) roundTrips(cohort string, tally *tally) {
	ended := tally.ended.Load()
	if ended == 0 || tally.trips.Load() > 0 || d.probs.has(cohort, kindPanic) {
		return
	}
	if d.grpc {
		d.probs.add(cohort, "requests without a round trip", fmt.Sprintf(
			"cohort %s: its %d requests ended without one attempt on a channel herdtest made (c.GRPC, c.DialGRPC): the code calls on a channel of its own "+
				"(grpc.NewClient, a channel made outside the test), which herdtest neither sees nor counts, and which in virtual time dials the host's "+
				"real network (a dns:/// target resolves there too); make the library's channel with c.DialGRPC, or hand it c.GRPC", cohort, ended))
		return
	}
	d.probs.add(cohort, "requests without a round trip", fmt.Sprintf(
		"cohort %s: its %d requests ended without one round trip through the Client's HTTP or Transport: the code sends with another client "+
			"(http.DefaultClient, an http.Client whose Transport is nil, a transport of its own), which herdtest neither sees nor counts, "+
			"and which in virtual time goes to the host's real network; build the library's client on c.HTTP or c.Transport", cohort, ended))
}

// tally counts, for one cohort, the requests that ended and the round
// trips through herdtest's transport: requests without any were sent by
// some other client.
type tally struct{ ended, trips atomic.Int64 }

// client is one client of a cohort: its clock, its think times, its
// attempt numbers.
type client struct {
	d     *driver
	c     engine.Driven
	id    int
	shard *results.Shard
	think *rand.Rand
	end   time.Time
	tally *tally
	// cur is the current request of a closed-loop or one-shot client: the
	// round trips whose context carries no request of their own count as
	// its attempts.
	cur atomic.Pointer[request]
}

// request is one logical request in flight: where its figures go, and the
// number of its latest attempt.
type request struct {
	shard   *results.Shard
	attempt atomic.Int64 // 1 for the first round trip
}

type requestKey struct{}

// requestOf returns the request a round trip belongs to: the one its
// context carries (every request under an open workload), or else the
// client's current one.
func (cl *client) requestOf(ctx context.Context) *request {
	if r, ok := ctx.Value(requestKey{}).(*request); ok {
		return r
	}
	if r := cl.cur.Load(); r != nil {
		return r
	}
	return &request{shard: cl.shard} // a round trip before the first request (in New)
}

func (cl *client) now() time.Duration {
	el := time.Since(cl.c.Origin)
	if p := cl.d.progress; p != nil {
		for {
			old := p.Load()
			if int64(el) <= old || p.CompareAndSwap(old, int64(el)) {
				break
			}
		}
	}
	return el
}

// build calls the cohort's New for one client; a panic there is the
// cohort's problem, reported, and the client does not run.
func (cl *client) build(co Cohort, env *Client) (fn RequestFunc, ok bool) {
	defer func() {
		if v := recover(); v != nil {
			cl.d.probs.add(co.Name, "a panic in New", fmt.Sprintf("cohort %s: New panicked for client %d: %v%s\n%s", co.Name, cl.id, v, cl.d.nilHint(v), debug.Stack()))
			ok = false
		}
	}()
	fn = co.New(env)
	if fn == nil {
		cl.d.probs.add(co.Name, "New returned nil", fmt.Sprintf("cohort %s: New returned a nil RequestFunc for client %d", co.Name, cl.id))
		return nil, false
	}
	return fn, true
}

// cleanup calls the client's Cleanup functions, last registered first;
// a panic in one is its cohort's problem, reported, and the others still
// run.
func (c *Client) cleanup(probs *problems) {
	for i := len(c.cleanups) - 1; i >= 0; i-- {
		func() {
			defer func() {
				if v := recover(); v != nil {
					probs.add(c.Cohort, "a panic in a Cleanup function", fmt.Sprintf("cohort %s: a Cleanup function of client %d panicked: %v\n%s", c.Cohort, c.Index, v, debug.Stack()))
				}
			}()
			c.cleanups[i]()
		}()
	}
}

// nilHint says, for a panic that is a runtime error (a nil pointer or
// func among them), which of the Client's fields are nil for this
// target's protocol.
func (d *driver) nilHint(v any) string {
	if _, ok := v.(runtime.Error); !ok {
		return ""
	}
	if d.grpc {
		return " (the target speaks gRPC: c.URL, c.HTTP and c.Transport are empty; call it with c.GRPC or a channel from c.DialGRPC)"
	}
	return " (the target speaks HTTP: c.GRPC is nil; call it with c.HTTP, or set target.protocol: grpc)"
}

// loop runs the client's requests, as the scenario's workload says: one
// after another with think time (closed), or one (one-shot).
func (cl *client) loop(ctx context.Context, cohort string, fn RequestFunc) {
	w := cl.c.Workload
	start := time.Duration(0)
	if w.Kind == clients.Closed {
		start = w.Think.Sample(cl.think)
	}
	for {
		if start >= cl.c.Duration || ctx.Err() != nil {
			return
		}
		if !sleepUntil(ctx, cl.c.Origin.Add(start)) {
			return
		}
		cl.shard.Started(start)
		r := &request{shard: cl.shard}
		cl.cur.Store(r)
		err := cl.call(context.WithValue(ctx, requestKey{}, r), cohort, fn)
		ended := cl.now()
		if ended >= cl.c.Duration || ctx.Err() != nil {
			return // cut by the run's end: neither succeeded nor failed
		}
		cl.shard.Request(results.Request{Start: start, End: ended, Succeeded: err == nil})
		cl.tally.ended.Add(1)
		if w.Kind != clients.Closed {
			return
		}
		start = ended + w.Think.Sample(cl.think)
	}
}

// arrivals runs an open workload's requests on the one client: each
// Poisson arrival (the swarm's stream, seeds.Arrivals) calls fn in a
// goroutine of its own, its figures in the arrival's shard, as the swarm
// records its arrivals.
func (cl *client) arrivals(ctx context.Context, cohort string, fn RequestFunc) {
	rng := seeds.Stream(cl.c.Seed, seeds.Arrivals)
	var wg sync.WaitGroup
	defer wg.Wait()
	var at time.Duration
	for id := 0; ; id++ {
		var more bool
		if at, more = cl.c.Workload.NextArrival(at, rng.ExpFloat64(), cl.c.Duration); !more {
			return
		}
		if !sleepUntil(ctx, cl.c.Origin.Add(at)) {
			return
		}
		r := &request{shard: cl.c.Rec.Shard(id)}
		r.shard.Started(at)
		wg.Add(1)
		go func(start time.Duration) {
			defer wg.Done()
			err := cl.call(context.WithValue(ctx, requestKey{}, r), cohort, fn)
			ended := cl.now()
			if ended >= cl.c.Duration || ctx.Err() != nil {
				return
			}
			r.shard.Request(results.Request{Start: start, End: ended, Succeeded: err == nil})
			cl.tally.ended.Add(1)
		}(at)
	}
}

// sleepUntil waits until t, if it is still to come; it reports false if
// ctx ended while it waited.
func sleepUntil(ctx context.Context, t time.Time) bool {
	wait := time.Until(t)
	if wait <= 0 {
		return true
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// call runs one request; a panic in it is the request's failure and the
// cohort's problem, reported with its stack.
func (cl *client) call(ctx context.Context, cohort string, fn RequestFunc) (err error) {
	defer func() {
		if v := recover(); v != nil {
			cl.d.probs.add(cohort, kindPanic, fmt.Sprintf("cohort %s: client %d's request panicked: %v%s\n%s", cohort, cl.id, v, cl.d.nilHint(v), debug.Stack()))
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return fn(ctx)
}

// recordingTransport records every round trip as one attempt of its
// client's current request.
type recordingTransport struct {
	base http.RoundTripper
	cl   *client
}

// errOver is a round trip's error once the run is over: the target is
// gone, and a late retry is not part of the figures.
var errOver = errors.New("herdtest: the run is over")

func (t *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	cl := t.cl
	if !time.Now().Before(cl.end) {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, errOver
	}
	cl.tally.trips.Add(1)
	r := cl.requestOf(req.Context())
	n := int(r.attempt.Add(1))
	sent := cl.now()
	// net/http asks for a connection once per request it puts on the
	// wire: a second ask within one round trip is its own re-send of the
	// request. When bytes of the try before it went out on its connection
	// (a replayable request whose reused connection failed before the
	// answer's first byte), that try is an attempt that went to the
	// target and was reset, and the next is a transport re-send; the
	// strategy above never sees either. When none did (a connection found
	// dead before any byte went out, which net/http re-dials for any
	// request without a body), nothing reached the target: not an attempt.
	var (
		tries        int
		resend       bool
		conn         *countingConn
		startWritten int64
	)
	trace := &httptrace.ClientTrace{
		GetConn: func(string) {
			if tries++; tries == 1 {
				return
			}
			at := cl.now()
			if conn != nil && conn.written.Load() > startWritten {
				if at < cl.c.Duration {
					r.shard.Attempt(results.Attempt{Sent: sent, Latency: at - sent, Number: n, Outcome: results.Reset, Resend: resend})
				}
				resend = true
			}
			sent, conn = at, nil
		},
		GotConn: func(info httptrace.GotConnInfo) {
			if c, ok := info.Conn.(*countingConn); ok {
				conn, startWritten = c, c.written.Load()
			}
		},
	}
	resp, err := t.base.RoundTrip(req.WithContext(httptrace.WithClientTrace(req.Context(), trace)))
	done := cl.now()
	if done >= cl.c.Duration {
		return resp, err // cut by the run's end: not recorded
	}
	outcome := results.OK
	if err != nil {
		outcome = httpwire.Classify(err)
	} else {
		outcome = results.FromStatus(resp.StatusCode)
	}
	r.shard.Attempt(results.Attempt{Sent: sent, Latency: done - sent, Number: n, Outcome: outcome, Resend: resend})
	return resp, err
}

var _ http.RoundTripper = (*recordingTransport)(nil)

// countingConn counts the bytes written on a connection of a client's
// transport: whether a try of a round trip put anything on the wire.
type countingConn struct {
	net.Conn
	written atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

// counting wraps dial's connections in countingConns.
func counting(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: nc}, nil
	}
}
