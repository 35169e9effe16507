package herdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/stats"

	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/results"
)

// ErrNotGRPC is DialGRPC's error when the scenario's target speaks HTTP.
var ErrNotGRPC = errors.New("herdtest: the scenario's target speaks HTTP, not gRPC: set target.protocol: grpc (Options.Set: \"target.protocol=grpc\") or use c.HTTP")

// DialGRPC makes a channel to the target with your dial options (a
// service config with grpc.WithDefaultServiceConfig, interceptors, a user
// agent, keepalive) and herdtest's, which come after yours and so win:
// the connection to the target (the in-memory network in virtual time,
// loopback in real time; a dialer of your own is replaced), plaintext
// credentials (the target speaks gRPC without TLS), and the stats handler
// that records every attempt the channel sends, grpc-go's retries
// included. A channel made before the run's t = 0 (in New) is connected
// before it, as a service's channels are before its traffic. herdtest
// closes every channel it made at the run's end.
func (c *Client) DialGRPC(opts ...grpc.DialOption) (*grpc.ClientConn, error) {
	if c.grpc == nil {
		return nil, ErrNotGRPC
	}
	return c.grpc.dial(opts)
}

// grpcClient is one client's side of a gRPC target: how its channels
// reach the target, and the channels it made.
type grpcClient struct {
	cl     *client
	addr   string // host:port
	dialer func(ctx context.Context, network, addr string) (net.Conn, error)

	mu    sync.Mutex
	conns []*grpc.ClientConn
}

func (g *grpcClient) dial(user []grpc.DialOption) (*grpc.ClientConn, error) {
	cl := g.cl
	opts := append(append([]grpc.DialOption(nil), user...),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
			return g.dialer(ctx, "tcp", addr)
		}),
		grpc.WithStatsHandler(&grpcAttempts{cl: cl}),
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			if !time.Now().Before(cl.end) {
				return errOver
			}
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			if !time.Now().Before(cl.end) {
				return nil, errOver
			}
			return streamer(ctx, desc, cc, method, opts...)
		}),
	)
	cc, err := grpc.NewClient("passthrough:///"+g.addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("herdtest: making the gRPC channel: %w", err)
	}
	g.mu.Lock()
	g.conns = append(g.conns, cc)
	g.mu.Unlock()
	return cc, nil
}

// channels returns the channels made so far.
func (g *grpcClient) channels() []*grpc.ClientConn {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*grpc.ClientConn(nil), g.conns...)
}

// toWarm returns the channels to connect before t = 0: those New made
// with DialGRPC, or else the ready one, c.GRPC (made first), when New made
// none; an unused c.GRPC stays idle, without a connection.
func (g *grpcClient) toWarm() []*grpc.ClientConn {
	chans := g.channels()
	if len(chans) > 1 {
		return chans[1:]
	}
	return chans
}

// close closes every channel the client made.
func (g *grpcClient) close() {
	for _, cc := range g.channels() {
		_ = cc.Close()
	}
}

// grpcAttempts is the stats handler of a client's channels: every attempt
// grpc-go sends (a call's first, and each of its retries) is one attempt
// of the logical request whose context the call carries, numbered within
// it as an HTTP round trip is. A transparent retry (an attempt that never
// reached the server) is not: the target never saw it.
type grpcAttempts struct{ cl *client }

var _ stats.Handler = (*grpcAttempts)(nil)

type grpcAttemptKey struct{}

// grpcAttempt is one attempt, as its stats events show it.
type grpcAttempt struct {
	req                     *request
	number                  int // 0 before Begin, -1 for a transparent retry
	sent                    time.Duration
	left, answered, replied atomic.Bool
}

func (h *grpcAttempts) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return context.WithValue(ctx, grpcAttemptKey{}, &grpcAttempt{req: h.cl.requestOf(ctx)})
}

func (h *grpcAttempts) HandleRPC(ctx context.Context, st stats.RPCStats) {
	at, _ := ctx.Value(grpcAttemptKey{}).(*grpcAttempt)
	if at == nil {
		return
	}
	cl := h.cl
	switch e := st.(type) {
	case *stats.Begin:
		if e.IsTransparentRetryAttempt {
			at.number = -1
			return
		}
		cl.tally.trips.Add(1)
		at.number = int(at.req.attempt.Add(1))
		at.sent = cl.now()
	case *stats.OutHeader:
		at.left.Store(true)
	case *stats.InPayload:
		at.replied.Store(true)
	case *stats.InHeader, *stats.InTrailer:
		at.answered.Store(true)
	case *stats.End:
		if at.number <= 0 {
			return
		}
		done := cl.now()
		if done >= cl.c.Duration {
			return // cut by the run's end: not recorded
		}
		o, code := swarm.AttemptOutcome(e.Error, at.left.Load(), at.answered.Load(), at.replied.Load())
		at.req.shard.Attempt(results.Attempt{Sent: at.sent, Latency: done - at.sent, Number: at.number, Outcome: o, Status: code})
	}
}

func (h *grpcAttempts) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (h *grpcAttempts) HandleConn(context.Context, stats.ConnStats)                       {}
