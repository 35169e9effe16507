package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
)

// Fault kinds that exist only in this test binary: a kind the scenario
// checks have never heard of gets the same checks as the built-in kinds
// with the same effect, because the checks ask the compiled plan what the
// target does, not which kinds of fault it holds.
type (
	testCrash     struct{} // the port closes, as an outage in mode refuse
	testCrashSpec struct{}
	testHang      struct{} // requests hang, as a blackhole
	testHangSpec  struct{}
)

func (testCrash) Apply(e *chaos.Effect)                            { e.Outage = max(e.Outage, chaos.Refuse) }
func (testHang) Apply(e *chaos.Effect)                             { e.Blackhole = true }
func (*testCrashSpec) Compile() (chaos.Fault, []*chaos.ParamError) { return testCrash{}, nil }
func (*testHangSpec) Compile() (chaos.Fault, []*chaos.ParamError)  { return testHang{}, nil }

func init() {
	chaos.Register("test-crash", func() chaos.Spec { return &testCrashSpec{} })
	chaos.Register("test-hang", func() chaos.Spec { return &testHangSpec{} })
}

func TestChecksDecideOnEffects(t *testing.T) {
	for _, c := range []struct{ name, src, path, msg string }{
		{"a port that closes answers at once, network or not", `name: x
network: {delay: 1ms}
chaos:
  - {kind: test-crash, at: 1s, for: 1s}
strategies:
  - {name: a, backoff: exponential, base: 0s, max_attempts: unlimited}
`, "strategies[0].max_attempts", "retried at the same instant, forever"},
		{"requests that hang need a timeout", `name: x
chaos:
  - {kind: test-hang, at: 1s, for: 1s}
strategies:
  - {name: a, backoff: full, timeout: 0s}
`, "strategies[0].timeout", "no per-attempt timeout"},
	} {
		_, err := checkData("x.yaml", []byte("duration: 5s\n"+c.src), Overrides{})
		e, ok := err.(*Error)
		if !ok || len(e.Problems) != 1 || e.Problems[0].Path != c.path || !strings.Contains(e.Problems[0].Msg, c.msg) {
			t.Errorf("%s: %v; want one problem at %s saying %q", c.name, err, c.path, c.msg)
		}
	}
	// The same scenarios with a network delay and a timeout are fine.
	if _, err := checkData("x.yaml", []byte(`name: x
duration: 5s
network: {delay: 1ms}
chaos:
  - {kind: test-hang, at: 1s, for: 1s}
strategies:
  - {name: a, backoff: exponential, base: 0s, max_attempts: unlimited, timeout: 1s}
`), Overrides{}); err != nil {
		t.Errorf("a hang with a timeout over a network: %v", err)
	}
}

// testQuota is a budget kind that exists only in this test binary: its
// registration alone makes it a scenario's budget, with its fields, their
// defaults, its checks and messages, and its place in the resolved
// scenario.
type testQuota struct {
	Retries int           `yaml:"retries"`
	Refill  time.Duration `yaml:"refill"`
}

func (q *testQuota) Resolve(func(string) bool) []*clients.ParamError {
	if q.Retries < 1 {
		return []*clients.ParamError{{Field: "retries", Msg: "write 1 or more"}}
	}
	return nil
}

func (q *testQuota) New() clients.Budget { return nil }

func init() {
	clients.Budgets.Register("test-quota", "a fixed number of retries", func() clients.BudgetSpec {
		return &testQuota{Retries: 3, Refill: time.Minute}
	})
}

func TestANewBudgetKindIsOneRegistration(t *testing.T) {
	p, e := compilePolicyYAML(t, policyHeader+`strategies:
  - name: s
    backoff: full
    budget: {kind: test-quota, refill: 90s}
`)
	if e != nil {
		t.Fatal(e)
	}
	if b := p.Strategies[0].Budget; !isPolicy(b, "test-quota", clients.PerClient, &testQuota{Retries: 3, Refill: 90 * time.Second}) {
		t.Errorf("budget %+v %+v", b, b.Spec)
	}
	if res := string(p.Resolved); !strings.Contains(res, "budget:\n        kind: test-quota\n        scope: client\n        retries: 3\n        refill: 90s\n") {
		t.Errorf("the resolved scenario does not show the budget as it ran:\n%s", res)
	}
	for _, c := range []struct{ yaml, path, msg string }{
		{"{kind: test-quota, retries: 0}", "strategies[0].budget.retries", "write 1 or more"},
		{"{kind: test-quota, retrie: 2}", "strategies[0].budget.retrie", `unknown field "retrie" (did you mean "retries"?); valid fields here: kind, scope, retries, refill`},
		{"{kind: test-quota, max_tokens: 2}", "strategies[0].budget.max_tokens", "max_tokens belongs to grpc budgets; a test-quota budget takes retries, refill"},
		{"{kind: grpc, refill: 1s}", "strategies[0].budget.refill", "refill belongs to test-quota budgets; a grpc budget takes max_tokens, token_ratio"},
		{"{kind: test-qouta}", "strategies[0].budget.kind", `unknown budget kind "test-qouta" (did you mean "test-quota"?)`},
		{"{scope: cohort}", "strategies[0].budget.kind", "test-quota (a fixed number of retries)"},
		{"{kind: test-quota, refill: soon}", "strategies[0].budget.refill", `"soon" is not a duration`},
		{"{kind: test-quota, retries: many}", "strategies[0].budget.retries", `"many" is text, but this field takes a whole number`},
		{"{kind: test-quota, retries: 2.5}", "strategies[0].budget.retries", "2.5 is not a whole number"},
	} {
		_, e := compilePolicyYAML(t, policyHeader+"strategies:\n  - name: s\n    backoff: full\n    budget: "+c.yaml+"\n")
		if e == nil || len(e.Problems) != 1 || e.Problems[0].Path != c.path || !strings.Contains(e.Problems[0].Msg, c.msg) || e.Problems[0].Line != 8 {
			t.Errorf("budget: %s: %v; want one problem on line 8 at %s saying %q", c.yaml, e, c.path, c.msg)
		}
	}
}

// The resolved scenario keeps a policy's durations as written, and a YAML
// merge works in a policy as anywhere else.
func TestResolvedPolicies(t *testing.T) {
	p, e := compilePolicyYAML(t, policyHeader+`strategies:
  - name: a
    backoff: full
    breaker: &rate {failure_rate: 0.25, window: 2m, open_for: 1.5s}
    throttle: {kind: sre, window: 90s}
  - name: b
    backoff: full
    breaker: {<<: *rate, open_for: 3s}
`)
	if e != nil {
		t.Fatal(e)
	}
	res := string(p.Resolved)
	for _, want := range []string{
		"breaker:\n        scope: client\n        failure_rate: 0.25\n        window: 2m\n        min_calls: 100\n        open_for: 1.5s\n        half_open_calls: 10\n" +
			"      throttle:\n        kind: sre\n        scope: client\n        k: 2\n        window: 90s\n",
		"breaker:\n        scope: client\n        failure_rate: 0.25\n        window: 2m\n        min_calls: 100\n        open_for: 3s\n        half_open_calls: 10\n",
	} {
		if !strings.Contains(res, want) {
			t.Errorf("resolved scenario:\n%s\nwant it to hold:\n%s", res, want)
		}
	}
	if got := p.Strategies[1].Breaker.Spec.(*clients.StandardBreakerConfig); got.FailureRate != 0.25 || got.OpenFor != 3*time.Second {
		t.Errorf("merged breaker %+v", got)
	}
}
