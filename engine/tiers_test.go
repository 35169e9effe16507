package engine

import (
	"math"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// multiplyScenario: three tiers, each caller making up to 4 attempts, and
// a service that fails every one.
const multiplyScenario = `name: multiply
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
`

// TestAmplificationMultipliesInBothEngines: 3 tiers × 4 attempts put
// exactly 4^3 = 64 attempts on the bottom tier per user request, in
// virtual time and through the real HTTP servers and relays (over an
// in-memory network, in a synctest bubble).
func TestAmplificationMultipliesInBothEngines(t *testing.T) {
	ps := []*scenarios.Plan{scenariotest.Plan(t, multiplyScenario, scenarios.Overrides{})}
	for _, engine := range []struct {
		name string
		run  func() Point
	}{
		{"virtual time", func() Point { return execute(t, ps, Options{Mode: Mode{Sim: true}})[0] }},
		{"real time", func() Point { return executeInBubble(t, ps, Options{Mode: Mode{NoSimReference: true}})[0] }},
	} {
		t.Run(engine.name, func(t *testing.T) {
			r := engine.run().Output.Summary.Runs[0]
			if len(r.Tiers) != 3 {
				t.Fatalf("%d tiers", len(r.Tiers))
			}
			for k, want := range []struct {
				tier          string
				attempts      int64
				amplification float64
			}{{"gateway", 100, 4}, {"api", 400, 16}, {"service", 1600, 64}} {
				got := r.Tiers[k]
				if got.Tier != want.tier || got.Attempts != want.attempts || got.Amplification != want.amplification || got.Succeeded != 0 {
					t.Errorf("tier %d: %s, %d attempts, %v per user request, %d succeeded; want %s, %d, %v, none",
						k, got.Tier, got.Attempts, got.Amplification, got.Succeeded, want.tier, want.attempts, want.amplification)
				}
			}
			if r.Requests != 25 || r.Failed != 25 || r.Attempts != 100 {
				t.Errorf("the cohort: %d requests, %d failed, %d attempts", r.Requests, r.Failed, r.Attempts)
			}
		})
	}
}

// chainScenario is a chain with faults at two tiers, busy enough that
// every tier retries.
const chainScenario = `name: chain
duration: 4s
seed: 7
network: {delay: 1ms}
tiers:
  - {name: gateway, concurrency: 40, queue: 40, queue_timeout: 200ms, service_time: exponential(1ms)}
  - {name: service, concurrency: 4, queue: 10, queue_timeout: 100ms, service_time: exponential(5ms)}
chaos:
  - {name: crash, kind: outage, mode: reset, at: 1s, for: 500ms}
  - {name: slow, kind: blip, delay: 20ms, at: 2.5s, for: 500ms, tier: gateway}
workload: {kind: closed, clients: 30, think: exponential(50ms)}
strategies:
  - {name: every-tier, backoff: full, base: 20ms, cap: 500ms, max_attempts: 4, timeout: 1s}
  - name: edge-only
    backoff: full
    base: 20ms
    cap: 500ms
    max_attempts: 4
    timeout: 1s
    tiers: {gateway: {max_attempts: 1}}
`

// TestChainCrossCheck: a chain in the real engine (over an in-memory
// network, in virtual time) agrees with the simulator within the
// cross-checks' band, on the cohort's figures and on the attempts that
// reached the bottom tier per user request.
func TestChainCrossCheck(t *testing.T) {
	heavy(t, "the real engine through a chain of tiers")
	ps := []*scenarios.Plan{scenariotest.Plan(t, chainScenario, scenarios.Overrides{})}
	crossCheck(t, ps, 4, "requests", "attempts", "amplification", "success_ratio")
	sim := execute(t, ps, Options{Mode: Mode{Sim: true, Runs: 100}})[0]
	real := executeInBubble(t, ps, Options{Mode: Mode{Runs: 4, NoSimReference: true}})[0]
	for i, r := range real.Output.Summary.Runs {
		agree(t, r.Strategy+" bottom tier's amplification", bottomStat(real, i), bottomStat(sim, i), 4, 0.02)
	}
	// The gateway's own retries show: more attempts reach the service than
	// the gateway received.
	if b, a := bottomStat(sim, 0).Mean, stat(t, sim, "every-tier", "amplification").Mean; b < 1.1*a {
		t.Errorf("every-tier: %.3f attempts per user request at the service, %.3f at the gateway: the scenario should make the gateway retry", b, a)
	}
}

// bottomStat returns the statistics of cohort i's bottom tier's
// amplification over p's repetitions.
func bottomStat(p Point, i int) results.Stat {
	values := make([]*float64, len(p.Repetitions[i]))
	for k, r := range p.Repetitions[i] {
		v := r.Bottom().Amplification
		values[k] = &v
	}
	return results.StatOf(values)
}

// TestLayersInTheRealEngine: the built-in layers tells its story through
// the real HTTP servers, relays and swarm (over an in-memory network, in
// virtual time), as in the simulator.
func TestLayersInTheRealEngine(t *testing.T) {
	heavy(t, "the real engine through a collapse")
	began := time.Now()
	s := executeInBubble(t, plans(t, "layers", "", scenarios.Overrides{}), Options{Mode: Mode{NoSimReference: true}})[0].Output.Summary
	claims, _ := scenarios.Headline("layers", s)
	for _, c := range claims {
		t.Logf("%s: %s", c.Text, c.Figure)
		if !c.Holds {
			t.Errorf("%s: %s", c.Text, c.Figure)
		}
	}
	t.Logf("layers in %s", time.Since(began).Round(time.Millisecond))
	if math.IsNaN(claims[0].Value) {
		t.Fatal("no figures")
	}
}
