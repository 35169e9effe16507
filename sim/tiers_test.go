package sim_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"github.com/herdbench/herdbench/sim"
)

// chain is a simulated cohort of a chain of tiers: what each level
// recorded (levels[0] the attempts that reached the first tier, levels[k]
// those that reached tier k) and the run's result.
type chain struct {
	res    sim.Result
	levels []*results.Recorder
	runs   []results.Run
}

// simulateChain compiles a scenario with tiers and simulates its cohort
// strategy with the scenario's seed.
func simulateChain(t *testing.T, yaml, strategy string) chain {
	t.Helper()
	p := scenariotest.Plan(t, yaml, scenarios.Overrides{})
	co := cohortOf(p, strategy, p.Seed)
	var c chain
	for range p.Tiers {
		c.levels = append(c.levels, results.NewRecorder(p.Duration, 1))
	}
	for _, tier := range p.Tiers {
		co.Tiers = append(co.Tiers, sim.Tier{Target: tier.Target, Chaos: tier.Chaos})
	}
	co.Below = c.levels[1:]
	c.res = sim.New().Run(co, c.levels[0])
	for _, rec := range c.levels {
		c.runs = append(c.runs, results.Summarize(results.Cohort{Strategy: strategy, Rec: rec}, results.Window{}))
	}
	return c
}

// TestAmplificationMultiplies: three tiers, each caller (the clients, the
// gateway, the api) making up to 4 attempts, and a service that fails
// every one: each user request puts exactly 4, 16 and 64 attempts on the
// tiers, as the SRE book computes (4^3 at the bottom).
func TestAmplificationMultiplies(t *testing.T) {
	const users = 25
	c := simulateChain(t, `name: t
duration: 20s
seed: 1
tiers:
  - {name: gateway, concurrency: 10000, queue: 0, service_time: 0s}
  - {name: api, concurrency: 10000, queue: 0, service_time: 1ms}
  - {name: service, concurrency: 10000, service_time: 1ms}
chaos: [{kind: outage, mode: "503", at: 0s, for: 20s}]
network: {delay: 1ms}
workload: {kind: oneshot, clients: 25}
strategies: [{name: every-tier, backoff: constant, base: 10ms, max_attempts: 4, timeout: 10s}]
`, "every-tier")
	for k, want := range []struct{ requests, attempts int64 }{{users, 4 * users}, {4 * users, 16 * users}, {16 * users, 64 * users}} {
		r := c.runs[k]
		if r.Requests != want.requests || r.Attempts != want.attempts || r.Failed != want.requests || r.Succeeded != 0 {
			t.Errorf("tier %d: %d requests (%d failed, %d succeeded), %d attempts; want %d requests, all failed, and %d attempts", k, r.Requests, r.Failed, r.Succeeded, r.Attempts, want.requests, want.attempts)
		}
	}
	if got := c.runs[2].Attempts / c.runs[0].Requests; got != 64 {
		t.Errorf("attempts at the bottom per user request: %d, want 4^3 = 64", got)
	}
	if o := c.runs[2].Outcomes; o["http_5xx"] != 64*users {
		t.Errorf("the service's answers: %v, want 1600 × 503", o)
	}
	if o := c.runs[0].Outcomes; o["http_5xx"] != 4*users {
		t.Errorf("the gateway's answers: %v, want 503 for every attempt (its call gave up)", o)
	}
}

// TestOneTierIsTheSingleTarget: a chain of one tier is the single target,
// event for event: the same records, bit for bit.
func TestOneTierIsTheSingleTarget(t *testing.T) {
	_, rec, run := simulate(t, outageYAML)
	one := strings.Replace(outageYAML, "target: {", "tiers:\n  - {name: service, ", 1)
	if one == outageYAML {
		t.Fatal("the scenario has no target to replace")
	}
	c := simulateChain(t, one, "c")
	c.runs[0].Strategy = run.Strategy
	single, err := json.Marshal([]any{run, rec.Timeline(results.Bucket).Rows})
	if err != nil {
		t.Fatal(err)
	}
	chained, err := json.Marshal([]any{c.runs[0], c.levels[0].Timeline(results.Bucket).Rows})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(single, chained) {
		t.Fatalf("one tier differs from the single target:\n%s\n%s", single[:200], chained[:200])
	}
	if run.Attempts < 1000 {
		t.Fatalf("%d attempts: the scenario should be busy", run.Attempts)
	}
}

// TestCallerGoingAwayCancelsTheCallBelow: the service hangs; the gateway
// calls it without a timeout of its own, but each client's attempt times
// out after 100 ms, and with it goes the gateway's call: the gateway's
// single slot is free again for the next attempt, which times out in its
// turn rather than being refused, and the gateway's calls are recorded
// as timeouts.
func TestCallerGoingAwayCancelsTheCallBelow(t *testing.T) {
	c := simulateChain(t, `name: t
duration: 5s
seed: 1
tiers:
  - {name: gateway, concurrency: 1, queue: 0, service_time: 0s}
  - {name: service, concurrency: 100, service_time: 1ms}
chaos: [{kind: blip, mode: blackhole, at: 0s, for: 5s}]
workload: {kind: oneshot, clients: 1}
strategies:
  - name: s
    backoff: constant
    base: 50ms
    max_attempts: 3
    timeout: 100ms
    tiers: {gateway: {timeout: 0s, max_attempts: 1}}
`, "s")
	wantOutcomes(t, c.runs[0], map[string]int64{"timeout": 3})
	wantOutcomes(t, c.runs[1], map[string]int64{"timeout": 3})
	if r := c.runs[1]; r.Requests != 3 || r.Failed != 3 || !near(r.LatencyMS.Attempt.Max, 100) {
		t.Errorf("the gateway's calls: %d requests, %d failed, longest attempt %v ms; want 3, 3, 100 (cancelled with their caller)", r.Requests, r.Failed, r.LatencyMS.Attempt.Max)
	}
	if g := c.res.Tiers[0]; g.Rejected != 0 || g.Wasted != 3 {
		t.Errorf("the gateway: %+v; want no request refused (each slot freed when its caller left) and 3 served after their caller left", g)
	}
}

// TestCrashOfAMiddleTier: when the gateway crashes, the attempts in it
// are reset and its calls to the service, hanging there, die with it.
func TestCrashOfAMiddleTier(t *testing.T) {
	c := simulateChain(t, `name: t
duration: 3s
seed: 1
tiers:
  - {name: gateway, concurrency: 100, service_time: 0s}
  - {name: service, concurrency: 100, service_time: 1ms}
chaos:
  - {kind: blip, mode: blackhole, at: 0s, for: 3s}
  - {kind: outage, mode: reset, at: 500ms, for: 100ms, tier: gateway}
workload: {kind: oneshot, clients: 20}
strategies:
  - name: s
    backoff: constant
    base: 2s
    max_attempts: 2
    timeout: 1s
`, "s")
	wantOutcomes(t, c.runs[0], map[string]int64{"reset": 20})
	wantOutcomes(t, c.runs[1], map[string]int64{"timeout": 20})
	if r := c.runs[1]; !near(r.LatencyMS.Attempt.Max, 500) || r.Failed != 20 {
		t.Errorf("the gateway's calls: longest %v ms, %d failed; want each cut at the crash, 500 ms in", r.LatencyMS.Attempt.Max, r.Failed)
	}
	if c.res.Tiers[0].Crashed != 20 || c.res.Tiers[1].Crashed != 0 {
		t.Errorf("crashes: %+v", c.res.Tiers)
	}
}

// TestChainDeterministic: a busy chain with faults at two tiers and a
// budget at every tier gives the same records, bit for bit, every time.
func TestChainDeterministic(t *testing.T) {
	const yaml = `name: t
duration: 6s
seed: 5
network: {delay: "normal(1ms, 300us)"}
tiers:
  - {name: gateway, concurrency: 50, queue: 50, queue_timeout: 200ms, service_time: exponential(1ms)}
  - {name: service, concurrency: 8, queue: 20, queue_timeout: 300ms, service_time: exponential(10ms), cold_start: {from: 0.2, ramp: 1s}}
chaos:
  - {kind: outage, mode: reset, at: 1.5s, for: 500ms}
  - {kind: blip, delay: 30ms, at: 3s, for: 1s, tier: gateway}
  - {kind: error-rate, rate: 0.2, at: 4s, for: 1s}
workload: {kind: closed, clients: 200, think: exponential(200ms)}
strategies:
  - {name: s, backoff: full, base: 50ms, cap: 2s, max_attempts: 4, timeout: 400ms, budget: {kind: sre}}
`
	var prev []byte
	for i := 0; i < 2; i++ {
		c := simulateChain(t, yaml, "s")
		b, err := json.Marshal([]any{c.res, c.runs, c.levels[1].Timeline(results.Bucket).Rows})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && !bytes.Equal(b, prev) {
			t.Fatal("two runs with one seed differ")
		}
		prev = b
		if c.runs[1].Attempts < c.runs[0].Attempts || c.runs[1].BudgetDenied == 0 || c.res.Tiers[1].Crashed == 0 {
			t.Fatalf("the chain should retry at the gateway, with its budget denying some: %+v", c.runs[1])
		}
	}
}

// TestChainNoAllocationPerEvent: calls reuse the slab's slots, so a longer
// run of a chain allocates hardly more than a shorter one.
func TestChainNoAllocationPerEvent(t *testing.T) {
	const src = `name: t
duration: 20s
tiers:
  - {name: gateway, concurrency: 100, service_time: exponential(1ms)}
  - {name: service, concurrency: 16, queue: 100, service_time: exponential(10ms)}
chaos: [{kind: outage, mode: reset, at: 3s, for: 2s}]
network: {delay: 1ms}
workload: {clients: 200, think: exponential(1s)}
strategies: [{name: s, backoff: full, base: 100ms, max_attempts: 4, timeout: 1s}]
`
	long := scenariotest.Plan(t, src, scenarios.Overrides{})
	short := scenariotest.Plan(t, src, scenarios.Overrides{Duration: 6 * time.Second})
	s := sim.New()
	allocs := func(p *scenarios.Plan) (float64, uint64) {
		rec := results.NewRecorder(p.Duration, 1).WithoutIntervals()
		below := results.NewRecorder(p.Duration, 1).WithoutIntervals()
		var events uint64
		a := testing.AllocsPerRun(3, func() {
			rec.Reset()
			below.Reset()
			co := cohortOf(p, "s", 1)
			co.Tiers = []sim.Tier{{Target: p.Tiers[0].Target, Chaos: p.Tiers[0].Chaos}, {Target: p.Tiers[1].Target, Chaos: p.Tiers[1].Chaos}}
			co.Below = []*results.Recorder{below}
			events = s.Run(co, rec).Events
		})
		return a, events
	}
	a6, e6 := allocs(short)
	a20, e20 := allocs(long)
	if e20 < 2*e6 {
		t.Fatalf("events %d and %d: the long run should have far more", e6, e20)
	}
	if (a20 - a6) > float64(e20-e6)/50 {
		t.Fatalf("%v allocations for %d events, %v for %d: allocation per event", a20, e20, a6, e6)
	}
}

// near reports whether ms, read from an HDR histogram (3 significant
// figures), is want.
func near(ms, want float64) bool { return ms >= want*0.999 && ms <= want*1.001 }
