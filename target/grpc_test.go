package target

import (
	"context"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/grpcraw"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target/model"
)

// grpcTarget is a gRPC target on an in-memory network and one channel to
// it, for tests in a synctest bubble.
func grpcTarget(t *testing.T, cfg model.Config, faults []chaos.Timed, obs Observer, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	n := &memnet.Network{}
	cfg.Protocol = model.GRPC
	plan, err := chaos.NewPlan(faults, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(Options{Addr: "target:80", Listen: n.Listen, Config: cfg, Plan: plan, Observer: obs})
	if err != nil {
		t.Fatal(err)
	}
	opts = append(opts,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return n.Dial(ctx, "tcp", addr) }),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})))
	cc, err := grpc.NewClient("passthrough:///target:80", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cc.Close()
		_ = srv.Close()
	})
	return cc
}

// seen keeps what a target observed.
type seen struct {
	mu  sync.Mutex
	obs []Observation
}

func (s *seen) PlanStarted(time.Time) {}
func (s *seen) Observe(o Observation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.obs = append(s.obs, o)
}

// TestGRPCPushback: a pushback answers RESOURCE_EXHAUSTED with the
// grpc-retry-pushback-ms trailer; grpc-go's own retry waits exactly that
// long (the pushback replaces its backoff), and the target numbers the
// retry from grpc-previous-rpc-attempts.
func TestGRPCPushback(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &seen{}
		push := chaos.Timed{Name: "push", Kind: "pushback", For: time.Second, Fault: chaos.Pushback{Rate: 1, Status: 429, RetryAfter: 2 * time.Second}}
		sc := `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["RESOURCE_EXHAUSTED"]}}]}`
		cfg := model.Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}
		retrying := grpcTarget(t, cfg, []chaos.Timed{push}, obs, grpc.WithDefaultServiceConfig(sc))
		start := time.Now()
		var out []byte
		if err := retrying.Invoke(context.Background(), grpcwire.Method, []byte{}, &out); err != nil {
			t.Fatalf("the retried call: %v", err)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("the call took %v; want the pushback, 2s", d)
		}
		obs.mu.Lock()
		defer obs.mu.Unlock()
		if len(obs.obs) != 2 {
			t.Fatalf("%d calls observed; want 2", len(obs.obs))
		}
		for i, want := range []Answer{Answer429, AnswerOK} {
			o := obs.obs[i]
			n, ok := grpcraw.Attempt(metadata.MD{grpcwire.PreviousAttempts: o.Request.Header.Values("Grpc-Previous-Rpc-Attempts")})
			if o.Answer != want || !ok || n != i+1 || o.Request.URL.Path != grpcwire.Method {
				t.Errorf("call %d: %v, attempt %d (%v), method %q; want %v, attempt %d", i, o.Answer, n, ok, o.Request.URL.Path, want, i+1)
			}
		}
	})
}

// TestGRPCPushbackTrailer: the trailer and status a client sees.
func TestGRPCPushbackTrailer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		push := chaos.Timed{Name: "push", Kind: "pushback", For: time.Second, Fault: chaos.Pushback{Rate: 1, Status: 503, RetryAfter: 1500 * time.Millisecond}}
		cfg := model.Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}
		cc := grpcTarget(t, cfg, []chaos.Timed{push}, nil, grpc.WithDisableRetry())
		var tr metadata.MD
		var out []byte
		err := cc.Invoke(context.Background(), "/pkg.Service/Any", []byte{}, &out, grpc.Trailer(&tr))
		if status.Code(err) != codes.Unavailable || len(tr.Get(grpcwire.Pushback)) != 1 || tr.Get(grpcwire.Pushback)[0] != "1500" {
			t.Errorf("got %v, trailer %v; want UNAVAILABLE with %s: 1500", err, tr, grpcwire.Pushback)
		}
	})
}

// TestGRPCTargetSendsPushbackMSNotRetryAfter: the real gRPC target once
// ignored a fault's pushback_ms and sent its retry_after as the pushback
// (one gRPC scenario: 12 attempts done at 0.50 s in the simulator, 8 at
// 2.01 s on sockets). The trailer is the fault's pushback_ms, its stop
// form "-1", and retry_after only when it has none, as the simulator reads
// the same answer.
func TestGRPCTargetSendsPushbackMSNotRetryAfter(t *testing.T) {
	for _, c := range []struct {
		pushback time.Duration
		want     string
	}{{250 * time.Millisecond, "250"}, {chaos.PushbackStop, "-1"}, {0, "2000"}} {
		synctest.Test(t, func(t *testing.T) {
			push := chaos.Timed{Name: "push", Kind: "pushback", For: time.Second, Fault: chaos.Pushback{Rate: 1, Status: 429, RetryAfter: 2 * time.Second, Pushback: c.pushback}}
			cfg := model.Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}
			cc := grpcTarget(t, cfg, []chaos.Timed{push}, nil, grpc.WithDisableRetry())
			var tr metadata.MD
			var out []byte
			err := cc.Invoke(context.Background(), "/pkg.Service/Any", []byte{}, &out, grpc.Trailer(&tr))
			if got := tr.Get(grpcwire.Pushback); status.Code(err) != codes.ResourceExhausted || len(got) != 1 || got[0] != c.want {
				t.Errorf("pushback_ms %v, retry_after 2s: %v, trailer %v; want RESOURCE_EXHAUSTED with %s: %s", c.pushback, err, tr, grpcwire.Pushback, c.want)
			}
		})
	}
}

// TestGRPCResetFailsEveryStream: a crash resets the connection, and every
// call in flight on the channel fails at the same instant.
func TestGRPCResetFailsEveryStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		crash := chaos.Timed{Name: "crash", Kind: "outage", At: 500 * time.Millisecond, For: time.Second, Fault: chaos.Outage{Mode: chaos.Reset}}
		cfg := model.Config{Concurrency: 8, Queue: 8, QueueTimeout: 5 * time.Second, ServiceTime: dist.Const(2 * time.Second)}
		cc := grpcTarget(t, cfg, []chaos.Timed{crash}, nil, grpc.WithDisableRetry())
		start := time.Now()
		var wg sync.WaitGroup
		ends := make([]time.Duration, 3)
		errs := make([]error, 3)
		for i := range ends {
			wg.Go(func() {
				var out []byte
				errs[i] = cc.Invoke(context.Background(), grpcwire.Method, []byte{}, &out)
				ends[i] = time.Since(start)
			})
		}
		wg.Wait()
		for i := range ends {
			if status.Code(errs[i]) != codes.Unavailable || ends[i] != 500*time.Millisecond {
				t.Errorf("call %d: %v at %v; want UNAVAILABLE at the crash, 500ms", i, errs[i], ends[i])
			}
		}
	})
}

// TestGRPCGoAway: told to go away, every connection gets a GOAWAY, the
// call in flight on it finishes and is answered OK, and the channel's next
// call, once the server listens again, goes on a new connection.
func TestGRPCGoAway(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		cfg := model.Config{Protocol: model.GRPC, Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Second)}
		srv, err := Listen(Options{Addr: "target:80", Listen: n.Listen, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var dials atomic.Int64
		cc, err := grpc.NewClient("passthrough:///target:80", grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDisableRetry(),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
				dials.Add(1)
				return n.Dial(ctx, "tcp", addr)
			}),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		start := time.Now()
		done := make(chan error)
		go func() {
			var out []byte
			done <- cc.Invoke(context.Background(), grpcwire.Method, []byte{}, &out)
		}()
		time.Sleep(500 * time.Millisecond)
		srv.goAwayGRPC()
		if err := <-done; err != nil || time.Since(start) != time.Second {
			t.Errorf("the call in flight: %v after %v; want OK after its 1s of service", err, time.Since(start))
		}
		synctest.Wait()
		if st := cc.GetState(); st == connectivity.Ready {
			t.Errorf("after the GOAWAY the channel is %v; want it off its old connection", st)
		}
		srv.reopen()
		var out []byte
		if err := cc.Invoke(context.Background(), grpcwire.Method, []byte{}, &out); err != nil || dials.Load() != 2 {
			t.Errorf("the next call: %v on connection %d; want OK on a second connection", err, dials.Load())
		}
	})
}

// TestGRPCGoAwayOutage: a goaway outage of the plan (HTTP/2's mode) is,
// over gRPC, the server's own GOAWAY: the call in flight when it begins
// is answered OK, a call during it finds the port closed (UNAVAILABLE),
// and once it ends the channel's next call goes on a new connection (the
// server that serves it is a new one: goAwayGRPC).
func TestGRPCGoAwayOutage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		plan, err := chaos.NewPlan([]chaos.Timed{{Name: "drain", Kind: "outage", At: 500 * time.Millisecond, For: time.Second, Fault: chaos.Outage{Mode: chaos.Goaway}}}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		cfg := model.Config{Protocol: model.GRPC, Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Second)}
		srv, err := Listen(Options{Addr: "target:80", Listen: n.Listen, Config: cfg, Plan: plan})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var dials atomic.Int64
		cc, err := grpc.NewClient("passthrough:///target:80", grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDisableRetry(),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
				dials.Add(1)
				return n.Dial(ctx, "tcp", addr)
			}),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		start := time.Now()
		var out []byte
		if err := cc.Invoke(context.Background(), grpcwire.Method, []byte{}, &out); err != nil || time.Since(start) != time.Second {
			t.Errorf("the call in flight at the goaway: %v after %v; want OK after its 1s of service", err, time.Since(start))
		}
		synctest.Wait()
		if err := cc.Invoke(context.Background(), grpcwire.Method, []byte{}, &out); status.Code(err) != codes.Unavailable {
			t.Errorf("a call during the goaway: %v; want UNAVAILABLE (the port closed)", err)
		}
		time.Sleep(time.Until(start.Add(1600 * time.Millisecond)))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = cc.Invoke(ctx, grpcwire.Method, []byte{}, &out, grpc.WaitForReady(true)) // past the channel's reconnect backoff
		if err != nil || dials.Load() < 3 {
			t.Errorf("a call after the goaway: %v on dial %d; want OK on a new connection (the first, the refused one, then a new one)", err, dials.Load())
		}
	})
}

// TestGRPCCodeOnTheWire: for an answer of every status class the model
// can be made to give (an error-rate of that status), a grpc-go client of
// the target sees the code the simulator decides a grpc-go cohort's retry
// by (clients.GRPCReplyCode of the reply the simulator makes of the
// answer: its status and results.FromStatus's outcome), and that code is
// the table's (grpcwire.Code), exactly.
func TestGRPCCodeOnTheWire(t *testing.T) {
	for _, c := range []struct {
		status int
		want   codes.Code
	}{
		{200, codes.OK}, {204, codes.OK}, {302, codes.Unknown}, {399, codes.Unknown},
		{400, codes.Internal}, {401, codes.Unauthenticated}, {403, codes.PermissionDenied}, {404, codes.Unimplemented},
		{408, codes.Unknown}, {409, codes.Aborted}, {418, codes.Unknown}, {429, codes.ResourceExhausted},
		{500, codes.Internal}, {501, codes.Unknown}, {502, codes.Unavailable}, {503, codes.Unavailable},
		{504, codes.Unavailable}, {505, codes.Unknown}, {599, codes.Unknown},
	} {
		t.Run(strconv.Itoa(c.status), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				errs := chaos.Timed{Name: "errors", Kind: "error-rate", For: time.Minute, Fault: chaos.ErrorRate{Rate: 1, Status: c.status}}
				cfg := model.Config{Concurrency: 1, Queue: 1, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}
				cc := grpcTarget(t, cfg, []chaos.Timed{errs}, nil, grpc.WithDisableRetry())
				var out []byte
				wire := status.Code(cc.Invoke(context.Background(), grpcwire.Method, []byte{}, &out))
				sim := clients.GRPCReplyCode(clients.Reply{Outcome: results.FromStatus(c.status), Status: c.status})
				if wire != sim || wire != c.want {
					t.Errorf("status %d: the target sends %s, the simulator decides by %s; want %s", c.status, wire, sim, c.want)
				}
			})
		})
	}
}
