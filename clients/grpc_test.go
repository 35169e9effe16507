package clients

import (
	"github.com/herdbench/herdbench/internal/grpcraw"

	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
	"google.golang.org/grpc/codes"
)

// exampleRetry is grpc-go's examples/features/retry service config, as
// its client writes it (capitalized keys: grpc-go's decoding matches them
// without regard to case).
const exampleRetry = `{
	"methodConfig": [{
	  "name": [{"service": "grpc.examples.echo.Echo"}],
	  "retryPolicy": {
		  "MaxAttempts": 4,
		  "InitialBackoff": ".01s",
		  "MaxBackoff": ".01s",
		  "BackoffMultiplier": 1.0,
		  "RetryableStatusCodes": [ "UNAVAILABLE" ]
	  }
	}]}`

func TestParseGRPCServiceConfig(t *testing.T) {
	sc, err := ParseGRPCServiceConfig(exampleRetry, echoMethod, grpcraw.CheckServiceConfig)
	if err != nil {
		t.Fatal(err)
	}
	want := GRPCRetryPolicy{MaxAttempts: 4, Written: 4, InitialBackoff: 10 * ms, MaxBackoff: 10 * ms, BackoffMultiplier: 1, Retryable: 1 << codes.Unavailable}
	if sc.Retry == nil || *sc.Retry != want || sc.Throttling != nil || sc.JSON != exampleRetry {
		t.Fatalf("parsed %+v, retry %+v; want retry %+v", sc, sc.Retry, want)
	}

	sc, err = ParseGRPCServiceConfig(`{"methodConfig": [{"name": [{}], "timeout": "1.5s", "retryPolicy": {"maxAttempts": 9,
		"initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", 8]}}],
		"retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`, callMethod, grpcraw.CheckServiceConfig)
	if err != nil {
		t.Fatal(err)
	}
	if r := sc.Retry; r.MaxAttempts != GRPCMaxAttempts || r.Written != 9 || !r.Retries(codes.ResourceExhausted) || !r.Retries(codes.Unavailable) || r.Retries(codes.Internal) {
		t.Errorf("maxAttempts 9 with two codes: %+v (grpc-go clamps to 5)", r)
	}
	if sc.Timeout != 1500*ms || *sc.Throttling != (GRPCThrottling{MaxTokens: 10, TokenRatio: 0.1}) {
		t.Errorf("timeout %s, throttling %+v", sc.Timeout, sc.Throttling)
	}
}

// The methods the tests' cohorts call.
const (
	callMethod = "/herdbench.Target/Call"
	echoMethod = "/grpc.examples.echo.Echo/UnaryEcho"
)

// TestGRPCMethodConfigLookup holds the method config a cohort's model
// takes to grpc-go's own lookup (clientconn.go getMethodConfig): the
// method's, else its service's, else every method's; one that names
// another service applies to nothing. The real side is grpc-go itself:
// its channel picks the config by the same rule.
func TestGRPCMethodConfigLookup(t *testing.T) {
	mc := func(name string, attempts int) string {
		return `{"name": [` + name + `], "retryPolicy": {"maxAttempts": ` + strconv.Itoa(attempts) +
			`, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}`
	}
	js := `{"methodConfig": [` + mc(`{}`, 2) + `, ` + mc(`{"service": "grpc.examples.echo.Echo"}`, 3) + `, ` +
		mc(`{"service": "grpc.examples.echo.Echo", "method": "UnaryEcho"}`, 4) + `, ` + mc(`{"service": "other.S"}`, 5) + `]}`
	for _, tc := range []struct {
		method string
		want   int
	}{
		{echoMethod, 4}, {"/grpc.examples.echo.Echo/ServerStreamingEcho", 3}, {callMethod, 2}, {"/other.S/M", 5}, {"/other.T/M", 2},
	} {
		sc, err := ParseGRPCServiceConfig(js, tc.method, grpcraw.CheckServiceConfig)
		if err != nil || sc.Retry == nil || sc.Retry.MaxAttempts != tc.want {
			t.Errorf("%s: %+v, %v; want the method config with maxAttempts %d", tc.method, sc, err, tc.want)
		}
	}
	// Without a default, a method of another service gets no method config.
	js = `{"methodConfig": [` + mc(`{"service": "grpc.examples.echo.Echo"}`, 3) + `]}`
	if sc, err := ParseGRPCServiceConfig(js, echoMethod, grpcraw.CheckServiceConfig); err != nil || sc.Retry.MaxAttempts != 3 {
		t.Errorf("the service's config: %+v, %v", sc, err)
	}
	if _, err := ParseGRPCServiceConfig(js, callMethod, grpcraw.CheckServiceConfig); err == nil {
		t.Errorf("a config for grpc.examples.echo.Echo accepted for %s, which grpc-go would never retry", callMethod)
	}
	// waitForReady on a method config the cohort does not call is no matter.
	js = `{"methodConfig": [` + mc(`{}`, 2) + `, {"name": [{"service": "x.Y"}], "waitForReady": true}]}`
	if _, err := ParseGRPCServiceConfig(js, callMethod, grpcraw.CheckServiceConfig); err != nil {
		t.Errorf("waitForReady on another service's config: %v", err)
	}
}

func TestParseGRPCServiceConfigRefuses(t *testing.T) {
	policy := func(body string) string {
		return `{"methodConfig": [{"name": [{}], "retryPolicy": {` + body + `}}]}`
	}
	good := `"initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`
	for _, tc := range []struct{ js, want string }{
		{"", "empty"},
		{`{"methodConfig": [`, "not JSON (line 1"},
		{"{\n\"methodConfig\": 3\n}", "methodConfig: a JSON number"},
		{"{\n  \"retryThrottling\": {\"maxTokens\": 10,, }\n}", "not JSON (line 2"},
		{policy(`"maxAttempts": 1, ` + good), "grpc-go refuses it: invalid retry policy"},
		{policy(`"maxAttempts": 1, ` + good), "maxAttempts of 2 or more"},
		{policy(`"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABEL"]`), `invalid code: "\"UNAVAILABEL\""`},
		{policy(`"maxAttempts": 3, "initialBackoff": "100ms", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`), "100ms"},
		{policy(`"maxAttempts": 3, "initialBackoff": "0s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]`), "methodConfig[0].retryPolicy.initialBackoff: grpc-go refuses it"},
		{`{"methodConfig": [], "retryThrottling": {"maxTokens": 0, "tokenRatio": 0.1}}`, "grpc-go refuses it: invalid retry throttling config: maxTokens (0) out of range (0, 1000]"},
		{`{"methodConfig": [], "retryThrottling": {"maxTokens": 10, "tokenRatio": -1}}`, "tokenRatio (-1)"},
		// grpc-go checks retryThrottling only beside a methodConfig; herdbench always.
		{`{"retryThrottling": {"maxTokens": 1001, "tokenRatio": 0.1}}`, "retryThrottling.maxTokens: 1001"},
		{`{"retryThrottling": {"maxTokens": 10}}`, "retryThrottling.tokenRatio: 0"},
		{`{"methodConfig": [{"name": [{}], "waitForReady": true}]}`, "methodConfig[0].waitForReady: true holds RPCs"},
		// grpc.examples.echo.Echo's config, and the cohort calls herdbench.Target: grpc-go would never retry.
		{exampleRetry, "methodConfig: none applies to /herdbench.Target/Call, the method the cohort calls (they name grpc.examples.echo.Echo)"},
		{`{"methodConfig": [{"name": [{"service": "herdbench.Target", "method": "Other"}], "retryPolicy": {"maxAttempts": 3, ` + good + `}}]}`, "they name herdbench.Target/Other"},
	} {
		_, err := ParseGRPCServiceConfig(tc.js, callMethod, grpcraw.CheckServiceConfig)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrGRPCServiceConfig) {
			t.Errorf("ParseGRPCServiceConfig(%s) = %v; want an ErrGRPCServiceConfig saying %q", tc.js, err, tc.want)
		}
	}
}

// TestParseGRPCDurationAgreesWithGRPCGo holds herdbench's reading of a
// duration to grpc-go's on what grpc-go accepts: each value as a retry
// policy's initialBackoff, with maxBackoff the same, must be accepted by
// both and read to the nanosecond the way grpc-go's grammar reads it.
func TestParseGRPCDurationAgreesWithGRPCGo(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want time.Duration
	}{
		{"1s", time.Second}, {".01s", 10 * ms}, {"0.1s", 100 * ms}, {"1.5s", 1500 * ms},
		{"0.000000001s", 1}, {"2.s", 2 * time.Second}, {"120s", 2 * time.Minute}, {"+1s", time.Second}, {"00.5s", 500 * ms},
	} {
		js := `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "` + tc.s +
			`", "maxBackoff": "` + tc.s + `", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`
		sc, err := ParseGRPCServiceConfig(js, callMethod, grpcraw.CheckServiceConfig)
		if err != nil || sc.Retry.InitialBackoff != tc.want {
			t.Errorf("%q: %v, %+v; want %s", tc.s, err, sc, tc.want)
		}
	}
	for _, s := range []string{"1", "s", ".s", "1.2.3s", "1e3s", "0.0000000001s", "1 s"} {
		if _, err := parseGRPCDuration(s); err == nil {
			t.Errorf("parseGRPCDuration(%q) accepted it", s)
		}
	}
}

// TestGRPCBackoff holds the wait to grpc-go v1.84.0's stream.go: the
// ceiling min(initial × multiplier^n, max) times U(0.8, 1.2), so the
// capped wait reaches 1.2 × maxBackoff.
func TestGRPCBackoff(t *testing.T) {
	p := &GRPCRetryPolicy{InitialBackoff: 100 * ms, MaxBackoff: time.Second, BackoffMultiplier: 2}
	for _, tc := range []struct {
		n    int
		u    float64
		want time.Duration
	}{
		{0, 0, 80 * ms}, {0, 0.5, 100 * ms}, {1, 0.5, 200 * ms}, {2, 1, 480 * ms},
		{3, 0, 640 * ms}, {4, 0.5, time.Second}, {10, 1, 1200 * ms}, {10, 0, 800 * ms},
	} {
		if got := p.Backoff(tc.n, tc.u); got != tc.want {
			t.Errorf("Backoff(%d, %v) = %s, want %s", tc.n, tc.u, got, tc.want)
		}
	}
}

// TestGRPCThrottler follows grpc-go's retryThrottler: 10 tokens, ratio 0.1.
func TestGRPCThrottler(t *testing.T) {
	g := NewGRPCThrottler(GRPCThrottling{MaxTokens: 10, TokenRatio: 0.1})
	for i := 1; i <= 4; i++ {
		if _, ok := g.Retry(0, false); !ok {
			t.Fatalf("retry %d refused with %v tokens", i, g.Tokens())
		}
	}
	if _, ok := g.Retry(0, false); ok || g.Tokens() != 5 {
		t.Fatalf("the fifth retry, at 5 tokens (= max/2), allowed or tokens %v", g.Tokens())
	}
	g.Answered(0, false, 0) // a failure takes nothing: Retry took it
	if g.Tokens() != 5 {
		t.Errorf("a failed answer took a token: %v", g.Tokens())
	}
	for range 20 {
		g.Answered(0, true, 0)
	}
	if d := g.Tokens() - 7; d > 1e-9 || d < -1e-9 {
		t.Errorf("20 successes from 5 tokens: %v, want 7", g.Tokens())
	}
	for range 10 {
		g.Retry(0, false)
	}
	if g.Tokens() != 0 {
		t.Errorf("tokens go below 0: %v", g.Tokens())
	}
}

func grpcClient(t *testing.T, js string, deadline time.Duration, sink results.Sink) *Client {
	t.Helper()
	sc, err := ParseGRPCServiceConfig(js, echoMethod, grpcraw.CheckServiceConfig) // the example's method; {} configs apply to it too
	if err != nil {
		t.Fatal(err)
	}
	s := GRPCStrategy("g", sc, deadline, PerClient)
	return NewClient(0, &s, &Workload{Kind: OneShot, Clients: 1}, time.Minute, seeds.Stream(1, 0), sink)
}

const policy5 = `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s",
	"maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]}}]`

const throttled = policy5 + `, "retryThrottling": {"maxTokens": 4, "tokenRatio": 0.5}}`

// TestGRPCClientFollowsShouldRetry walks one RPC through grpc-go's
// shouldRetry: retryable codes, pushback, its stop form, throttling.
func TestGRPCClientFollowsShouldRetry(t *testing.T) {
	tokens := func(c *Client) float64 { return c.pol.budget.(*GRPCThrottler).Tokens() }

	// A pushback of 250 ms waits exactly that and starts the backoff over.
	c := grpcClient(t, policy5+"}", 0, &fakeSink{})
	a := c.Begin()
	a = c.Result(Reply{Sent: a.At, Latency: 10 * ms, Outcome: results.HTTP5xx, Status: 503})
	if a.Op != Send || a.Attempt != 2 || a.At < 10*ms+80*ms || a.At > 10*ms+120*ms {
		t.Fatalf("after UNAVAILABLE: %+v, want attempt 2 in 80-120 ms", a)
	}
	a = c.Result(Reply{Sent: a.At, Latency: 10 * ms, Outcome: results.HTTP429, Status: 429})
	if a.Op != Send || a.Attempt != 3 {
		t.Fatalf("after RESOURCE_EXHAUSTED: %+v", a)
	}
	prev := a.At
	a = c.Result(Reply{Sent: a.At, Outcome: results.HTTP429, Status: 429, RetryAfter: 250 * ms})
	if a.Op != Send || a.At != prev+250*ms {
		t.Errorf("pushback 250 ms: %+v, want attempt 4 at %s", a, prev+250*ms)
	}
	prev = a.At
	a = c.Result(Reply{Sent: a.At, Outcome: results.HTTP5xx, Status: 503})
	if a.Op != Send || a.At < prev+80*ms || a.At > prev+120*ms {
		t.Errorf("the backoff after a pushback: %+v, want 80-120 ms after %s (n back to 0)", a, prev)
	}
	if a = c.Result(Reply{Sent: a.At, Outcome: results.HTTP5xx, Status: 503}); a.Op != Stop {
		t.Errorf("after 5 attempts: %+v", a)
	}

	// Tokens 4, threshold 2: the second retry is refused (4-2 = 2 is not above 2).
	c = grpcClient(t, throttled, 0, &fakeSink{})
	a = c.Begin()
	a = c.Result(Reply{Sent: a.At, Outcome: results.HTTP5xx, Status: 503})
	if a.Op != Send || tokens(c) != 3 {
		t.Fatalf("the first retry: %+v, tokens %v", a, tokens(c))
	}
	if a = c.Result(Reply{Sent: a.At, Outcome: results.HTTP5xx, Status: 503}); a.Op != Stop || tokens(c) != 2 {
		t.Errorf("the second retry with 4 tokens: %+v, tokens %v; want the throttler's refusal at 2", a, tokens(c))
	}

	// A code the policy does not list ends the RPC and takes no token.
	c = grpcClient(t, throttled, 0, &fakeSink{})
	a = c.Begin()
	if a = c.Result(Reply{Sent: 0, Latency: ms, Outcome: results.HTTP5xx, Status: 500}); a.Op != Stop || tokens(c) != 4 {
		t.Errorf("INTERNAL: %+v, tokens %v; want no retry and 4 tokens", a, tokens(c))
	}
	// The stop form ends it and takes a token.
	c = grpcClient(t, throttled, 0, &fakeSink{})
	c.Begin()
	if a = c.Result(Reply{Sent: 0, Latency: ms, Outcome: results.HTTP5xx, Status: 503, RetryAfter: GRPCPushbackStop}); a.Op != Stop || tokens(c) != 3 {
		t.Errorf("pushback stop: %+v, tokens %v; want no retry and 3 tokens", a, tokens(c))
	}
	// A success gives tokenRatio back.
	c.pol.budget.Answered(0, true, 0)
	if tokens(c) != 3.5 {
		t.Errorf("a success: tokens %v, want 3.5", tokens(c))
	}
}

// TestGRPCClientAttemptsAndDeadline: the example policy's 4 attempts,
// each reset connection UNAVAILABLE; and a deadline that covers the RPC.
func TestGRPCClientAttemptsAndDeadline(t *testing.T) {
	sink := &fakeSink{}
	c := grpcClient(t, exampleRetry, 0, sink)
	a := c.Begin()
	for a.Op == Send {
		a = c.Result(Reply{Sent: a.At, Latency: ms, Outcome: results.Reset})
	}
	if len(sink.attempts) != 4 || sink.requests[0].Succeeded {
		t.Fatalf("attempts %d, requests %+v; want 4 failed attempts", len(sink.attempts), sink.requests)
	}
	for i := 1; i < 4; i++ {
		if gap := sink.attempts[i].Sent - (sink.attempts[i-1].Sent + ms); gap < 8*ms || gap > 12*ms {
			t.Errorf("wait before attempt %d: %s, want 8-12 ms (10 ms ± 20%%)", i+1, gap)
		}
	}

	// A 1 s deadline: the first attempt is due by 1 s, the fourth too.
	sink = &fakeSink{}
	c = grpcClient(t, policy5+"}", time.Second, sink)
	a = c.Begin()
	if d := c.Deadline(a.At); d != time.Second {
		t.Errorf("the first attempt's deadline %s, want 1s", d)
	}
	a = c.Result(Reply{Sent: 0, Latency: 900 * ms, Outcome: results.HTTP5xx, Status: 503})
	if d := c.Deadline(a.At); a.Op != Send || d != time.Second {
		t.Errorf("the retry's deadline %s (%+v), want the RPC's, 1s", d, a)
	}
	// A wait past the deadline ends the RPC at the deadline.
	a = c.Result(Reply{Sent: a.At, Latency: 10 * ms, Outcome: results.HTTP5xx, Status: 503, RetryAfter: 500 * ms})
	if a.Op != Stop || sink.requests[0].End != time.Second {
		t.Errorf("a pushback past the deadline: %+v, request %+v; want it ended at 1s", a, sink.requests)
	}
	// The deadline itself is never retried.
	c = grpcClient(t, throttled, time.Second, &fakeSink{})
	c.Begin()
	if a = c.Result(Reply{Sent: 0, Latency: time.Second, Outcome: results.Timeout}); a.Op != Stop {
		t.Errorf("DEADLINE_EXCEEDED retried: %+v", a)
	}
}

// TestGRPCCode: the simulator reads an answer's status as the target
// sends it, grpcwire.Code, for every status; a few exactly.
func TestGRPCCode(t *testing.T) {
	for status, want := range map[int]codes.Code{200: codes.OK, 302: codes.Unknown, 400: codes.Internal, 404: codes.Unimplemented,
		409: codes.Aborted, 418: codes.Unknown, 429: codes.ResourceExhausted, 500: codes.Internal, 501: codes.Unknown,
		503: codes.Unavailable, 504: codes.Unavailable, 507: codes.Unknown} {
		if got := GRPCCode(status); got != want {
			t.Errorf("GRPCCode(%d) = %s, want %s", status, got, want)
		}
	}
	for status := -1; status < 1000; status++ {
		if got, want := GRPCCode(status), grpcwire.Code(status); got != want {
			t.Errorf("GRPCCode(%d) = %s; the target sends %s (grpcwire.Code)", status, got, want)
		}
		r := Reply{Outcome: results.FromStatus(status), Status: status}
		if got, want := GRPCReplyCode(r), grpcwire.Code(status); got != want {
			t.Errorf("GRPCReplyCode(%+v) = %s; the target sends %s (grpcwire.Code)", r, got, want)
		}
	}
	for o, want := range map[results.Outcome]codes.Code{results.Timeout: codes.DeadlineExceeded, results.Reset: codes.Unavailable, results.Refused: codes.Unavailable, results.Error: codes.Unknown} {
		if got := GRPCReplyCode(Reply{Outcome: o}); got != want {
			t.Errorf("GRPCReplyCode(%s) = %s, want %s", o, got, want)
		}
	}
}

// TestGRPCOutcome: every code, as a grpc-go client records a call the
// server ended with it; and over gRPC a status is recorded by its code,
// not as an HTTP client would (400 and 409 http_5xx, 3xx http_5xx).
func TestGRPCOutcome(t *testing.T) {
	want := map[codes.Code]results.Outcome{
		codes.OK: results.OK, codes.Canceled: results.Error, codes.Unknown: results.HTTP5xx,
		codes.InvalidArgument: results.HTTP4xx, codes.DeadlineExceeded: results.Timeout, codes.NotFound: results.HTTP4xx,
		codes.AlreadyExists: results.HTTP4xx, codes.PermissionDenied: results.HTTP4xx, codes.ResourceExhausted: results.HTTP429,
		codes.FailedPrecondition: results.HTTP4xx, codes.Aborted: results.HTTP5xx, codes.OutOfRange: results.HTTP4xx,
		codes.Unimplemented: results.HTTP4xx, codes.Internal: results.HTTP5xx, codes.Unavailable: results.HTTP5xx,
		codes.DataLoss: results.HTTP5xx, codes.Unauthenticated: results.HTTP4xx,
	}
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if got, _ := GRPCOutcome(c); got != want[c] {
			t.Errorf("GRPCOutcome(%s) = %s, want %s", c, got, want[c])
		}
	}
	for status, want := range map[int]results.Outcome{200: results.OK, 302: results.HTTP5xx, 400: results.HTTP5xx, 404: results.HTTP4xx,
		409: results.HTTP5xx, 418: results.HTTP5xx, 429: results.HTTP429, 503: results.HTTP5xx} {
		if got, _ := GRPCOutcome(GRPCCode(status)); got != want {
			t.Errorf("status %d over gRPC (%s): %s, want %s", status, GRPCCode(status), got, want)
		}
	}
}

// FuzzGRPCDurationAgreesWithGRPCGo: herdbench reads a retry policy's
// duration exactly when grpc-go's own parser accepts the policy.
func FuzzGRPCDurationAgreesWithGRPCGo(f *testing.F) {
	for _, s := range []string{"1s", ".01s", "0.1s", "2.s", "+1s", "-1s", "1", "1e3s", "0s", " 1s", "1.0000000001s", "315576000001s", "9223372036s", "00.5s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := json.Marshal(s)
		js := `{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": ` + string(b) +
			`, "maxBackoff": "1s", "backoffMultiplier": 1, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`
		grpcErr := grpcGoAccepts(grpcraw.CheckServiceConfig, js)
		_, err := ParseGRPCServiceConfig(js, callMethod, grpcraw.CheckServiceConfig)
		if (grpcErr == nil) != (err == nil) {
			t.Errorf("initialBackoff %q: grpc-go says %v, herdbench %v", s, grpcErr, err)
		}
	})
}
