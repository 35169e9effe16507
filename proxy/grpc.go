package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/herdbench/herdbench/internal/grpcraw"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// startGRPC starts a transparent gRPC proxy: a gRPC target.Server (any
// method, the raw codec) whose admitted calls are forwarded, message by
// message in both directions, on one channel to the upstream, with their
// metadata (grpc-previous-rpc-attempts among it), their deadline, and the
// upstream's header, trailer and status passed back. The channel never
// retries (grpc.WithDisableRetry): the callers' retries are what is
// measured.
func startGRPC(o Options, p *Proxy) (*Proxy, error) {
	if o.Retry != nil {
		return nil, errors.New("proxy: --retry retries HTTP requests; a gRPC proxy forwards each call once")
	}
	dial := o.DialGRPC
	if dial == nil {
		dial = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	}
	cc, err := grpc.NewClient("passthrough:///"+o.Upstream.Host,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDisableRetry(),
		grpc.WithUserAgent("herdbench-proxy"),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return dial(ctx, "tcp", addr) }),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})))
	if err != nil {
		return nil, fmt.Errorf("proxy: upstream %s: %w", o.Upstream.Host, err)
	}
	p.upstreamGRPC = cc
	p.limit = newInFlight(nil, o.MaxInFlight)
	srv, err := target.Listen(target.Options{
		Addr: o.Addr, Plan: o.Plan, RNG: o.RNG, Hold: o.Hold, Listen: o.Listen,
		Config:   model.Config{Concurrency: 1, Protocol: model.GRPC},
		NextGRPC: p.forwardGRPC,
		Limits:   o.limits(),
		Observer: o.Observer,
	})
	if err != nil {
		_ = cc.Close()
		return nil, fmt.Errorf("proxy: %w", err)
	}
	p.Server = srv
	return p, nil
}

// overloadedKey marks the proxy's own UNAVAILABLE, as X-Herdbench-Proxy
// marks the HTTP proxy's 503.
const overloadedKey = "x-herdbench-proxy"

// bidi is the stream every forwarded call is opened as: a unary call is
// one message each way on it.
var bidi = &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}

// forwardGRPC forwards one call upstream and its answer back, once it has
// a place among the calls forwarded at once (--max-in-flight, as the HTTP
// proxy's requests): a call past them and as many waiting is answered
// UNAVAILABLE at once, marked x-herdbench-proxy: overloaded in its header.
func (p *Proxy) forwardGRPC(method string, ss grpc.ServerStream) error {
	ok, refused := p.limit.acquire(ss.Context())
	if refused {
		_ = ss.SetHeader(metadata.Pairs(overloadedKey, "overloaded"))
		return status.Error(codes.Unavailable, p.limit.overloaded("calls"))
	}
	if !ok {
		return status.FromContextError(ss.Context().Err()).Err()
	}
	defer p.limit.release()
	ctx, cancel := context.WithCancel(ss.Context())
	defer cancel()
	md, _ := metadata.FromIncomingContext(ctx)
	out := metadata.MD{}
	for k, v := range md {
		switch k {
		case ":authority", "content-type", "user-agent", "te", "grpc-timeout", "grpc-encoding", "grpc-accept-encoding":
			continue // the channel writes its own; the deadline travels in ctx
		}
		out[k] = v
	}
	cs, err := p.upstreamGRPC.NewStream(metadata.NewOutgoingContext(ctx, out), bidi, method)
	if err != nil {
		p.upstreamErrors.Add(1)
		return err
	}
	go func() {
		for {
			var m []byte
			if err := ss.RecvMsg(&m); err != nil {
				if err == io.EOF {
					_ = cs.CloseSend()
				} else {
					cancel()
				}
				return
			}
			if cs.SendMsg(m) != nil {
				return // RecvMsg below sees the status
			}
		}
	}()
	if h, err := cs.Header(); err == nil && len(h) > 0 {
		_ = ss.SendHeader(h)
	}
	for {
		var m []byte
		err := cs.RecvMsg(&m)
		if err != nil {
			ss.SetTrailer(cs.Trailer())
			if err == io.EOF {
				return nil
			}
			return err
		}
		if err := ss.SendMsg(m); err != nil {
			return err
		}
	}
}
