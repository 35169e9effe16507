package swarm

import (
	"context"
	"errors"
	"net"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/internal/grpcraw"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// GRPCSwarm is one cohort's clients in real time over gRPC.
type GRPCSwarm struct {
	// Target is where to call: host:port, or a URL (http://, grpc://)
	// whose host and port are taken.
	Target string
	// Method is the unary method every call asks for; grpcwire.Method
	// when empty.
	Method   string
	Strategy *clients.Strategy
	Workload *clients.Workload
	Seed     uint64
	Origin   time.Time
	Duration time.Duration
	Rec      *results.Recorder
	Part     clients.Part
	// Shared is how many clients share one channel: clients i with the
	// same i / Shared (of this part's clients); 0 or 1: each its own.
	// An open workload's arrivals all take one channel.
	Shared int
	// Dial opens connections; nil means the host's TCP stack.
	Dial       DialFunc
	BeforeSend func()
	Panicked   func(v any, stack []byte)
}

// Run drives the swarm until the run's end or until ctx is done, and
// waits for every client goroutine and closes every channel.
func (s *GRPCSwarm) Run(ctx context.Context) {
	ctx, cancel := context.WithDeadline(ctx, s.Origin.Add(s.Duration))
	defer cancel()
	method := s.Method
	if method == "" {
		method = grpcwire.Method
	}
	per := max(1, s.Shared)
	if b := s.Strategy.Budget; s.Strategy.GRPC != nil && b != nil && b.Scope.Shared() {
		per = max(1, s.Part.Count(s.Workload.Clients)) // channel: cohort: grpc-go's throttler is the channel's
	}
	nch := (s.Part.Count(s.Workload.Clients) + per - 1) / per
	if s.Workload.Kind == clients.Open {
		nch = 1
	}
	nch = max(1, nch)
	grpcGo := s.grpcGoCohort()
	chans := make([]*grpc.ClientConn, nch)
	for i := range chans {
		cc, err := s.dial(grpcGo)
		if err != nil {
			// Every attempt on it fails with this error (the address, a
			// service config): the run shows it.
			chans[i] = nil
			continue
		}
		chans[i] = cc
	}
	defer func() {
		for _, cc := range chans {
			if cc != nil {
				_ = cc.Close()
			}
		}
	}()
	Warm(ctx, chans, s.Origin)
	caller := &caller{s: s, method: method, grpcGo: grpcGo}
	var wg sync.WaitGroup
	k := clients.NewCohort(s.callStrategy())
	if s.Workload.Kind == clients.Open {
		s.runOpen(ctx, k, &wg, caller, chans[0])
	} else {
		for id := s.Part.First(); id < s.Workload.Clients; id += s.Part.Step() {
			sh := s.shard(id)
			c := k.NewClient(id, s.Workload, s.Duration, seeds.Stream(s.Seed, seeds.Client(id)), s.sink(sh))
			cc := chans[min(s.Part.Local(id)/per, nch-1)]
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.recoverPanic()
				caller.drive(ctx, c, c.Begin(), cc, sh)
			}()
		}
	}
	wg.Wait()
}

// callStrategy is the strategy the step function runs: the cohort's own,
// or for a grpc-go cohort one attempt per logical request (grpc-go makes
// the retries, below the call).
func (s *GRPCSwarm) callStrategy() *clients.Strategy {
	if !s.grpcGoCohort() {
		return s.Strategy
	}
	st := *s.Strategy
	g := *st.GRPC
	g.Retry = nil // each RPC once, within its deadline over all of grpc-go's attempts
	st.GRPC = &g
	st.MaxAttempts = 1
	st.Budget, st.Breaker, st.Throttle = nil, nil, nil
	return &st
}

// sink is where a client's records go: for a grpc-go cohort, its
// requests only (the stats handler records every attempt).
func (s *GRPCSwarm) sink(sh *results.Shard) results.Sink {
	if !s.grpcGoCohort() {
		return sh
	}
	return requestsOnly{sh}
}

// requestsOnly passes a client's requests and drops its attempts.
type requestsOnly struct{ sh *results.Shard }

func (r requestsOnly) Started(at time.Duration)  { r.sh.Started(at) }
func (r requestsOnly) Attempt(results.Attempt)   {}
func (r requestsOnly) Request(q results.Request) { r.sh.Request(q) }

func (s *GRPCSwarm) shard(id int) *results.Shard { return s.Rec.Shard(s.Part.Local(id)) }

func (s *GRPCSwarm) recoverPanic() {
	if s.Panicked == nil {
		return
	}
	if v := recover(); v != nil {
		s.Panicked(v, debug.Stack())
	}
}

// address is the host:port of Target.
func (s *GRPCSwarm) address() string {
	t := s.Target
	if strings.Contains(t, "://") {
		if u, err := url.Parse(t); err == nil {
			return u.Host
		}
	}
	return t
}

// dial makes one channel: herdbench's strategies with grpc-go's retries
// off, a grpc-go cohort with its service config; both with the stats
// handler that sees each attempt.
func (s *GRPCSwarm) dial(grpcGo bool) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUserAgent("herdbench"),
		grpc.WithStatsHandler(&attempts{s: s}),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})),
	}
	if s.Dial != nil {
		dial := s.Dial
		opts = append(opts, grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return dial(ctx, "tcp", addr)
		}))
	}
	if grpcGo {
		opts = append(opts, grpc.WithDefaultServiceConfig(s.Strategy.GRPC.JSON))
	} else {
		opts = append(opts, grpc.WithDisableRetry())
	}
	return grpc.NewClient("passthrough:///"+s.address(), opts...)
}

// Warm connects every channel (a nil one is skipped) before the run's
// t = 0, origin, or until ctx ends, as a service's channels are connected
// before its traffic: a wave of first calls is not slowed by handshakes.
// It returns when each is ready or the time has come. herdtest warms its
// clients' channels with it too.
func Warm(ctx context.Context, chans []*grpc.ClientConn, origin time.Time) {
	ctx, cancel := context.WithDeadline(ctx, origin)
	defer cancel()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 128)
	for _, cc := range chans {
		if cc == nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			cc.Connect()
			for st := cc.GetState(); st != connectivity.Ready; st = cc.GetState() {
				if !cc.WaitForStateChange(ctx, st) {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// caller makes the calls of a swarm's clients.
type caller struct {
	s      *GRPCSwarm
	method string
	grpcGo bool
}

// errNoChannel is every attempt's error on a channel that could not be made.
var errNoChannel = errors.New("swarm: the gRPC channel could not be made")

// drive runs one client's step function on the wall clock, each attempt a
// call on cc.
func (k *caller) drive(ctx context.Context, c *clients.Client, a clients.Action, cc *grpc.ClientConn, sh *results.Shard) {
	s := k.s
	var wake Alarm
	defer wake.Stop()
	for a.Op == clients.Send {
		if !wake.SleepUntil(ctx, s.Origin.Add(a.At)) {
			return
		}
		if s.BeforeSend != nil {
			s.BeforeSend()
		}
		sh.InFlight(1)
		r := k.call(ctx, cc, a, sh)
		sh.InFlight(-1)
		if s.cut(ctx, time.Now()) {
			return // the run ended mid-call: not an outcome of the target
		}
		r.Lag = max(0, r.Sent-a.At)
		a = c.Result(r)
	}
}

// call makes attempt a (for a grpc-go cohort, the whole logical request)
// and returns what became of it.
func (k *caller) call(ctx context.Context, cc *grpc.ClientConn, a clients.Action, sh *results.Shard) clients.Reply {
	s := k.s
	cs := &callState{shard: sh, origin: s.Origin, want: a.At, run: ctx}
	cctx := context.WithValue(ctx, callKey{}, cs)
	if t := s.Strategy.Timeout; t > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(cctx, t)
		defer cancel()
	}
	if !k.grpcGo {
		cctx = grpcraw.WithAttempt(cctx, a.Attempt)
	}
	var trailer metadata.MD
	sent := time.Now()
	err := errNoChannel
	if cc != nil {
		var out []byte
		err = cc.Invoke(cctx, k.method, []byte{}, &out, grpc.Trailer(&trailer))
	}
	end := time.Now()
	if first := cs.firstSent.Load(); first != 0 {
		sent = time.Unix(0, first)
	}
	r := clients.Reply{Sent: sent.Sub(s.Origin), Latency: end.Sub(sent)}
	r.Outcome, r.Status = outcome(err, cs.left.Load(), cs.answered.Load())
	if v := trailer.Get(grpcwire.Pushback); len(v) > 0 {
		if wait, stop := grpcwire.ParsePushback(v[0]); !stop {
			r.RetryAfter = wait
		}
	}
	return r
}

// outcome classifies a call's status: a status the server sent by its
// code, as clients.GRPCOutcome reads it for both engines (RESOURCE_EXHAUSTED
// a 429, UNAVAILABLE and the other server failures 5xx, the caller's
// mistakes 4xx, DEADLINE_EXCEEDED a timeout), with the HTTP status that
// stands for it; but an UNAVAILABLE the server never answered is a reset
// when the call had left the client (its headers were written on a
// connection: the connection went under it) and refused when it had not
// (the channel could not connect), and a failure that is no server's
// (a code the server did not send) an error.
func outcome(err error, left, answered bool) (results.Outcome, int) {
	if err == errNoChannel {
		return results.Error, 0
	}
	c := status.Code(err)
	o, st := clients.GRPCOutcome(c)
	switch {
	case c == codes.Unavailable && !left:
		return results.Refused, 0
	case c == codes.Unavailable && !answered:
		return results.Reset, 0
	case o == results.HTTP5xx && !answered:
		return results.Error, 0
	}
	return o, st
}

// callKey keys a call's state in its context.
type callKey struct{}

// callState is one call's, seen by the stats handler: whether the server
// answered any of its attempts (its trailer arrived), the first attempt's
// send time, and for a grpc-go cohort its attempts so far.
type callState struct {
	shard     *results.Shard
	run       context.Context // the run's: an attempt it cut is not recorded
	origin    time.Time
	want      time.Duration // when the client meant to send
	left      atomic.Bool
	answered  atomic.Bool
	firstSent atomic.Int64 // Unix ns; 0 before the first attempt
	n         atomic.Int32
}

// attemptKey keys an attempt's state in its context.
type attemptKey struct{}

// attemptState is one attempt of a call.
type attemptState struct {
	call     *callState
	number   int
	begin    time.Time
	left     bool
	answered bool
	reply    bool // a response message arrived
}

// attempts is the channels' stats handler: it sees every attempt of every
// call, grpc-go's retries included, from stats.Begin to stats.End.
type attempts struct{ s *GRPCSwarm }

var _ stats.Handler = (*attempts)(nil)

func (h *attempts) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	cs, _ := ctx.Value(callKey{}).(*callState)
	if cs == nil {
		return ctx
	}
	return context.WithValue(ctx, attemptKey{}, &attemptState{call: cs})
}

func (h *attempts) HandleRPC(ctx context.Context, st stats.RPCStats) {
	at, _ := ctx.Value(attemptKey{}).(*attemptState)
	if at == nil {
		return
	}
	cs := at.call
	switch e := st.(type) {
	case *stats.Begin:
		at.begin = e.BeginTime
		if e.IsTransparentRetryAttempt {
			// It never reached the server (gRFC A6's transparent retry):
			// the target does not count it, and neither does the swarm.
			at.number = -1
			return
		}
		at.number = int(cs.n.Add(1))
		cs.firstSent.CompareAndSwap(0, e.BeginTime.UnixNano())
	case *stats.OutHeader:
		at.left = true
		cs.left.Store(true)
	case *stats.InPayload:
		at.reply = true
	case *stats.InHeader, *stats.InTrailer:
		at.answered = true
		cs.answered.Store(true)
	case *stats.End:
		if !h.s.grpcGoCohort() || at.number <= 0 || h.s.cut(cs.run, e.EndTime) {
			return // the run ended mid-attempt: not an outcome of the target
		}
		o, code := AttemptOutcome(e.Error, at.left, at.answered, at.reply)
		sent := at.begin.Sub(cs.origin)
		var lag time.Duration
		if at.number == 1 {
			lag = max(0, sent-cs.want)
		}
		cs.shard.Attempt(results.Attempt{Sent: sent, Latency: e.EndTime.Sub(at.begin), Number: at.number, Outcome: o, Lag: lag, Status: code})
	}
}

// cut reports whether a call or attempt that ended at end was cut by the
// run's end: its context ended, or it ended at the run's deadline or
// later. The second catches a call whose deadline is the run's: the
// server's own timer, set from the grpc-timeout header, may answer
// DEADLINE_EXCEEDED before the client's context sees its deadline.
func (s *GRPCSwarm) cut(run context.Context, end time.Time) bool {
	return run.Err() != nil || !end.Before(s.Origin.Add(s.Duration))
}

func (s *GRPCSwarm) grpcGoCohort() bool { return s.Strategy.GRPC != nil }

func (h *attempts) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (h *attempts) HandleConn(context.Context, stats.ConnStats)                       {}

// runOpen starts one client per Poisson arrival, all on one channel.
func (s *GRPCSwarm) runOpen(ctx context.Context, k *clients.Cohort, wg *sync.WaitGroup, cl *caller, cc *grpc.ClientConn) {
	Arrivals(ctx, s.Workload, s.Seed, s.Part, s.Origin, 0, s.Duration, func(id int, at time.Duration) {
		sh := s.shard(id)
		c := k.NewClient(id, s.Workload, s.Duration, seeds.Stream(s.Seed, seeds.Client(id)), s.sink(sh))
		first := c.BeginAt(at)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.recoverPanic()
			cl.drive(ctx, c, first, cc, sh)
		}()
	})
}
