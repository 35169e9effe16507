package libraries

import (
	"context"
	"net/http"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/herdbench/herdbench/herdtest"
)

// RetryableHTTP is hashicorp/go-retryablehttp as its README shows it,
// retryablehttp.NewClient() with its defaults (RetryWaitMin 1 s,
// RetryWaitMax 30 s, RetryMax 4, DefaultBackoff: 1 s × 2^n, no jitter;
// DefaultRetryPolicy: a connection error, a 5xx but 501, a 429). Set:
// HTTPClient, to the client herdtest hands over with the attempt timeout
// (the README's "retryClient.HTTPClient.Timeout"), and Logger nil (quiet).
func RetryableHTTP(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		rc := retryablehttp.NewClient()
		rc.Logger = nil
		rc.HTTPClient = withTimeout(c.HTTP, timeout)
		return func(ctx context.Context) error {
			req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, c.URL+"orders", nil)
			if err != nil {
				return err
			}
			resp, err := rc.Do(req)
			if err != nil {
				return err
			}
			return drain(resp)
		}
	}
}
