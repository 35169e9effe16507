package libraries

import (
	"context"
	"errors"
	"time"

	"github.com/herdbench/herdbench/herdtest"
	"github.com/sethvargo/go-retry"
)

// GoRetryFibonacci is sethvargo/go-retry as its README shows it,
// retry.Fibonacci(ctx, 1*time.Second, f): waits of 1, 2, 3, 5, 8 s, ...
// (each the sum of the two before), no jitter, no cap, retried until ctx
// ends. The function is one POST with the attempt timeout; a transport
// error, a 5xx or a 429 is marked retry.RetryableError (go-retry retries
// nothing else), any other answer returned as it is.
func GoRetryFibonacci(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		hc := withTimeout(c.HTTP, timeout)
		return func(ctx context.Context) error {
			return retry.Fibonacci(ctx, time.Second, func(ctx context.Context) error {
				err := post(ctx, hc, c.URL+"orders")
				if err == nil || errors.Is(err, errPermanent) {
					return err
				}
				return retry.RetryableError(err)
			})
		}
	}
}
