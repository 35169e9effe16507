package libraries

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/herdbench/herdbench/herdtest"
)

// BackoffV4 is cenkalti/backoff v4 as its README shows it:
// backoff.Retry(operation, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
// with NewExponentialBackOff's defaults (500 ms, multiplier 1.5,
// randomization ±50%, intervals up to 60 s, MaxElapsedTime 15 min), a
// fresh one per request (it is stateful). The operation is one POST with
// the attempt timeout; an answer other than a 5xx or a 429 is
// backoff.Permanent.
func BackoffV4(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		hc := withTimeout(c.HTTP, timeout)
		return func(ctx context.Context) error {
			op := func() error {
				err := post(ctx, hc, c.URL+"orders")
				if errors.Is(err, errPermanent) {
					return backoff.Permanent(err)
				}
				return err
			}
			return backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx))
		}
	}
}
