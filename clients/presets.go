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
	Backoff *Backoff
	// MaxAttempts is the attempts per request, first try included; 0: not
	// part of the design; Unlimited: no limit (the library retries until
	// the request's context ends).
	MaxAttempts int
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
	// RetryAfter says the design waits what a 429's or 503's Retry-After
	// asks instead of its backoff (retry_after: honor), uncapped.
	RetryAfter bool
}

// Unlimited is a Preset's MaxAttempts for a design with no limit on
// attempts.
const Unlimited = -1

// retryOnAnyFailure is what a library that leaves the decision to its
// user retries as its README shows: a transport error, a 5xx and a 429.
var retryOnAnyFailure = []string{"5xx", "429", "reset", "refused", "timeout", "error"}

var presets = []Preset{
	{
		Name:        "grpc",
		Source:      "gRFC A6 client retries: its example retry policy (4 attempts, 0.1 s initial backoff, 1 s max, multiplier 2, jitter ±20% since the 2024 revision, grpc/proposal#452) and retry throttling (10 tokens, ratio 0.1); the draw as grpc-go v1.84.0 stream.go csAttempt.shouldRetry makes it, min(0.1 s × 2^n, 1 s) × U(0.8, 1.2); held to a client: grpc-go cohort by engine's TestGRPCPresetAgreesWithGRPCGo",
		Backoff:     &Backoff{Shape: GRPC, Base: 100 * time.Millisecond, Cap: time.Second, Multiplier: 2},
		MaxAttempts: 4,
		Budget:      "grpc",
		// A retry policy names the methods it applies to, whatever they do.
		RetryNonIdempotent: true,
	},
	{
		Name:        "envoy",
		Source:      "Envoy router: num_retries 1 (api/envoy/config/route/v3/route_components.proto RetryPolicy, its default), backoff base 25 ms capped at 10 × base, 250 ms (source/common/router/retry_state_impl.cc: upstream.base_retry_backoff_ms 25, max_interval = base_interval * 10, at envoyproxy/envoy e78906c5), retry budget 20% of active requests, at least 3 (api/envoy/config/cluster/v3/circuit_breaker.proto RetryBudget: budget_percent \"Defaults to 20%\", min_retry_concurrency \"Defaults to 3\")",
		Backoff:     &Backoff{Shape: Envoy, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond, Multiplier: 2},
		MaxAttempts: 2,
		Budget:      "envoy",
		// retry_on: 5xx, which in Envoy's router also covers a reset, a
		// connect failure and a per-try timeout; Envoy retries any method.
		RetryOn:            []string{"5xx", "reset", "refused", "timeout"},
		RetryNonIdempotent: true,
	},
	{
		Name:   "botocore-standard",
		Source: "botocore's standard retry mode as it ships (botocore 1.43.67, botocore/retries/standard.py: DEFAULT_MAX_ATTEMPTS 3, ExponentialBackoff rand() × min(2^(attempt-1), _MAX_BACKOFF 20) s, _TRANSIENT_STATUS_CODES 500, 502, 503, 504; RetryQuotaChecker _RETRY_COST 5, _TIMEOUT_RETRY_REQUEST 10, _NO_RETRY_INCREMENT 1; quota.py INITIAL_CAPACITY 500), its 2026 retries (AWS_NEW_RETRIES_2026) off; the AWS SDK for Go v2 followed it before v1.48 (aws-sdk-go-v2-standard is its current design): 3 attempts, full jitter on min(2^(n-1) s, 20 s), retry quota 500 tokens, cost 5 (10 after a timeout), refund 1",
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
		Name:    "finagle-budget",
		Source:  "Finagle's retry budget, RetryBudget() (finagle 24.5.0, finagle-core service/RetryBudget.scala: DefaultTtl 10 s, DefaultMinRetriesPerSec 10, 20% of requests), with a backoff of herdbench's choosing, not Finagle's: full jitter from 10 ms to 10 s, the range of linkerd 1's retries example (linkerd/docs/retries.md). Finagle's own requeues wait 0 (service/Retries.scala Budget.emptyBackoffSchedule) and RetryPolicy.tries draws Backoff.decorrelatedJittered(5 ms, 200 ms), U(prev, 3·prev), which no herdbench shape draws",
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
		Name:   "aws-sdk-go-v2-standard",
		Source: "AWS SDK for Go v2 v1.48.0, retry.NewStandard() (aws/retry/standard.go, jitter_backoff.go backoffDelay2026, ratelimit/token_rate_limit.go; its CHANGELOG: Retry Behavior 2.1 the default from v1.48.0): 3 attempts, U(0, 1) × min(50 ms × 2^i, 20 s) before retry i + 1, retry quota 500 tokens, cost 14 (timeouts too), a successful retry refunds its cost, a first-attempt success adds 1; held to retry.NewStandard() and retry.NewAdaptiveMode() by libraries/ TestPresetsMatchTheirLibraries",
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
	{
		Name:   "go-retryablehttp",
		Source: "hashicorp/go-retryablehttp v0.7.8's retryablehttp.NewClient() (client.go: defaultRetryWaitMin 1 s, defaultRetryWaitMax 30 s, defaultRetryMax 4; DefaultBackoff min × 2^attemptNum capped at max, no jitter: every client that failed together retries together; a 429's or 503's Retry-After instead, uncapped; baseRetryPolicy: a connection error, a 429, a 5xx but 501): 5 attempts, 1, 2, 4, 8 s; held to the library by libraries/ TestPresetsMatchTheirLibraries",
		// herdbench's v(n) = base * 2^n after n failures, so base 500 ms
		// gives the library's 1 s before the first retry.
		Backoff:     &Backoff{Shape: Exponential, Base: 500 * time.Millisecond, Cap: 30 * time.Second, Multiplier: 2},
		MaxAttempts: 5,
		// A 5xx but 501 (which herdbench's targets never answer), a 429,
		// any transport error; the request's body is replayed, so a POST
		// too.
		RetryOn:            retryOnAnyFailure,
		RetryNonIdempotent: true,
		RetryAfter:         true,
	},
	cenkaltiPreset("cenkalti-backoff-v4", "cenkalti/backoff v4.3.0's backoff.Retry(op, backoff.WithContext(backoff.NewExponentialBackOff(), ctx)) (exponential.go: DefaultInitialInterval 500 ms, DefaultRandomizationFactor 0.5, DefaultMultiplier 1.5, DefaultMaxInterval 60 s, DefaultMaxElapsedTime 15 min in the backoff)"),
	cenkaltiPreset("cenkalti-backoff-v5", "cenkalti/backoff v5.0.3's backoff.Retry(ctx, op, backoff.WithBackOff(backoff.NewExponentialBackOff())) (exponential.go: the same defaults as v4's; retry.go: DefaultMaxElapsedTime 15 min, now in Retry, and no limit on tries; a RetryAfterError the operation returns is waited instead, which an operation must make itself)"),
	{
		Name:   "sethvargo-go-retry-fibonacci",
		Source: "sethvargo/go-retry v0.3.0's retry.Fibonacci(ctx, 1*time.Second, f), its README's example (backoff_fibonacci.go: each wait the sum of the two before, from 0 and base: 1, 2, 3, 5, 8, ... s, no jitter, no cap, no limit on retries but the context's end; retry.go: only an error wrapped in retry.RetryableError is retried, which the libraries' rule does for a transport error, a 5xx and a 429); held to the library by libraries/ TestPresetsMatchTheirLibraries",
		// No cap in the library (a wait overflows to the longest
		// duration): herdbench's is a day.
		Backoff:            &Backoff{Shape: Fibonacci, Base: time.Second, Cap: 24 * time.Hour},
		MaxAttempts:        Unlimited,
		RetryOn:            retryOnAnyFailure,
		RetryNonIdempotent: true,
	},
}

// cenkaltiPreset is cenkalti/backoff's ExponentialBackOff with its
// defaults, as source says the version calls it: a wait drawn uniformly
// from [0.5, 1.5] × 500 ms × 1.5^(n-1) before retry n, the 500 ms × 1.5^k
// capped at 60 s (exponential.go NextBackOff, incrementCurrentInterval,
// getRandomValueFromInterval), no limit on attempts. Its 15 minutes of
// MaxElapsedTime are not part of the preset: no strategy stops at an
// elapsed time, and no built-in scenario runs that long.
func cenkaltiPreset(name, source string) Preset {
	return Preset{
		Name:   name,
		Source: source + ": U(0.5, 1.5) × min(500 ms × 1.5^(n-1), 60 s) before retry n, no limit on attempts; held to the library by libraries/ TestPresetsMatchTheirLibraries",
		// herdbench's exponential draws v(n)·(1−F) + U(0, v(n)·F) with
		// v(n) = base × 1.5^n: base 500 ms makes v(n) 1.5 × the library's
		// interval, and F = 2/3 its lower end 0.5 ×; the cap 1.5 × 60 s.
		Backoff:            &Backoff{Shape: Exponential, Base: 500 * time.Millisecond, Cap: 90 * time.Second, Multiplier: 1.5, Jitter: 2.0 / 3},
		MaxAttempts:        Unlimited,
		RetryOn:            retryOnAnyFailure,
		RetryNonIdempotent: true,
	}
}

// renamed are the names presets had before they were named for the
// library they model, each with what replaced it.
var renamed = map[string]string{
	"aws-standard":    "botocore-standard is botocore's standard retry mode, which this name meant; aws-sdk-go-v2-standard is the AWS SDK for Go v2's standard retryer (v1.48: a 50 ms first ceiling, 14 tokens a retry)",
	"aws-standard-v2": "aws-sdk-go-v2-standard",
	"finagle":         "finagle-budget (Finagle's retry budget; its backoff is herdbench's choice, not Finagle's)",
}

// RenamedPreset says, for a preset's former name, which presets replaced
// it; ok is false for a name no preset had.
func RenamedPreset(name string) (successors string, ok bool) {
	successors, ok = renamed[name]
	return successors, ok
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
