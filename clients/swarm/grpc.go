package swarm

import (
	"context"
	"errors"
	"net"
	"net/url"
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
)

// grpcTransport is a swarm's gRPC: channels of google.golang.org/grpc,
// Shared clients on each (a grpc-go cohort whose throttler is the
// cohort's: one channel for all), one for an open workload's arrivals,
// each dialled and connected before the run's t = 0.
type grpcTransport struct {
	s        *Swarm
	method   string
	grpcGo   bool // a grpc-go cohort: grpc-go retries, below each call
	chans    []*grpc.ClientConn
	per      int // clients to a channel
	handler  *attempts
	callOnce *clients.Strategy // what a grpc-go cohort's step function runs
}

// openGRPC dials the swarm's channels and connects them, until the run's
// t = 0 at the latest.
func (s *Swarm) openGRPC(ctx context.Context) *grpcTransport {
	t := &grpcTransport{s: s, method: s.Method, grpcGo: s.Strategy.GRPC != nil}
	t.handler = &attempts{t: t}
	if t.method == "" {
		t.method = grpcwire.Method
	}
	t.per = max(1, s.Shared)
	if b := s.Strategy.Budget; t.grpcGo && b != nil && b.Scope.Shared() {
		t.per = max(1, s.Part.Count(s.Workload.Clients)) // channel: cohort: grpc-go's throttler is the channel's
	}
	nch := (s.Part.Count(s.Workload.Clients) + t.per - 1) / t.per
	if s.Workload.Kind == clients.Open {
		nch = 1
	}
	t.chans = make([]*grpc.ClientConn, max(1, nch))
	for i := range t.chans {
		// A channel that cannot be made (the address, a service config)
		// stays nil: every attempt on it fails, and the run shows it.
		t.chans[i], _ = t.dial()
	}
	Warm(ctx, t.chans, s.Origin)
	t.callOnce = t.callStrategy()
	return t
}

// strategy is the strategy the step function runs: the cohort's own,
// or for a grpc-go cohort one attempt per logical request (grpc-go makes
// the retries, below the call).
func (t *grpcTransport) strategy() *clients.Strategy { return t.callOnce }

func (t *grpcTransport) callStrategy() *clients.Strategy {
	if !t.grpcGo {
		return t.s.Strategy
	}
	st := *t.s.Strategy
	g := *st.GRPC
	g.Retry = nil // each RPC once, within its deadline over all of grpc-go's attempts
	st.GRPC = &g
	st.MaxAttempts = 1
	st.Budget, st.Breaker, st.Throttle = nil, nil, nil
	return &st
}

// sink is where a client's records go: for a grpc-go cohort, its
// requests only (the stats handler records every attempt).
func (t *grpcTransport) sink(sh *results.Shard) results.Sink {
	if !t.grpcGo {
		return sh
	}
	return requestsOnly{sh}
}

// requestsOnly passes a client's requests and drops its attempts.
type requestsOnly struct{ sh *results.Shard }

func (r requestsOnly) Started(at time.Duration)  { r.sh.Started(at) }
func (r requestsOnly) Attempt(results.Attempt)   {}
func (r requestsOnly) Request(q results.Request) { r.sh.Request(q) }

func (t *grpcTransport) client(id int, _ *clients.Client) Sender {
	cc := t.chans[min(t.s.Part.Local(id)/t.per, len(t.chans)-1)]
	return &grpcSender{t: t, cc: cc, sh: t.s.shard(id)}
}

// warm does nothing: the channels were connected before any client began.
func (t *grpcTransport) warm(context.Context, Sender, time.Duration) {}

func (t *grpcTransport) arrival(id int, _ *clients.Client) Sender {
	return &grpcSender{t: t, cc: t.chans[0], sh: t.s.shard(id)}
}

func (t *grpcTransport) close() {
	for _, cc := range t.chans {
		if cc != nil {
			_ = cc.Close()
		}
	}
}

// address is the host:port of the swarm's URL.
func (t *grpcTransport) address() string {
	u := t.s.URL
	if strings.Contains(u, "://") {
		if p, err := url.Parse(u); err == nil {
			return p.Host
		}
	}
	return u
}

// dial makes one channel: herdbench's strategies with grpc-go's retries
// off, a grpc-go cohort with its service config; both with the stats
// handler that sees each attempt.
func (t *grpcTransport) dial() (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUserAgent("herdbench"),
		grpc.WithStatsHandler(t.handler),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})),
	}
	if dial := t.s.Dial; dial != nil {
		opts = append(opts, grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return dial(ctx, "tcp", addr)
		}))
	}
	if t.grpcGo {
		opts = append(opts, grpc.WithDefaultServiceConfig(t.s.Strategy.GRPC.JSON))
	} else {
		opts = append(opts, grpc.WithDisableRetry())
	}
	return grpc.NewClient("passthrough:///"+t.address(), opts...)
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

// grpcSender makes one client's calls on its channel.
type grpcSender struct {
	t  *grpcTransport
	cc *grpc.ClientConn // nil: the channel could not be made
	sh *results.Shard
}

// errNoChannel is every attempt's error on a channel that could not be made.
var errNoChannel = errors.New("swarm: the gRPC channel could not be made")

// Send makes attempt a (for a grpc-go cohort, the whole logical request).
// A call that ended at the run's end or after it is cut (grpcTransport.cut).
func (g *grpcSender) Send(ctx context.Context, a Attempt) (clients.Reply, *clients.Reply, bool) {
	r := g.call(ctx, a.Action)
	return r, nil, g.t.cut(ctx, time.Now())
}

// call makes attempt a (for a grpc-go cohort, the whole logical request)
// and returns what became of it.
func (g *grpcSender) call(ctx context.Context, a clients.Action) clients.Reply {
	s, cc := g.t.s, g.cc
	cs := &callState{shard: g.sh, origin: s.Origin, want: a.At, run: ctx}
	cctx := context.WithValue(ctx, callKey{}, cs)
	if t := s.Strategy.Timeout; t > 0 {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(cctx, t)
		defer cancel()
	}
	if !g.t.grpcGo {
		cctx = grpcraw.WithAttempt(cctx, a.Attempt)
	}
	var trailer metadata.MD
	sent := time.Now()
	err := errNoChannel
	if cc != nil {
		var out []byte
		err = cc.Invoke(cctx, g.t.method, []byte{}, &out, grpc.Trailer(&trailer))
	}
	end := time.Now()
	if first := cs.firstSent.Load(); first != 0 {
		sent = time.Unix(0, first)
	}
	r := clients.Reply{Sent: sent.Sub(s.Origin), Latency: end.Sub(sent)}
	r.Outcome, r.Status = outcome(err, cs.left.Load(), cs.answered.Load())
	if v := trailer.Get(grpcwire.Pushback); len(v) > 0 {
		r.RetryAfter = clients.GRPCPushbackStop // as the simulator hands a stop form
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
type attempts struct{ t *grpcTransport }

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
		if !h.t.grpcGo || at.number <= 0 || h.t.cut(cs.run, e.EndTime) {
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
func (t *grpcTransport) cut(run context.Context, end time.Time) bool {
	return run.Err() != nil || !end.Before(t.s.Slow.At(t.s.Origin, t.s.Duration))
}

func (h *attempts) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (h *attempts) HandleConn(context.Context, stats.ConnStats)                       {}
