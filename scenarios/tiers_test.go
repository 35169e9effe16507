package scenarios

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
)

const chainScenario = `name: chain
duration: 10s
seed: 3
tiers:
  - name: gateway
    concurrency: 200
    service_time: 1ms
  - name: api
    concurrency: 100
  - name: service
    concurrency: 16
    queue: 50
chaos:
  - {name: crash, kind: outage, mode: reset, at: 2s, for: 1s}
  - {name: slow, kind: blip, delay: 50ms, at: 4s, for: 1s, tier: gateway}
workload: {kind: closed, clients: 10}
strategies:
  - name: every-tier
    backoff: full
    max_attempts: 4
    timeout: 2s
  - name: edge-only
    backoff: full
    max_attempts: 4
    timeout: 2s
    tiers:
      gateway: {max_attempts: 1}
      api: {max_attempts: 1, timeout: 500ms}
  - name: budgeted
    backoff: full
    max_attempts: 4
    budget: {kind: sre, scope: client}
`

func TestChainCompiles(t *testing.T) {
	p, err := compile(t, chainScenario, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Tiers) != 3 || p.Tiers[0].Name != "gateway" || p.Tiers[2].Name != "service" {
		t.Fatalf("tiers %+v", p.Tiers)
	}
	if p.Tiers[0].Target.Concurrency != 200 || p.Tiers[1].Target.Concurrency != 100 || p.Tiers[2].Target.Queue != 50 {
		t.Errorf("capacity models %+v", p.Tiers)
	}
	if !reflect.DeepEqual(p.Target, p.Tiers[2].Target) {
		t.Errorf("the plan's target is not the bottom tier's")
	}
	// The crash names no tier: it strikes the bottom one; the blip its own.
	if f := p.Tiers[2].Chaos.Faults(); len(f) != 1 || f[0].Name != "crash" {
		t.Errorf("service's faults %+v", f)
	}
	if f := p.Tiers[0].Chaos.Faults(); len(f) != 1 || f[0].Name != "slow" {
		t.Errorf("gateway's faults %+v", f)
	}
	if len(p.Tiers[1].Chaos.Faults()) != 0 {
		t.Errorf("api has faults")
	}
	if len(p.Chaos.Faults()) != 2 || p.FaultTier(0) != "service" || p.FaultTier(1) != "gateway" {
		t.Errorf("the whole plan: %d faults, tiers %q %q", len(p.Chaos.Faults()), p.FaultTier(0), p.FaultTier(1))
	}

	every, edge, budgeted := p.Strategies[0], p.Strategies[1], p.Strategies[2]
	for _, st := range p.Strategies {
		if len(st.Tiers) != 2 {
			t.Fatalf("%s: %d tier strategies, want one per tier that calls another (2)", st.Name, len(st.Tiers))
		}
	}
	// A tier left out retries as the edge does, its calls (the probe, a
	// POST) whatever their method.
	for i, ts := range every.Tiers {
		want := every
		want.Tiers, want.Name, want.RetryNonIdempotent = nil, ts.Name, true
		if !reflect.DeepEqual(ts, want) {
			t.Errorf("every-tier at tier %d: %+v, want the edge's %+v", i, ts, want)
		}
	}
	// Fields set at a tier change the cohort's; the rest is inherited.
	if edge.Tiers[0].MaxAttempts != 1 || edge.Tiers[0].Timeout != 2*time.Second || edge.Tiers[0].Backoff.Shape != clients.Full {
		t.Errorf("edge-only at gateway: %+v", edge.Tiers[0])
	}
	if edge.Tiers[1].MaxAttempts != 1 || edge.Tiers[1].Timeout != 500*time.Millisecond {
		t.Errorf("edge-only at api: %+v", edge.Tiers[1])
	}
	if edge.MaxAttempts != 4 {
		t.Errorf("edge-only's edge: %d attempts", edge.MaxAttempts)
	}
	// A budget at the edge is a budget at every tier, each the tier's own.
	if b := budgeted.Budget; b == nil || b.Scope != clients.PerClient {
		t.Errorf("budgeted's edge budget %+v", b)
	}
	for i, ts := range budgeted.Tiers {
		if b := ts.Budget; b == nil || b.Kind != "sre" || b.Scope != clients.PerCohort {
			t.Errorf("budgeted at tier %d: budget %+v, want the sre budget shared by the tier", i, b)
		}
	}
}

// TestChainResolvedRunsTheSame: the resolved scenario, compiled again,
// is the same plan.
func TestChainResolvedRunsTheSame(t *testing.T) {
	p, err := compile(t, chainScenario, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := compile(t, string(p.Resolved), Overrides{})
	if err != nil {
		t.Fatalf("the resolved scenario does not compile: %v\n%s", err, p.Resolved)
	}
	if !reflect.DeepEqual(p.Strategies, q.Strategies) || !reflect.DeepEqual(p.Tiers, q.Tiers) {
		t.Errorf("the resolved scenario compiles to another plan:\n%s", p.Resolved)
	}
	if !reflect.DeepEqual(p.Resolved, q.Resolved) {
		t.Errorf("resolving twice changes it:\n%s\n---\n%s", p.Resolved, q.Resolved)
	}
	if strings.Contains(string(p.Resolved), "target:") {
		t.Errorf("a chain's resolved scenario has a target section:\n%s", p.Resolved)
	}
}

// TestOneTierIsTheTarget: a chain of one tier compiles to the single
// target's model and plan, with no tier strategies.
func TestOneTierIsTheTarget(t *testing.T) {
	single, err := compile(t, `name: one
duration: 5s
target: {concurrency: 8, queue: 20, service_time: 2ms}
chaos: [{kind: outage, mode: reset, at: 1s, for: 1s}]
strategies: [{name: s, backoff: full}]
`, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := compile(t, `name: one
duration: 5s
tiers: [{name: service, concurrency: 8, queue: 20, service_time: 2ms}]
chaos: [{kind: outage, mode: reset, at: 1s, for: 1s}]
strategies: [{name: s, backoff: full}]
`, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(single.Target, chain.Target) || !reflect.DeepEqual(single.Chaos, chain.Chaos) || !reflect.DeepEqual(chain.Tiers[0].Chaos, single.Chaos) {
		t.Errorf("one tier differs from the target")
	}
	if chain.Strategies[0].Tiers != nil {
		t.Errorf("one tier has tier strategies: %+v", chain.Strategies[0].Tiers)
	}
}

func TestPolicyNone(t *testing.T) {
	p, err := compile(t, `name: none
duration: 5s
workload: {clients: 2}
tiers: [{name: gateway}, {name: service}]
strategies:
  - name: grpc-without-budget
    preset: grpc
    budget: none
  - name: budget-at-the-edge-only
    backoff: full
    budget: {kind: sre}
    tiers:
      gateway: {budget: none}
`, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if b := p.Strategies[0].Budget; b != nil {
		t.Errorf("budget: none under preset grpc kept %+v", b)
	}
	if p.Strategies[1].Budget == nil || p.Strategies[1].Tiers[0].Budget != nil {
		t.Errorf("budget at the edge only: edge %+v, gateway %+v", p.Strategies[1].Budget, p.Strategies[1].Tiers[0].Budget)
	}
	if !strings.Contains(string(p.Resolved), "budget: none") {
		t.Errorf("the resolved scenario lost budget: none:\n%s", p.Resolved)
	}
}

func TestServerTier(t *testing.T) {
	s, err := Parse("chain.yaml", []byte(chainScenario))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.compileServer(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Concurrency != 16 || len(p.Chaos.Faults()) != 1 || p.Chaos.Faults()[0].Name != "crash" {
		t.Errorf("the bottom tier: %+v, %d faults", p.Target, len(p.Chaos.Faults()))
	}
	p, err = s.compileServer(Overrides{Tier: "gateway"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Concurrency != 200 || len(p.Chaos.Faults()) != 1 || p.Chaos.Faults()[0].Name != "slow" {
		t.Errorf("gateway: %+v, %d faults", p.Target, len(p.Chaos.Faults()))
	}
	if _, err := s.compileServer(Overrides{Tier: "gatewy"}); err == nil || !strings.Contains(err.Error(), "--tier gatewy: no such tier; the scenario's tiers: gateway, api, service") {
		t.Errorf("an unknown --tier: %v", err)
	}
}

// TestBadChains: each mistake is reported with its line and field.
func TestBadChains(t *testing.T) {
	head := "name: t\nduration: 10s\nworkload: {clients: 2}\n"
	for _, c := range []struct {
		name, src string
		line      int
		want      string
	}{
		{"tier without name", head + "tiers:\n  - concurrency: 4\nstrategies: [{name: s, backoff: full}]\n",
			5, "tiers[0].name: missing; every tier needs a name"},
		{"duplicate tier", head + "tiers:\n  - {name: a}\n  - {name: a}\nstrategies: [{name: s, backoff: full}]\n",
			6, `tiers[1].name: "a" is already the name of tiers[0]`},
		{"target beside tiers", head + "target: {concurrency: 4}\ntiers: [{name: a}]\nstrategies: [{name: s, backoff: full}]\n",
			4, "target: with tiers, each tier has its own capacity model: move these fields into the bottom tier, tiers[0] (a)"},
		{"tier with url", head + "tiers:\n  - {name: a, url: 'http://127.0.0.1:9/'}\nstrategies: [{name: s, backoff: full}]\n",
			5, "tiers[0].url: every tier is embedded"},
		{"occ tier", head + "tiers:\n  - {name: a, kind: occ}\nstrategies: [{name: s, backoff: full}]\n",
			5, `tiers[0].kind: "occ": a tier is a plain service`},
		{"bad tier capacity", head + "tiers:\n  - name: a\n    concurrency: -1\nstrategies: [{name: s, backoff: full}]\n",
			6, "tiers[0].concurrency: -1 requests at once serves nothing"},
		{"bad tier cold start", head + "tiers:\n  - name: a\n    cold_start: {from: 2, ramp: 1s}\nstrategies: [{name: s, backoff: full}]\n",
			6, "tiers[0].cold_start.from: 2 is not a fraction"},
		{"unknown tier field", head + "tiers:\n  - name: a\n    concurency: 3\nstrategies: [{name: s, backoff: full}]\n",
			6, `tiers[0].concurency: unknown field "concurency" (did you mean "concurrency"?)`},
		{"fault at an unknown tier", head + "tiers: [{name: gateway}, {name: service}]\nchaos:\n  - {kind: outage, at: 1s, for: 1s, tier: gatway}\nstrategies: [{name: s, backoff: full}]\n",
			6, `chaos[0].tier: unknown tier "gatway" (did you mean "gateway"?); the tiers: gateway, service`},
		{"fault tier without tiers", head + "chaos:\n  - {kind: outage, at: 1s, for: 1s, tier: gateway}\nstrategies: [{name: s, backoff: full}]\n",
			5, "chaos[0].tier: the scenario has no tiers"},
		{"strategy tiers without tiers", head + "strategies:\n  - name: s\n    backoff: full\n    tiers: {gateway: {max_attempts: 1}}\n",
			7, "strategies[0].tiers: the scenario has no tiers"},
		{"strategy at the bottom tier", head + "tiers: [{name: gateway}, {name: service}]\nstrategies:\n  - name: s\n    backoff: full\n    tiers:\n      service: {max_attempts: 1}\n",
			9, "strategies[0].tiers.service: service is the bottom tier: it calls no other"},
		{"strategy at an unknown tier", head + "tiers: [{name: gateway}, {name: service}]\nstrategies:\n  - name: s\n    backoff: full\n    tiers:\n      gatewy: {max_attempts: 1}\n",
			9, `strategies[0].tiers.gatewy: unknown tier "gatewy" (did you mean "gateway"?)`},
		{"bad field at a tier", head + "tiers: [{name: gateway}, {name: service}]\nstrategies:\n  - name: s\n    backoff: full\n    tiers:\n      gateway:\n        cap: 1ms\n        base: 1s\n",
			10, "strategies[0].tiers.gateway.cap: cap 1ms is below base 1s"},
		{"unknown field at a tier", head + "tiers: [{name: gateway}, {name: service}]\nstrategies:\n  - name: s\n    backoff: full\n    tiers:\n      gateway: {max_atempts: 1}\n",
			9, `strategies[0].tiers.gateway.max_atempts: unknown field "max_atempts" (did you mean "max_attempts"?)`},
		{"name at a tier", head + "tiers: [{name: gateway}, {name: service}]\nstrategies:\n  - name: s\n    backoff: full\n    tiers:\n      gateway: {name: x}\n",
			9, "strategies[0].tiers.gateway.name: name belongs to the cohort"},
		{"client scope at a tier", head + "tiers: [{name: gateway}, {name: service}]\nstrategies:\n  - name: s\n    backoff: full\n    tiers:\n      gateway:\n        budget: {kind: sre, scope: client}\n",
			10, "strategies[0].tiers.gateway.budget.scope: a tier makes a fresh call for every request it serves"},
		{"blackhole below a tier without timeout", head + "tiers: [{name: gateway}, {name: service}]\nchaos: [{kind: blip, mode: blackhole, at: 1s, for: 1s}]\nstrategies:\n  - name: s\n    backoff: full\n    timeout: 0s\n",
			9, `strategy "s" has no per-attempt timeout at service's callers or above them`},
		{"too many tiers", head + "tiers: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}, {name: g}, {name: h}, {name: i}]\nstrategies: [{name: s, backoff: full}]\n",
			4, "tiers: 9 tiers; a chain has from 1 to 8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := checkData("test.yaml", []byte(c.src), Overrides{})
			checkRefused(t, "test.yaml", err, c.line, c.want)
		})
	}
}

// TestChainTimeoutAbove: a timeout above the blackholed tier's callers is
// enough; it cancels the calls below when it gives up.
func TestChainTimeoutAbove(t *testing.T) {
	_, err := compile(t, `name: t
duration: 10s
tiers: [{name: gateway}, {name: service}]
chaos: [{kind: blip, mode: blackhole, at: 1s, for: 1s}]
strategies:
  - name: s
    backoff: full
    timeout: 1s
    tiers: {gateway: {timeout: 0s}}
`, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
}

func TestRetryStrategy(t *testing.T) {
	s, err := Parse("chain.yaml", []byte(chainScenario))
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.RetryStrategy("edge-only", "api", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if st.MaxAttempts != 1 || st.Timeout != 500*time.Millisecond || st.Tiers != nil {
		t.Errorf("edge-only at api: %+v", st)
	}
	st, err = s.RetryStrategy("budgeted", "gateway", Overrides{})
	if err != nil || st.Budget == nil || st.Budget.Scope != clients.PerCohort {
		t.Errorf("budgeted at gateway: %+v, %v; want its budget shared by the proxy", st, err)
	}
	for _, c := range []struct{ name, tier, want string }{
		{"edge-only", "", "--retry edge-only: chain.yaml chains tiers, and each retries its own way: name the tier the proxy plays with --tier (gateway, api)"},
		{"edge-only", "service", "--tier service is the bottom tier of chain.yaml: it calls no other"},
		{"nope", "", "--retry nope: no strategy of chain.yaml nor preset of that name; its strategies: every-tier, edge-only, budgeted; presets: "},
	} {
		if _, err := s.RetryStrategy(c.name, c.tier, Overrides{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("RetryStrategy(%q, %q): %v, want %q", c.name, c.tier, err, c.want)
		}
	}
	// A preset, in a file with no strategies: its budget shared by the proxy.
	bare, err := Parse("bare.yaml", []byte("name: bare\n"))
	if err != nil {
		t.Fatal(err)
	}
	st, err = bare.RetryStrategy("grpc", "", Overrides{})
	preset, _ := clients.FindPreset("grpc")
	if err != nil || st.Budget == nil || st.Budget.Kind != "grpc" || st.Budget.Scope != clients.PerCohort || st.MaxAttempts != preset.MaxAttempts {
		t.Errorf("preset grpc: %+v, %v", st, err)
	}
}

// TestRetryStrategyIdempotency: the strategy a retrying proxy runs says
// whether it retries a POST or PATCH without an idempotency key, as the
// swarm's would: a scenario's strategy as written (no, by default), a
// preset as its design does, a tier as the engine's tiers retry their
// calls (yes, unless the tier says otherwise); and which failures it
// retries, a preset's included.
func TestRetryStrategyIdempotency(t *testing.T) {
	s, err := Parse("p.yaml", []byte(`name: p
strategies:
  - {name: plain, backoff: full}
  - {name: keyed, backoff: full, idempotency_header: X-Request-Id}
  - {name: any, backoff: full, retry_non_idempotent: true}
  - {name: finagle, preset: finagle-budget}
`))
	if err != nil {
		t.Fatal(err)
	}
	chain, err := Parse("chain.yaml", []byte(chainScenario))
	if err != nil {
		t.Fatal(err)
	}
	post := func(st *clients.Strategy, header string) bool {
		return st.MayRetry("POST", func(name string) bool { return strings.EqualFold(name, header) })
	}
	for _, c := range []struct {
		s           *Scenario
		name, tier  string
		bare, keyed bool   // a POST without a key, and with the strategy's
		header      string // the strategy's idempotency-key header
	}{
		{s, "plain", "", false, true, "Idempotency-Key"},
		{s, "keyed", "", false, true, "X-Request-Id"},
		{s, "any", "", true, true, "Idempotency-Key"},
		{s, "finagle-budget", "", false, true, "Idempotency-Key"},
		{s, "envoy", "", true, true, "Idempotency-Key"},
		{s, "botocore-standard", "", true, true, "Idempotency-Key"},
		{s, "sre", "", false, true, "Idempotency-Key"},
		{chain, "every-tier", "api", true, true, "Idempotency-Key"},
	} {
		st, err := c.s.RetryStrategy(c.name, c.tier, Overrides{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := post(st, "none"); got != c.bare {
			t.Errorf("%s: retries a POST without a key: %v, want %v", c.name, got, c.bare)
		}
		if got := post(st, c.header); got != c.keyed {
			t.Errorf("%s: retries a POST with %s: %v, want %v", c.name, c.header, got, c.keyed)
		}
		if !st.MayRetry("PUT", func(string) bool { return false }) {
			t.Errorf("%s: does not retry a PUT", c.name)
		}
	}
	// A preset's retry_on holds at the proxy too: finagle retries a 5xx,
	// not a timeout.
	st, err := s.RetryStrategy("finagle-budget", "", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !st.RetryOn.Retries(results.HTTP5xx, 503) || st.RetryOn.Retries(results.Timeout, 0) {
		t.Errorf("finagle at the proxy retries a 503: %v, a timeout: %v; want true, false", st.RetryOn.Retries(results.HTTP5xx, 503), st.RetryOn.Retries(results.Timeout, 0))
	}
}
