package proxy

import (
	"context"
	"maps"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/internal/grpcraw"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/target"
)

// observed keeps what the proxy's recording would see.
type observed struct {
	mu  sync.Mutex
	obs []target.Observation
}

func (o *observed) PlanStarted(time.Time) {}
func (o *observed) Observe(ob target.Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.obs = append(o.obs, ob)
}

// TestGRPCProxy: the gRPC proxy answers an outage's calls itself
// (UNAVAILABLE), forwards the rest to a real gRPC server with their
// metadata (the client's grpc-previous-rpc-attempts) and passes back the
// upstream's message, header, trailer and status; grpc-go's own retry
// through it is numbered at the proxy.
func TestGRPCProxy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		// The upstream: a plain grpc-go server, greeting in the raw codec.
		var upMu sync.Mutex
		var upAttempts []string
		up := grpc.NewServer(grpc.ForceServerCodec(grpcraw.Codec{}), grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
			md, _ := metadata.FromIncomingContext(ss.Context())
			upMu.Lock()
			upAttempts = append(upAttempts, md.Get(grpcwire.PreviousAttempts)...)
			upMu.Unlock()
			var in []byte
			if err := ss.RecvMsg(&in); err != nil {
				return err
			}
			time.Sleep(5 * time.Millisecond) // the upstream's service time
			if string(in) == "fail" {
				return status.Error(codes.FailedPrecondition, "no")
			}
			ss.SetTrailer(metadata.Pairs("served-by", "upstream"))
			return ss.SendMsg(append([]byte("hello "), in...))
		}))
		uln, err := n.Listen("tcp", "upstream:50051")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = up.Serve(uln) }()
		defer up.Stop()

		outage := chaos.Timed{Name: "down", Kind: "outage", For: time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}
		plan, err := chaos.NewPlan([]chaos.Timed{outage}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		obs := &observed{}
		p, err := Start(Options{Addr: "proxy:8090", Upstream: &url.URL{Scheme: "http", Host: "upstream:50051"}, Plan: plan,
			Listen: n.Listen, DialGRPC: n.Dial, GRPC: true, Observer: obs})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = p.Close() }()

		sc := `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.4s", "maxBackoff": "0.4s", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`
		cc, err := grpc.NewClient("passthrough:///proxy:8090", grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return n.Dial(ctx, "tcp", addr) }),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})), grpc.WithDefaultServiceConfig(sc))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cc.Close() }()

		var out []byte
		var tr metadata.MD
		if err := cc.Invoke(context.Background(), "/helloworld.Greeter/SayHello", []byte("herd"), &out, grpc.Trailer(&tr)); err != nil {
			t.Fatalf("the call through the outage: %v", err)
		}
		if string(out) != "hello herd" || len(tr.Get("served-by")) != 1 {
			t.Errorf("answer %q, trailer %v; want the upstream's", out, tr)
		}
		if err := cc.Invoke(context.Background(), "/helloworld.Greeter/SayHello", []byte("fail"), &out); status.Code(err) != codes.FailedPrecondition {
			t.Errorf("the upstream's status came back as %v; want FailedPrecondition", err)
		}
		// The proxy counts its calls by the gRPC status its clients saw,
		// for its stop line (control.CodesText), not by HTTP's kinds.
		st := p.Status()
		if !st.GRPC || !st.Proxy {
			t.Errorf("status: gRPC %v, proxy %v; want both", st.GRPC, st.Proxy)
		}
		c := st.Codes
		if c[codes.OK] != 1 || c[codes.FailedPrecondition] != 1 || c[codes.Unavailable] < 2 || c[codes.OK]+c[codes.FailedPrecondition]+c[codes.Unavailable] != int64(len(obs.obs)) {
			t.Errorf("calls by code %v; want 1 OK, 1 FAILED_PRECONDITION and the outage's UNAVAILABLE (%d calls in all)", c, len(obs.obs))
		}
		obs.mu.Lock()
		defer obs.mu.Unlock()
		var answers []target.Answer
		var attempts []string
		for _, o := range obs.obs {
			answers = append(answers, o.Answer)
			attempts = append(attempts, o.Request.Header.Get("Grpc-Previous-Rpc-Attempts"))
		}
		// Attempts at 0 and 0.32–0.48 s fail in the outage, the third
		// (0.64–0.96 s) or the fourth gets through (each retry waits
		// 0.4 s × U(0.8, 1.2) in grpc-go, drawn from its own random
		// source), then the failing call.
		last := len(answers) - 1
		if len(answers) < 3 || answers[0] != target.Answer5xx || answers[last-1] != target.AnswerOK || answers[last] != target.Answer4xx {
			t.Errorf("answers %v; want 503s, then ok, then a 4xx", answers)
		}
		if obs.obs[0].Upstream != 0 || obs.obs[last-1].Upstream != 5*time.Millisecond {
			t.Errorf("upstream times %v and %v; want none for the proxy's own answer, the upstream's 5ms for a forwarded call", obs.obs[0].Upstream, obs.obs[last-1].Upstream)
		}
		if attempts[0] != "" || attempts[1] != "1" || attempts[last] != "" {
			t.Errorf("grpc-previous-rpc-attempts seen: %q", attempts)
		}
		upMu.Lock()
		defer upMu.Unlock()
		if len(upAttempts) != 1 || upAttempts[0] != attempts[last-1] {
			t.Errorf("the upstream saw grpc-previous-rpc-attempts %q; want the forwarded attempt's %q", upAttempts, attempts[last-1])
		}
	})
}

// TestGRPCProxyMaxInFlight: the gRPC proxy bounds the calls it forwards
// at once as the HTTP proxy bounds its requests (TestMaxInFlight): past
// MaxInFlight calls forwarded and as many waiting, a call is answered
// UNAVAILABLE at once, marked x-herdbench-proxy: overloaded and counted
// in Overloaded; the waiting ones are forwarded as places free up.
func TestGRPCProxyMaxInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		var hits atomic.Int64
		up := grpc.NewServer(grpc.ForceServerCodec(grpcraw.Codec{}), grpc.UnknownServiceHandler(func(_ any, ss grpc.ServerStream) error {
			hits.Add(1)
			var in []byte
			if err := ss.RecvMsg(&in); err != nil {
				return err
			}
			time.Sleep(time.Second)
			return ss.SendMsg([]byte("ok"))
		}))
		uln, err := n.Listen("tcp", "upstream:50051")
		if err != nil {
			t.Fatal(err)
		}
		go func() { _ = up.Serve(uln) }()
		defer up.Stop()
		p, err := Start(Options{Addr: "proxy:8090", Upstream: &url.URL{Scheme: "http", Host: "upstream:50051"},
			Listen: n.Listen, DialGRPC: n.Dial, GRPC: true, MaxInFlight: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = p.Close() }()
		cc, err := grpc.NewClient("passthrough:///proxy:8090", grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return n.Dial(ctx, "tcp", addr) }),
			grpc.WithDefaultCallOptions(grpc.ForceCodec(grpcraw.Codec{})), grpc.WithDisableRetry())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = cc.Close() }()
		cc.Connect()
		time.Sleep(time.Millisecond) // connected before the calls
		start := time.Now()
		type answer struct {
			code   codes.Code
			at     time.Duration
			header string
		}
		answers := make(chan answer, 5)
		for i := range 5 {
			go func() {
				time.Sleep(time.Duration(i) * time.Millisecond) // in this order
				var out []byte
				var h metadata.MD
				err := cc.Invoke(context.Background(), "/helloworld.Greeter/SayHello", []byte("herd"), &out, grpc.Header(&h))
				answers <- answer{status.Code(err), time.Since(start), strings.Join(h.Get("x-herdbench-proxy"), ",")}
			}()
		}
		got := map[answer]int{}
		for range 5 {
			got[<-answers]++
		}
		want := map[answer]int{
			{codes.Unavailable, 4 * time.Millisecond, "overloaded"}: 1,
			{codes.OK, time.Second, ""}:                             1,
			{codes.OK, time.Second + time.Millisecond, ""}:          1,
			{codes.OK, 2 * time.Second, ""}:                         1, // waited for the first place
			{codes.OK, 2*time.Second + time.Millisecond, ""}:        1,
		}
		if !maps.Equal(got, want) {
			t.Errorf("answers %v, want %v", got, want)
		}
		if p.Overloaded() != 1 || hits.Load() != 4 {
			t.Errorf("overloaded %d, upstream hits %d; want 1 and 4", p.Overloaded(), hits.Load())
		}
	})
}
