package libraries

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/herdbench/herdbench/herdtest"
)

// BackoffV5 is cenkalti/backoff v5 as its README shows it:
// backoff.Retry(ctx, operation, backoff.WithBackOff(backoff.NewExponentialBackOff()))
// with the defaults (500 ms, multiplier 1.5, randomization ±50%, up to
// 60 s; Retry's MaxElapsedTime 15 min, no limit on tries). The operation
// is one POST with the attempt timeout; an answer other than a 5xx or a
// 429 is backoff.Permanent.
func BackoffV5(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		hc := withTimeout(c.HTTP, timeout)
		return func(ctx context.Context) error {
			op := func() (struct{}, error) {
				err := post(ctx, hc, c.URL+"orders")
				if errors.Is(err, errPermanent) {
					return struct{}{}, backoff.Permanent(err)
				}
				return struct{}{}, err
			}
			_, err := backoff.Retry(ctx, op, backoff.WithBackOff(backoff.NewExponentialBackOff()))
			return err
		}
	}
}
