package scenarios

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
)

func compilePolicyYAML(t *testing.T, src string) (*Plan, *Error) {
	t.Helper()
	s, err := Parse("test.yaml", []byte(src))
	if err == nil {
		var p *Plan
		p, err = s.Compile(Overrides{})
		if err == nil {
			return p, nil
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return nil, e
}

const policyHeader = `name: t
duration: 10s
seed: 1
workload: {kind: closed, clients: 2}
`

// isPolicy reports whether p is a policy of kind with that scope and spec.
func isPolicy[P any](p *clients.Policy[P], kind string, scope clients.Scope, spec clients.Spec[P]) bool {
	return p != nil && p.Kind == kind && p.Scope == scope && reflect.DeepEqual(p.Spec, spec)
}

// published returns kind's Spec with its published constants.
func published[P any](f *clients.Family[P], kind string) clients.Spec[P] {
	s, _ := f.Spec(kind)
	return s
}

func TestPresetsFillUnsetFields(t *testing.T) {
	p, e := compilePolicyYAML(t, policyHeader+`strategies:
  - name: grpc
    preset: grpc
  - name: aws
    preset: botocore-standard
    max_attempts: 5
    budget: {tokens: 100}
  - name: envoy-aws
    preset: envoy
    base: 50ms
    budget: {kind: aws}
  - name: sre
    preset: sre
    timeout: 1s
    throttle: {k: 1.5}
  - name: finagle
    preset: finagle-budget
`)
	if e != nil {
		t.Fatal(e)
	}
	g := p.Strategies[0]
	if g.Backoff != (clients.Backoff{Shape: clients.GRPC, Base: 100 * time.Millisecond, Cap: time.Second, Multiplier: 2}) || g.MaxAttempts != 4 ||
		!isPolicy(g.Budget, "grpc", clients.PerClient, &clients.GRPCBudgetConfig{MaxTokens: 10, TokenRatio: 0.1}) || g.Breaker != nil || g.Throttle != nil {
		t.Errorf("grpc preset compiled to %+v, budget %+v", g, g.Budget)
	}
	a := p.Strategies[1]
	if a.MaxAttempts != 5 || a.Backoff.Base != 500*time.Millisecond || a.Backoff.Cap != 20*time.Second || a.Backoff.Shape != clients.Full ||
		!isPolicy(a.Budget, "aws", clients.PerClient, &clients.AWSBudgetConfig{Tokens: 100, RetryCost: 5, TimeoutRetryCost: 10, NoRetryIncrement: 1}) {
		t.Errorf("botocore-standard with overrides compiled to %+v, budget %+v", a, a.Budget)
	}
	ea := p.Strategies[2]
	if ea.Backoff.Shape != clients.Envoy || ea.Backoff.Base != 50*time.Millisecond || ea.Backoff.Cap != 250*time.Millisecond || ea.MaxAttempts != 2 ||
		!isPolicy(ea.Budget, "aws", clients.PerClient, published(clients.Budgets, "aws")) {
		t.Errorf("envoy with an aws budget compiled to %+v, budget %+v", ea, ea.Budget)
	}
	s := p.Strategies[3]
	if s.MaxAttempts != 3 || s.Timeout != time.Second || s.Backoff.Shape != clients.Full || s.Backoff.Base != DefaultBase ||
		!isPolicy(s.Budget, "sre", clients.PerClient, published(clients.Budgets, "sre")) ||
		!isPolicy(s.Throttle, "sre", clients.PerClient, &clients.SREThrottleConfig{K: 1.5, Window: 2 * time.Minute}) {
		t.Errorf("sre preset compiled to %+v, budget %+v, throttle %+v", s, s.Budget, s.Throttle)
	}
	f := p.Strategies[4]
	if f.MaxAttempts != DefaultMaxAttempts || !isPolicy(f.Budget, "finagle", clients.PerClient, published(clients.Budgets, "finagle")) || f.Backoff.Base != 5*time.Millisecond {
		t.Errorf("finagle preset compiled to %+v, budget %+v", f, f.Budget)
	}
	// The resolved scenario shows what ran, and compiles to the same plan.
	res := string(p.Resolved)
	for _, want := range []string{"token_ratio: 0.1", "tokens: 100", "retry_cost: 5", "backoff: envoy", "k: 1.5", "scope: client", "percent_can_retry: 0.2"} {
		if !strings.Contains(res, want) {
			t.Errorf("resolved scenario lacks %q:\n%s", want, res)
		}
	}
	s2, err := Parse("resolved.yaml", p.Resolved)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s2.Compile(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Strategies {
		a, b := p.Strategies[i], p2.Strategies[i]
		if a.Backoff != b.Backoff || a.MaxAttempts != b.MaxAttempts || !reflect.DeepEqual(a.Budget, b.Budget) || !reflect.DeepEqual(a.Throttle, b.Throttle) {
			t.Errorf("strategy %d differs after a round trip: %+v vs %+v", i, a, b)
		}
	}
}

func TestPoliciesFromYAML(t *testing.T) {
	p, e := compilePolicyYAML(t, policyHeader+`strategies:
  - name: all
    backoff: full
    budget: {kind: finagle, scope: cohort, ttl: 5s, min_retries_per_sec: 0, percent_can_retry: 0.1}
    breaker: {consecutive_failures: 5, open_for: 2s, half_open_calls: 3}
    throttle: {scope: cohort}
    retry_after: honor
    retry_after_cap: 4s
  - name: rate-breaker
    backoff: full
    breaker: {failure_rate: 0.4, window: 5s, min_calls: 20, open_for: 1s}
  - name: default-breaker
    backoff: full
    breaker: {}
`)
	if e != nil {
		t.Fatal(e)
	}
	s := p.Strategies[0]
	if !isPolicy(s.Budget, "finagle", clients.PerCohort, &clients.FinagleBudgetConfig{TTL: 5 * time.Second, PercentCanRetry: 0.1}) {
		t.Errorf("budget %+v", *s.Budget)
	}
	if !isPolicy(s.Breaker, "standard", clients.PerClient, &clients.StandardBreakerConfig{ConsecutiveFailures: 5, OpenFor: 2 * time.Second, HalfOpenCalls: 3}) {
		t.Errorf("breaker %+v", *s.Breaker)
	}
	if !isPolicy(s.Throttle, "sre", clients.PerCohort, &clients.SREThrottleConfig{K: 2, Window: 2 * time.Minute}) {
		t.Errorf("throttle %+v", *s.Throttle)
	}
	if s.RetryAfter != (clients.RetryAfter{Honor: true, Cap: 4 * time.Second}) {
		t.Errorf("retry_after %+v", s.RetryAfter)
	}
	if got := p.Strategies[1].Breaker; !isPolicy(got, "standard", clients.PerClient, &clients.StandardBreakerConfig{FailureRate: 0.4, Window: 5 * time.Second, MinCalls: 20, OpenFor: time.Second, HalfOpenCalls: 10}) {
		t.Errorf("rate breaker %+v", got.Spec)
	}
	if got, want := p.Strategies[2].Breaker, published(clients.Breakers, "standard"); !isPolicy(got, "standard", clients.PerClient, want) {
		t.Errorf("breaker: {} = %+v, want resilience4j's %+v", got.Spec, want)
	}
}

func TestOpenWorkloadScope(t *testing.T) {
	const open = "name: t\nduration: 10s\nworkload: {kind: open, rate: 10}\n"
	p, e := compilePolicyYAML(t, open+"strategies:\n  - {name: a, preset: grpc, breaker: {}}\n")
	if e != nil {
		t.Fatal(e)
	}
	if s := p.Strategies[0]; s.Budget.Scope != clients.PerCohort || s.Breaker.Scope != clients.PerCohort {
		t.Errorf("open workload: budget scope %s, breaker scope %s; want cohort", s.Budget.Scope, s.Breaker.Scope)
	}
	_, e = compilePolicyYAML(t, open+"strategies:\n  - {name: a, backoff: full, budget: {kind: sre, scope: client}}\n")
	if e == nil || len(e.Problems) != 1 || e.Problems[0].Path != "strategies[0].budget.scope" || !strings.Contains(e.Problems[0].Msg, "fresh client for every arrival") {
		t.Errorf("per-client budget in an open workload: %v", e)
	}
}

// Every policy shows in validation errors when misconfigured, with the
// field's path and what would be valid.
func TestPolicyValidation(t *testing.T) {
	tests := []struct {
		yaml string
		path string
		msg  string
	}{
		{"preset: grcp", "strategies[0].preset", `did you mean "grpc"`},
		{"preset: istio", "strategies[0].preset", "valid presets: grpc, envoy, botocore-standard, finagle-budget, sre, aws-sdk-go-v2-standard"},
		{"budget: {scope: cohort}", "strategies[0].budget.kind", "missing; choose a budget"},
		{"budget: {kind: gprc}", "strategies[0].budget.kind", `did you mean "grpc"`},
		{"budget: {kind: grpc, ttl: 10s}", "strategies[0].budget.ttl", "ttl belongs to finagle budgets; a grpc budget takes max_tokens, token_ratio"},
		{"budget: {kind: grpc, max_tokens: 2000}", "strategies[0].budget.max_tokens", "0 < max_tokens <= 1000"},
		{"budget: {kind: grpc, token_ratio: 0}", "strategies[0].budget.token_ratio", "more than 0"},
		{"budget: {kind: aws, tokens: 0}", "strategies[0].budget.tokens", "write from 1 to 1000000000"},
		{"budget: {kind: aws, retry_cost: -5}", "strategies[0].budget.retry_cost", "write from 1 to 1000000000"},
		{"budget: {kind: finagle, ttl: 1.5s}", "strategies[0].budget.ttl", "whole seconds from 1s to 60s"},
		{"budget: {kind: finagle, ttl: 2m}", "strategies[0].budget.ttl", "whole seconds from 1s to 60s"},
		{"budget: {kind: finagle, percent_can_retry: -1}", "strategies[0].budget.percent_can_retry", "from 0 to 1000"},
		{"budget: {kind: sre, ratio: 0}", "strategies[0].budget.ratio", "share of requests"},
		{"budget: {kind: sre, window: 0s}", "strategies[0].budget.window", "more than 0"},
		{"budget: {kind: envoy, budget_percent: 120}", "strategies[0].budget.budget_percent", "from 0 to 100"},
		{"budget: {kind: grpc, scope: sidecar}", "strategies[0].budget.scope", "write client"},
		{"budget: {kind: grpc, max_token: 5}", "strategies[0].budget.max_token", `did you mean "max_tokens"`},
		{"breaker: {failure_rate: 1.5}", "strategies[0].breaker.failure_rate", "fraction in (0, 1]"},
		{"breaker: {consecutive_failures: 0}", "strategies[0].breaker.consecutive_failures", "write from 1 to 1000000000"},
		{"breaker: {consecutive_failures: 3, window: 5s}", "strategies[0].breaker.window", "for failure_rate"},
		{"breaker: {min_calls: 0}", "strategies[0].breaker.min_calls", "write from 1 to 1000000000"},
		{"breaker: {open_for: 0s}", "strategies[0].breaker.open_for", "more than 0"},
		{"breaker: {half_open_calls: 0}", "strategies[0].breaker.half_open_calls", "write from 1 to 1000000000"},
		{"breaker: {open_fr: 5s}", "strategies[0].breaker.open_fr", `did you mean "open_for"`},
		{"throttle: {k: 0.5}", "strategies[0].throttle.k", "write 1 or more"},
		{"throttle: {k: .nan}", "strategies[0].throttle.k", "write k from 1 to 1000"},
		{"budget: {kind: grpc, token_ratio: .inf}", "strategies[0].budget.token_ratio", "more than 0 to 1000"},
		{"budget: {kind: finagle, percent_can_retry: .nan}", "strategies[0].budget.percent_can_retry", "from 0 to 1000"},
		{"budget: {kind: finagle, min_retries_per_sec: 2000000000}", "strategies[0].budget.min_retries_per_sec", "to 1000000000"},
		{"budget: {kind: sre, ratio: .nan}", "strategies[0].budget.ratio", "share of requests"},
		{"budget: {kind: envoy, min_retry_concurrency: 2000000000}", "strategies[0].budget.min_retry_concurrency", "from 0 to 1000000000"},
		{"breaker: {failure_rate: .inf}", "strategies[0].breaker.failure_rate", "a fraction in (0, 1]"},
		{"breaker: {open_for: 2000000h}", "strategies[0].breaker.open_for", "more than a day"},
		{"retry_after: honor\n    retry_after_cap: 25h", "strategies[0].retry_after_cap", "more than a day"},
		{"throttle: {window: soon}", "strategies[0].throttle.window", "not a duration"},
		{"retry_after: always", "strategies[0].retry_after", "write honor"},
		{"retry_after_cap: 5s", "strategies[0].retry_after_cap", "add retry_after: honor"},
		{"max_attempts: unlimited\n    breaker: {}\n    base: 0s", "strategies[0].max_attempts", "forever"},
	}
	for _, tt := range tests {
		_, e := compilePolicyYAML(t, policyHeader+"strategies:\n  - name: s\n    backoff: full\n    "+tt.yaml+"\n")
		if e == nil {
			t.Errorf("%s: no error", tt.yaml)
			continue
		}
		found := false
		for _, p := range e.Problems {
			if p.Path == tt.path && strings.Contains(p.Msg, tt.msg) && p.Line > 0 {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: problems %v; want one at %s (with its line) saying %q", tt.yaml, e.Problems, tt.path, tt.msg)
		}
	}
}

func TestPushbackFaultValidation(t *testing.T) {
	_, e := compilePolicyYAML(t, policyHeader+`chaos:
  - {kind: pushback, at: 1s, for: 2s, status: 500, retry_after: 250ms}
strategies:
  - {name: s, backoff: full, retry_after: honor}
`)
	if e == nil || len(e.Problems) != 2 || e.Problems[0].Path != "chaos[0].status" || e.Problems[1].Path != "chaos[0].retry_after" {
		t.Fatalf("problems %v", e)
	}
}
