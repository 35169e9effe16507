package libraries

import (
	"context"
	"errors"
	"time"

	"github.com/avast/retry-go/v4"
	"github.com/herdbench/herdbench/herdtest"
)

// RetryGo is avast/retry-go v4 as its README shows it,
// retry.Do(retryableFunc, retry.Context(ctx)), with its defaults (10
// attempts, Delay 100 ms, MaxJitter 100 ms, DelayType
// CombineDelay(BackOffDelay, RandomDelay): 100 ms × 2^n plus U(0, 100 ms);
// RetryIf IsRecoverable). The function is one POST with the attempt
// timeout; an answer other than a 5xx or a 429 is retry.Unrecoverable.
// retry.Context is what a user must add so a request stops with the run.
func RetryGo(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		hc := withTimeout(c.HTTP, timeout)
		return func(ctx context.Context) error {
			return retry.Do(func() error {
				err := post(ctx, hc, c.URL+"orders")
				if errors.Is(err, errPermanent) {
					return retry.Unrecoverable(err)
				}
				return err
			}, retry.Context(ctx))
		}
	}
}
