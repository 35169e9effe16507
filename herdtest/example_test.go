package herdtest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/herdbench/herdbench/herdtest"
)

// TestMyClientInTheOutage is how a team's test looks: its client code as a
// cohort, run in the built-in outage in virtual time, gated on the herd
// factor and the failures after the fault.
func TestMyClientInTheOutage(t *testing.T) {
	s := herdtest.Run(t, herdtest.Options{
		Scenario:   "outage", // a built-in, or a file of your own
		Clients:    100,
		Thresholds: []string{"herd_factor < 8", "failed_after_fault <= 20"},
	}, herdtest.Cohort{
		Name: "my-client",
		New: func(c *herdtest.Client) herdtest.RequestFunc {
			// Build your client once per herdtest client, on c.HTTP (or
			// c.Transport): every round trip through it is one attempt.
			return func(ctx context.Context) error {
				var err error
				for attempt := range 5 {
					if attempt > 0 {
						ceiling := 100 * time.Millisecond << attempt
						time.Sleep(time.Duration(c.Rand.Int64N(int64(ceiling)))) // full jitter
					}
					req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL+"items/42", nil)
					var resp *http.Response
					if resp, err = c.HTTP.Do(req); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode < 500 {
							return nil
						}
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				return err
			}
		},
	})
	r := s.Runs[0] // the figures of summary.json, to assert on as you like
	t.Logf("herd factor %.1f, failed after the fault %d, amplification %.2f", r.HerdFactor, r.FailedAfterFault, r.Amplification)
}

// retryPolicy is the service config of grpc-go's examples/features/retry
// client, as it ships: 4 attempts 10 ms apart on UNAVAILABLE.
const retryPolicy = `{"methodConfig": [{"name": [{"service": "grpc.health.v1.Health"}],
  "retryPolicy": {"MaxAttempts": 4, "InitialBackoff": ".01s", "MaxBackoff": ".01s",
    "BackoffMultiplier": 1.0, "RetryableStatusCodes": ["UNAVAILABLE"]}}]}`

// healthChecker is a cohort over gRPC: each client's channel is made by
// DialGRPC with the team's own service config (grpc-go's retries decide),
// and each request is one RPC through a generated client on it.
var healthChecker = herdtest.Cohort{
	Name: "health-checker",
	New: func(c *herdtest.Client) herdtest.RequestFunc {
		cc, err := c.DialGRPC(grpc.WithDefaultServiceConfig(retryPolicy))
		if err != nil {
			panic(err) // a service config grpc-go refuses: the cohort's failure, with its stack
		}
		hc := healthpb.NewHealthClient(cc) // or pb.NewYourServiceClient(c.GRPC)
		return func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, 3*time.Second) // the RPC's deadline, every attempt within it
			defer cancel()
			_, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
			return err
		}
	},
	Thresholds: []string{"herd_factor < 20"},
}

// A cohort over gRPC: the grpc-outage built-in's storm on a fleet of
// grpc-go clients with the team's retry policy. herdtest.Run(t, o,
// healthChecker) runs it (TestHealthCheckerInTheGRPCOutage below); in
// virtual time grpc-go's timers, resolver, balancer and retries run on the
// bubble's clock over the in-memory network.
func ExampleClient_DialGRPC() {
	o := herdtest.Options{Scenario: "grpc-outage", Clients: 100}
	// In a test: s := herdtest.Run(t, o, healthChecker)
	fmt.Println(o.Scenario, healthChecker.Name, healthChecker.Thresholds)
	// Output: grpc-outage health-checker [herd_factor < 20]
}

func TestHealthCheckerInTheGRPCOutage(t *testing.T) {
	s := herdtest.Run(t, herdtest.Options{Scenario: "grpc-outage", Clients: 100}, healthChecker)
	r := s.Runs[0]
	t.Logf("herd factor %.1f, amplification %.2f, success %.1f%%", r.HerdFactor, r.Amplification, 100**r.SuccessRatio)
	if r.Amplification <= 1 {
		t.Errorf("amplification %.2f: the example policy retries the crash's UNAVAILABLE", r.Amplification)
	}
}
