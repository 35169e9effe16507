package engine

import (
	"maps"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// hedgedScenario is one closed-loop client of a hedging strategy (a hedge
// after 10 ms) against a service whose time is lognormal, a third of its
// requests over 10 ms: the primary and the hedge race, and each wins
// some. The service's draws are taken in the order its jobs start, the
// same in both engines with one client.
const hedgedScenario = `
name: hedged
duration: 3s
seed: 7
target: {concurrency: 8, queue: 8, queue_timeout: 2s, service_time: "lognormal(5ms, 1)"}
workload: {kind: closed, clients: 1, think: exponential(5ms)}
strategies:
  - {name: hedged, backoff: constant, base: 20ms, max_attempts: 3, timeout: 1s, hedge: {delay: 10ms, max: 1}}
`

// TestHedgedOnEveryWire: hedged requests through the step function, the
// one real-time driver and the simulator, over every wire: each wire
// sends the attempts, hedges and winning hedges the simulator does, with
// the same outcomes and requests.
func TestHedgedOnEveryWire(t *testing.T) {
	for _, w := range answerWires {
		t.Run(w.name, func(t *testing.T) {
			p := scenariotest.Plan(t, w.edit(hedgedScenario), scenarios.Overrides{})
			sim := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs[0]
			real := runInBubble(t, p).Summary.Runs[0]
			hedges, won := figure(t, sim, "hedges"), figure(t, sim, "hedges_won")
			t.Logf("%s: %d attempts, %d requests, %v hedges, %v won", w.name, real.Attempts, real.Requests, hedges, won)
			if hedges < 20 || won < 5 || won >= hedges {
				t.Fatalf("the simulator: %v hedges, %v won; want tens of hedges, some of which won", hedges, won)
			}
			if real.Attempts != sim.Attempts || !maps.Equal(real.Outcomes, sim.Outcomes) || real.Requests != sim.Requests ||
				figure(t, real, "hedges") != hedges || figure(t, real, "hedges_won") != won {
				t.Errorf("%s: %d attempts %v, %d requests, %v hedges, %v won; the simulator: %d %v, %d, %v, %v", w.name,
					real.Attempts, real.Outcomes, real.Requests, figure(t, real, "hedges"), figure(t, real, "hedges_won"),
					sim.Attempts, sim.Outcomes, sim.Requests, hedges, won)
			}
		})
	}
}

// figure is a run's figure by its metric's name; the test fails without it.
func figure(t *testing.T, r results.Run, name string) float64 {
	t.Helper()
	m, ok := results.LookupMetric(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	v, ok := m.Value(&r)
	if !ok {
		t.Fatalf("%s: no %s", r.Strategy, name)
	}
	return v
}
