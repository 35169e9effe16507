package herdtest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

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
