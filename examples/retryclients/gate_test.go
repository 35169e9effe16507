package main

// A team's pre-release check of its own client, as it would write one: a
// go-retryablehttp client configured as the team ships it, in the storm of
// herdbench's built-in outage (a stall, then a crash), gated on the herd
// factor and the failures after the fault. It runs in virtual time: the
// library's own sleeps follow the test's synctest clock, so 15 s of
// outage take about a second of wall time.

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/herdbench/herdbench/herdtest"
	"github.com/herdbench/herdbench/results"
)

// gate is the release gate: the retries must not come in waves, and must
// not knock the recovering service down again.
var gate = []string{"herd_factor < 8", "failed_after_fault <= 20"}

// newClient is the team's client: go-retryablehttp's defaults (1 s to
// 30 s waits, 4 retries), its HTTP client the one herdtest hands over, and
// the given backoff.
func newClient(backoff retryablehttp.Backoff) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		rc := retryablehttp.NewClient()
		rc.Logger = nil
		rc.HTTPClient = c.HTTP
		if backoff != nil {
			rc.Backoff = backoff
		}
		return func(ctx context.Context) error {
			req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, c.URL+"orders", nil)
			if err != nil {
				return err
			}
			resp, err := rc.Do(req)
			if err != nil {
				return err
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			return resp.Body.Close()
		}
	}
}

// fullJitter is go-retryablehttp's DefaultBackoff with full jitter: a
// uniform draw up to the wait it would have slept.
func fullJitter(rng *rand.Rand) retryablehttp.Backoff {
	return func(lo, hi time.Duration, attemptNum int, resp *http.Response) time.Duration {
		return time.Duration(rng.Int64N(int64(retryablehttp.DefaultBackoff(lo, hi, attemptNum, resp)) + 1))
	}
}

// TestOurClientSurvivesTheOutage is the gate a team runs in CI: its
// jittered client passes.
func TestOurClientSurvivesTheOutage(t *testing.T) {
	herdtest.Run(t, herdtest.Options{Scenario: "outage", Clients: 200, Thresholds: gate},
		herdtest.Cohort{Name: "retryablehttp-jitter", New: func(c *herdtest.Client) herdtest.RequestFunc {
			return newClient(fullJitter(c.Rand))(c)
		}})
}

// TestTheGateCatchesTheStampede shows that the gate bites: the same client
// with its jitter removed (the library's DefaultBackoff) fails both
// thresholds.
func TestTheGateCatchesTheStampede(t *testing.T) {
	s, err := herdtest.Measure(t, herdtest.Options{Scenario: "outage", Clients: 200, Thresholds: gate, Out: t.TempDir()},
		herdtest.Cohort{Name: "retryablehttp-default", New: newClient(nil)})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Runs[0]
	t.Logf("without jitter: herd factor %.1f, failed after fault %d, amplification %.2f", r.HerdFactor, r.FailedAfterFault, r.Amplification)
	if failed := results.ThresholdsFailed(s.Thresholds); failed != len(gate) {
		t.Errorf("%d of the gate's %d thresholds failed without jitter, want all: %+v", failed, len(gate), s.Thresholds)
	}
}
