package libraries

import (
	"context"
	"net/http"
	"time"

	"github.com/failsafe-go/failsafe-go"
	"github.com/failsafe-go/failsafe-go/failsafehttp"
	"github.com/failsafe-go/failsafe-go/timeout"
	"github.com/herdbench/herdbench/herdtest"
)

// FailsafeDefault is failsafe-go's HTTP retry policy as its docs show it,
// failsafehttp.NewRetryPolicyBuilder().Build(), with its defaults: 3
// attempts, no delay between them (but a Retry-After), retrying a
// connection error, a 5xx but 501, a 429. It runs in a
// failsafehttp.NewRoundTripper over the transport herdtest hands over,
// with a timeout.New policy inside the retries for the attempt timeout
// (failsafe.With(retry, timeout): Retry(Timeout(round trip))).
func FailsafeDefault(d time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return failsafeCohort(d, failsafehttp.NewRetryPolicyBuilder().Build)
}

// FailsafeJitter is the same policy with the backoff and jitter failsafe-go's
// docs show: WithBackoff(time.Second, 30*time.Second) and
// WithJitterFactor(.1), 1 s × 2^n up to 30 s, ±10%.
func FailsafeJitter(d time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return failsafeCohort(d, func() failsafe.Policy[*http.Response] {
		return failsafehttp.NewRetryPolicyBuilder().
			WithBackoff(time.Second, 30*time.Second).
			WithJitterFactor(.1).
			Build()
	})
}

// failsafeCohort builds one client's round tripper with the policy of
// build (a retry policy is immutable and may be shared; each client
// builds its own all the same, as each process would).
func failsafeCohort[P failsafe.Policy[*http.Response]](d time.Duration, build func() P) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		rt := failsafehttp.NewRoundTripper(c.Transport, build(), timeout.New[*http.Response](d))
		hc := &http.Client{Transport: rt}
		return func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL+"orders", nil)
			if err != nil {
				return err
			}
			resp, err := hc.Do(req)
			if err != nil {
				return err
			}
			if err := drain(resp); err != nil {
				return err
			}
			if resp.StatusCode >= 300 {
				return statusError{resp.StatusCode} // retries exhausted: the last answer
			}
			return nil
		}
	}
}
