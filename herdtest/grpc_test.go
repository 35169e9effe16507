package herdtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// a6Policy is gRFC A6's example retry policy, the grpc-outage built-in's
// grpc-go cohort's.
const a6Policy = `{"methodConfig": [{"name": [{}],
  "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s",
    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`

// grpcGo is a cohort whose every request is one RPC on a channel of its
// own with serviceConfig: grpc-go's retries decide, within deadline.
func grpcGo(serviceConfig string, deadline time.Duration) func(c *Client) RequestFunc {
	return func(c *Client) RequestFunc {
		cc, err := c.DialGRPC(grpc.WithDefaultServiceConfig(serviceConfig))
		if err != nil {
			panic(err)
		}
		return func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, deadline)
			defer cancel()
			return cc.Invoke(ctx, c.Method, &emptypb.Empty{}, &emptypb.Empty{})
		}
	}
}

// swarmGRPCGo runs the grpc-outage built-in's grpc-go cohort with
// herdbench's own swarm (clients/swarm over gRPC, the scenario's client: grpc-go) in a
// synctest bubble over the in-memory network, as herdtest runs a cohort.
func swarmGRPCGo(t *testing.T, clients int) results.Run {
	t.Helper()
	op, err := scenarios.Open("grpc-outage", scenarios.Overrides{Strategies: []string{"grpc-go"},
		Set: []scenarios.Axis{{Path: "workload.clients", Values: []string{fmt.Sprint(clients)}, Origin: "test"}}})
	if err != nil {
		t.Fatal(err)
	}
	var out results.Run
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		r, err := engine.Start(context.Background(), op.Plans[0], engine.Options{Version: "test", Network: engine.Network{Listen: n.Listen, Dial: n.Dial}})
		if err != nil {
			t.Fatal(err)
		}
		out = r.Wait().Summary.Runs[0]
	})
	return out
}

// A herdtest cohort over gRPC is grpc-go in the storm: the same service
// config as the grpc-outage built-in's grpc-go cohort, called by user code
// on a channel from DialGRPC, gives the figures herdbench's own gRPC swarm
// gives that cohort (both real grpc-go in a bubble; the seeds of the
// target's model are the same, grpc-go's jitter is its own), its retries
// counted as attempts; and user code on the ready c.GRPC with a generated
// client works too.
func TestGRPCCohortIsGRPCGoInTheStorm(t *testing.T) {
	began := time.Now()
	s := Run(t, Options{Scenario: "grpc-outage", Clients: 100},
		Cohort{Name: "grpc-go", New: grpcGo(a6Policy, 3*time.Second)},
		Cohort{Name: "health", New: func(c *Client) RequestFunc {
			hc := healthpb.NewHealthClient(c.GRPC) // grpc-go's defaults: no retry policy
			return func(ctx context.Context) error {
				ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
				defer cancel()
				_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
				return err
			}
		}})
	wall := time.Since(began)
	runs := byName(s)
	ours, health := runs["grpc-go"], runs["health"]
	swarm := swarmGRPCGo(t, 100)
	t.Logf("wall %s; herdtest grpc-go: herd %.2f, amplification %.3f, success %.3f, attempts %d, outcomes %v; swarm: herd %.2f, amplification %.3f, success %.3f; health: amplification %.3f, outcomes %v",
		wall.Round(time.Millisecond), ours.HerdFactor, ours.Amplification, *ours.SuccessRatio, ours.Attempts, ours.Outcomes,
		swarm.HerdFactor, swarm.Amplification, *swarm.SuccessRatio, health.Amplification, health.Outcomes)
	if ours.Requests < 500 || ours.Outcomes["ok"] == 0 || ours.Outcomes["reset"] == 0 || ours.Outcomes["refused"] == 0 {
		t.Errorf("herdtest's grpc-go cohort: %d requests, outcomes %v: want hundreds, some answered, the stall's held calls reset by the crash, calls refused while the port is closed", ours.Requests, ours.Outcomes)
	}
	if math.Abs(ours.Amplification-swarm.Amplification) > 0.05*swarm.Amplification {
		t.Errorf("amplification: herdtest %.3f, the swarm %.3f: grpc-go's retries are not counted alike (band 5%%)", ours.Amplification, swarm.Amplification)
	}
	if math.Abs(ours.HerdFactor-swarm.HerdFactor) > 0.25*swarm.HerdFactor {
		t.Errorf("herd factor: herdtest %.2f, the swarm %.2f (band 25%%)", ours.HerdFactor, swarm.HerdFactor)
	}
	if d := *ours.SuccessRatio - *swarm.SuccessRatio; d > 0.03 || d < -0.03 {
		t.Errorf("success: herdtest %.3f, the swarm %.3f (band 3 points)", *ours.SuccessRatio, *swarm.SuccessRatio)
	}
	if ours.Amplification < 1.2 {
		t.Errorf("amplification %.3f: grpc-go's retries after the crash are not counted", ours.Amplification)
	}
	// Without a retry policy grpc-go retries only transparently (attempts
	// that never reached the server, not counted): one attempt a request
	// (a request the run's end cut, counted but its attempt not, may
	// leave it at 0.999).
	if math.Abs(health.Amplification-1) > 0.002 || health.Outcomes["ok"] == 0 {
		t.Errorf("c.GRPC without a retry policy: amplification %.3f, outcomes %v: want 1, and answers", health.Amplification, health.Outcomes)
	}
}

// The same cohort in real time, over loopback: the same API.
func TestGRPCCohortInRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3 s real-time run")
	}
	yaml := `name: small
duration: 3s
seed: 3
target:
  protocol: grpc
  concurrency: 8
  service_time: 2ms
chaos:
  - name: down
    kind: outage
    at: 1s
    for: 500ms
workload:
  clients: 20
  think: exponential(50ms)
`
	s := Run(t, Options{Scenario: "small.yaml", YAML: []byte(yaml), Mode: Real},
		Cohort{Name: "grpc-go", New: grpcGo(a6Policy, time.Second)})
	r := s.Runs[0]
	if r.Attempts == 0 || r.Succeeded == 0 || r.Outcomes["http_5xx"] == 0 || r.Amplification <= 1 {
		t.Errorf("a real run with an UNAVAILABLE outage: %+v", r)
	}
}

// Options.Set runs an HTTP scenario's storm over gRPC.
func TestSetRunsTheOutageOverGRPC(t *testing.T) {
	s := Run(t, Options{Scenario: "outage", Clients: 20, Duration: 8 * time.Second, Set: []string{"target.protocol=grpc"}},
		Cohort{Name: "grpc-go", New: grpcGo(a6Policy, 3*time.Second)})
	if r := s.Runs[0]; r.Attempts == 0 || r.Outcomes["ok"] == 0 {
		t.Errorf("the outage over gRPC: %+v", r)
	}
	if _, err := plan(Options{Scenario: "outage", Set: []string{"workload.clients=1,2"}}, []Cohort{{Name: "c", New: grpcGo(a6Policy, time.Second)}}); err == nil || !strings.Contains(err.Error(), "gives 2 values") {
		t.Errorf("a swept Set: %v", err)
	}
}

func TestDialGRPCAgainstAnHTTPTarget(t *testing.T) {
	if _, err := (&Client{}).DialGRPC(); !errors.Is(err, ErrNotGRPC) {
		t.Errorf("DialGRPC on an HTTP target: %v, want ErrNotGRPC", err)
	}
}

// What herdtest cannot see over gRPC is reported: calls on a channel of
// the code's own (it reaches the target here, over the Client's Dial,
// but without herdtest's stats no attempt is counted), and the HTTP
// client used against a gRPC target (nil: a panic, with a hint).
func TestGRPCCohortsWithoutHerdtestsChannelAreReported(t *testing.T) {
	msgs := runFailing(t, "TestHelperGRPCElsewhere")
	if !strings.Contains(msgs, "cohort own-channel: its") || !strings.Contains(msgs, "without one attempt on a channel herdtest made (c.GRPC, c.DialGRPC)") {
		t.Errorf("a channel of its own is not reported:\n%s", msgs)
	}
	if !strings.Contains(msgs, "cohort http: client ") || !strings.Contains(msgs, "the target speaks gRPC: c.URL, c.HTTP and c.Transport are empty") {
		t.Errorf("c.HTTP against a gRPC target is not reported with its hint:\n%s", msgs)
	}
	if strings.Contains(msgs, "cohort fine:") {
		t.Errorf("the cohort on DialGRPC's channel was reported:\n%s", msgs)
	}
}

func TestHelperGRPCElsewhere(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestGRPCCohortsWithoutHerdtestsChannelAreReported")
	}
	var closers []*grpc.ClientConn
	defer func() {
		for _, cc := range closers {
			cc.Close()
		}
	}()
	Run(t, Options{Scenario: "grpc-outage", Clients: 5, Duration: 8 * time.Second},
		Cohort{Name: "own-channel", New: func(c *Client) RequestFunc {
			cc, err := grpc.NewClient("passthrough:///"+c.GRPCTarget, grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) { return c.Dial(ctx, "tcp", addr) }))
			if err != nil {
				panic(err)
			}
			go func() { <-time.After(8 * time.Second); cc.Close() }() // inside the bubble: closed by its end
			return func(ctx context.Context) error {
				ctx, cancel := context.WithTimeout(ctx, time.Second)
				defer cancel()
				err := cc.Invoke(ctx, c.Method, &emptypb.Empty{}, &emptypb.Empty{})
				if status.Code(err) == codes.DeadlineExceeded {
					return nil
				}
				return err
			}
		}},
		Cohort{Name: "http", New: func(c *Client) RequestFunc {
			return func(ctx context.Context) error { _, err := c.HTTP.Get("/x"); return err }
		}},
		Cohort{Name: "fine", New: grpcGo(a6Policy, time.Second)})
}

// A channel made outside the test's bubble (a package's, TestMain's)
// runs its resolver, balancer and transports in goroutines outside it: the
// first call on it from inside makes grpc-go's resolver goroutine send on
// a channel of the bubble, which the Go runtime refuses at once with a
// fatal error naming grpc-go's code (it cannot be recovered, so herdtest
// cannot word it): a crash that says why, not a hang.
func TestGRPCChannelFromOutsideTheBubbleIsRefused(t *testing.T) {
	msgs := runFailing(t, "TestHelperGRPCOutside")
	if !strings.Contains(msgs, "synctest channel from outside bubble") || !strings.Contains(msgs, "google.golang.org/grpc") {
		t.Errorf("not refused clearly:\n%s", msgs)
	}
}

func TestHelperGRPCOutside(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestGRPCChannelFromOutsideTheBubbleIsRefused")
	}
	// Made here, outside Run's bubble; it dials a port nothing listens on.
	cc, err := grpc.NewClient("passthrough:///127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	Run(t, Options{Scenario: "grpc-outage", Clients: 2, Duration: 8 * time.Second, Stall: 2 * time.Second},
		Cohort{Name: "outside", New: func(c *Client) RequestFunc {
			return func(ctx context.Context) error {
				return cc.Invoke(ctx, c.Method, &emptypb.Empty{}, &emptypb.Empty{}, grpc.WaitForReady(true))
			}
		}})
}

// grpc-go's own timers follow the bubble's clock: a channel's idle timer
// (grpc.WithIdleTimeout) fires after 1 s of virtual time without a call,
// and its keepalive pings (grpc.WithKeepaliveParams) run beside it,
// without hanging the bubble or leaving a goroutine behind.
func TestGRPCGoTimersRunOnTheBubblesClock(t *testing.T) {
	yaml := []byte("name: quiet\nduration: 20s\nseed: 3\ntarget:\n  protocol: grpc\n  concurrency: 8\n  service_time: 2ms\nworkload:\n  clients: 4\n  think: exponential(100ms)\n")
	var idle, ready atomic.Int64
	began := time.Now()
	s := Run(t, Options{Scenario: "quiet.yaml", YAML: yaml},
		Cohort{Name: "idler", New: func(c *Client) RequestFunc {
			cc, err := c.DialGRPC(grpc.WithIdleTimeout(time.Second),
				grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: time.Second, PermitWithoutStream: true}))
			if err != nil {
				panic(err)
			}
			return func(ctx context.Context) error {
				if err := cc.Invoke(ctx, c.Method, &emptypb.Empty{}, &emptypb.Empty{}); err != nil {
					return err
				}
				if st := cc.GetState(); st == connectivity.Ready {
					ready.Add(1)
				}
				if err := sleep(ctx, 3*time.Second); err != nil {
					return err
				}
				if st := cc.GetState(); st == connectivity.Idle {
					idle.Add(1)
				}
				return nil
			}
		}})
	r := s.Runs[0]
	t.Logf("wall %s for 20 s; %d requests, ready after a call %d times, idle after 3 s quiet %d times", time.Since(began).Round(time.Millisecond), r.Requests, ready.Load(), idle.Load())
	if n := int64(r.Succeeded); n < 20 || idle.Load() < n || ready.Load() < n {
		t.Errorf("%d requests succeeded, the channel ready after a call %d times and idle after 3 s without one %d times: want every request to see both (grpc-go's idle timer on the bubble's clock)", r.Succeeded, ready.Load(), idle.Load())
	}
}
