package clients

import "time"

// Preset is a real-world retry design, named after its source, with the
// constants that source publishes (reference/retry-designs.md). A field
// left zero or empty is not part of the design: the scenario's own value,
// or herdbench's default, applies. A scenario may override any field of a
// preset, one at a time.
type Preset struct {
	Name   string
	Source string // where the constants come from
	// Backoff's zero Base, Cap or Multiplier are not part of the design.
	Backoff     *Backoff
	MaxAttempts int // 0: not part of the design
	// Budget and Throttle name a kind of Budgets and of Throttles, with the
	// published constants its registration gives; "" for none. None of the
	// designs has a state-machine breaker (Envoy's "circuit breakers" are
	// concurrency caps, reproduced by its budget).
	Budget   string
	Throttle string
	// RetryOn is the failures the design retries (clients.RetryOn.Add's
	// items); nil: every failure. RetryNonIdempotent says it retries a
	// POST or PATCH without an idempotency key, as designs that retry by
	// status alone do.
	RetryOn            []string
	RetryNonIdempotent bool
}

var presets = []Preset{
	{
		Name:        "grpc",
		Source:      "gRPC A6 client retries: its example retry policy (4 attempts, 0.1 s initial backoff, 1 s max, multiplier 2, jitter ±20%) and retry throttling (10 tokens, ratio 0.1)",
		Backoff:     &Backoff{Shape: GRPC, Base: 100 * time.Millisecond, Cap: time.Second, Multiplier: 2},
		MaxAttempts: 4,
		Budget:      "grpc",
		// A retry policy names the methods it applies to, whatever they do.
		RetryNonIdempotent: true,
	},
	{
		Name:        "envoy",
		Source:      "Envoy router: num_retries 1, backoff base 25 ms capped at 250 ms, retry budget 20% of active requests, at least 3",
		Backoff:     &Backoff{Shape: Envoy, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond, Multiplier: 2},
		MaxAttempts: 2,
		Budget:      "envoy",
		// retry_on: 5xx, which in Envoy's router also covers a reset, a
		// connect failure and a per-try timeout; Envoy retries any method.
		RetryOn:            []string{"5xx", "reset", "refused", "timeout"},
		RetryNonIdempotent: true,
	},
	{
		Name:   "aws-standard",
		Source: "AWS SDK standard retry mode as botocore (the Python SDK) publishes it, which the AWS SDK for Go v2 followed before v1.48 (aws-standard-v2 is its current design): 3 attempts, full jitter on min(2^(n-1) s, 20 s), retry quota 500 tokens, cost 5 (10 after a timeout), refund 1",
		// herdbench's v(n) = base * 2^n after n failures, so base 500 ms
		// gives botocore's 1 s ceiling before the first retry.
		Backoff:     &Backoff{Shape: Full, Base: 500 * time.Millisecond, Cap: 20 * time.Second, Multiplier: 2},
		MaxAttempts: 3,
		Budget:      "aws",
		// botocore's and smithy's transient statuses (500, 502, 503,
		// 504), throttling (429), connection errors and timeouts; every
		// operation is retried (idempotency tokens are filled in).
		RetryOn:            []string{"500", "502", "503", "504", "429", "reset", "refused", "timeout"},
		RetryNonIdempotent: true,
	},
	{
		Name:    "finagle",
		Source:  "Finagle RetryBudget defaults (ttl 10 s, 10 retries per second, 20% of requests) with jittered exponential backoff from 10 ms to 10 s (linkerd's default for Finagle retries)",
		Backoff: &Backoff{Shape: Full, Base: 5 * time.Millisecond, Cap: 10 * time.Second, Multiplier: 2},
		Budget:  "finagle",
		// linkerd's retryableIdempotent5XX classifier: a 5xx of an
		// idempotent method; Finagle requeues a request whose connection
		// failed before it was written (refused, reset).
		RetryOn: []string{"5xx", "refused", "reset"},
	},
	{
		Name:        "sre",
		Source:      "Google SRE book ch. 21-22: at most 3 attempts, randomized exponential backoff, per-client retry budget of 10% of requests, client-side adaptive throttling with K = 2 over 2 minutes",
		Backoff:     &Backoff{Shape: Full},
		MaxAttempts: 3,
		Budget:      "sre",
		Throttle:    "sre",
	},
	{
		Name:   "aws-standard-v2",
		Source: "AWS SDK for Go v2 v1.48.0, retry.NewStandard() (aws/retry/standard.go, jitter_backoff.go backoffDelay2026, ratelimit/token_rate_limit.go; its CHANGELOG: Retry Behavior 2.1 the default from v1.48.0): 3 attempts, U(0, 1) × min(50 ms × 2^i, 20 s) before retry i + 1, retry quota 500 tokens, cost 14 (timeouts too), a successful retry refunds its cost, a first-attempt success adds 1",
		// herdbench's v(n) = base * 2^n after n failures, so base 25 ms
		// gives the SDK's 50 ms ceiling before the first retry.
		Backoff:     &Backoff{Shape: Full, Base: 25 * time.Millisecond, Cap: 20 * time.Second, Multiplier: 2},
		MaxAttempts: 3,
		Budget:      "aws-v2",
		// aws/retry's DefaultRetryableHTTPStatusCodes (500, 502, 503,
		// 504), its throttle error codes (429), connection errors and
		// timeouts, for every operation.
		RetryOn:            []string{"500", "502", "503", "504", "429", "reset", "refused", "timeout"},
		RetryNonIdempotent: true,
	},
}

// PresetNames lists the presets' names.
func PresetNames() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}

// FindPreset returns the preset of that name.
func FindPreset(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}
