package libraries

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/herdbench/herdbench/herdtest"
)

// Library is one retry library, configured one way, as a cohort.
type Library struct {
	Name   string // the cohort's name in the figures
	Module string // the Go module and the version go.mod pins
	Config string // what is configured, in a few words
	// New returns the cohort's constructor, each attempt bounded by
	// timeout (for grpc-go, the RPC: its deadline covers every attempt).
	New func(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc
	// GRPC says the library calls a gRPC target: it runs the storms over
	// gRPC.
	GRPC bool
}

// All lists the libraries, in the order of the published table.
func All() []Library {
	return []Library{
		{"go-retryablehttp", "github.com/hashicorp/go-retryablehttp v0.7.8", "NewClient(): 1 s to 30 s, 4 retries, DefaultBackoff (no jitter)", RetryableHTTP, false},
		{"backoff-v4", "github.com/cenkalti/backoff/v4 v4.3.0", "Retry with NewExponentialBackOff(): 500 ms × 1.5^n ± 50%, up to 60 s, for 15 min", BackoffV4, false},
		{"backoff-v5", "github.com/cenkalti/backoff/v5 v5.0.3", "Retry(ctx, op, WithBackOff(NewExponentialBackOff())): the same, for 15 min", BackoffV5, false},
		{"aws-sdk-go-v2-standard", "github.com/aws/aws-sdk-go-v2 v1.48.0", "retry.NewStandard(): 3 attempts, U(0,1) × min(50 ms × 2^i, 20 s), 500-token quota, 14 a retry", AWSStandard, false},
		{"aws-sdk-go-v2-adaptive", "github.com/aws/aws-sdk-go-v2 v1.48.0", "retry.NewAdaptiveMode(): standard + a client-side rate limiter fed by throttling errors", AWSAdaptive, false},
		{"failsafe-default", "github.com/failsafe-go/failsafe-go v0.9.8", "failsafehttp.NewRetryPolicyBuilder(): 3 attempts, no delay", FailsafeDefault, false},
		{"failsafe-jitter", "github.com/failsafe-go/failsafe-go v0.9.8", "the same WithBackoff(1 s, 30 s).WithJitterFactor(0.1)", FailsafeJitter, false},
		{"retry-go", "github.com/avast/retry-go/v4 v4.7.0", "Do(...): 10 attempts, 100 ms × 2^n + U(0, 100 ms)", RetryGo, false},
		{"go-retry-fibonacci", "github.com/sethvargo/go-retry v0.3.0", "Fibonacci(ctx, 1 s, f), its README's: 1, 2, 3, 5, 8 s, ..., no jitter, until ctx ends", GoRetryFibonacci, false},
		{"grpc-go-example", "google.golang.org/grpc v1.84.0 (examples v0.0.0-20260825154716-030ee8becb20)", "examples/features/retry's service config: 4 attempts, 10 ms apart, on UNAVAILABLE", GRPCGoExample, true},
		{"grpc-go-a6", "google.golang.org/grpc v1.84.0", "gRFC A6's example policy (4 attempts, 0.1 s × 2^n to 1 s, ±20%) and retry throttling (10, 0.1), a channel per client: the grpc preset's design", GRPCGoA6, true},
	}
}

// withTimeout returns a copy of the client herdtest hands over whose every
// request (one attempt, for these libraries) times out after d.
func withTimeout(hc *http.Client, d time.Duration) *http.Client {
	c := *hc
	c.Timeout = d
	return &c
}

// statusError is a response a library's user treats as a failed attempt.
type statusError struct{ code int }

func (e statusError) Error() string { return fmt.Sprintf("HTTP %d", e.code) }

// errPermanent marks an answer that retrying cannot change (a 4xx but
// 429).
var errPermanent = errors.New("not retryable")

// post sends one attempt with hc and reads its answer: nil for a 2xx; a
// statusError for a 5xx or a 429 (retryable), wrapping errPermanent for
// any other status; the transport's error otherwise.
func post(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c >= 500 || c == http.StatusTooManyRequests:
		return statusError{c}
	default:
		return fmt.Errorf("%w: %w", errPermanent, statusError{c})
	}
}

// drain reads and closes a response a library returns.
func drain(resp *http.Response) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
