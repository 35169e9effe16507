package engine

import (
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// Brooker's collapse model, its trigger a second longer than his so that
// it always tips (80 a second for 6 s; for 5 s it tips in most runs): a target whose service time grows
// with its concurrency (contention) and an open workload's surge collapse
// the server for good without backoff, and not with backoff and jitter,
// in both engines, each serving the one model; the surge is the window the
// figures measure from.
func TestContentionCollapsesInBothEngines(t *testing.T) {
	p := scenariotest.Plan(t, `name: collapse
duration: 60s
seed: 3
network: {delay: exponential(100ms)}
target: {concurrency: 1000000, queue: 0, service_time: 1s, contention: 10ms}
workload:
  kind: open
  rate: 40
  surges: [{at: 10s, for: 6s, rate: 80}]
strategies:
  - {name: no-backoff, backoff: none, max_attempts: 3, timeout: 3s}
  - {name: backoff-and-jitter, backoff: full, base: 20s, cap: 1h, max_attempts: 3, timeout: 3s}
`, scenarios.Overrides{})
	for _, c := range []struct {
		engine string
		s      *results.Summary
	}{
		{"simulator", execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary},
		{"real engine", executeInBubble(t, []*scenarios.Plan{p}, Options{Mode: Mode{NoSimReference: true}})[0].Output.Summary},
	} {
		if len(c.s.Faults) != 1 || c.s.Faults[0].Kind != "surge" || c.s.Faults[0].AtS != 10 || c.s.Faults[0].ForS != 6 {
			t.Errorf("%s: faults %+v; want the surge, 10 s for 6 s", c.engine, c.s.Faults)
		}
		plain, jittered := c.s.Runs[0], c.s.Runs[1]
		t.Logf("%s: no backoff: success %.3f, recovery %v, wasted %d; backoff and jitter: success %.3f, recovery %v",
			c.engine, *plain.SuccessRatio, ptrText(plain.RecoveryS), plain.WastedWork, *jittered.SuccessRatio, ptrText(jittered.RecoveryS))
		// Never recovered within the run, but for its last 3 s, where no
		// attempt has timed out yet.
		if plain.RecoveryS != nil && *plain.RecoveryS < 40 || *plain.SuccessRatio > 0.5 || plain.WastedWork < 1000 {
			t.Errorf("%s: without backoff the server recovered (success %.3f, recovery %v, wasted work %d)", c.engine, *plain.SuccessRatio, ptrText(plain.RecoveryS), plain.WastedWork)
		}
		if jittered.RecoveryS == nil || *jittered.RecoveryS > 10 || *jittered.SuccessRatio < 0.95 {
			t.Errorf("%s: with backoff and jitter it did not recover (success %.3f, recovery %v)", c.engine, *jittered.SuccessRatio, ptrText(jittered.RecoveryS))
		}
	}
}

func ptrText(v *float64) any {
	if v == nil {
		return "never"
	}
	return *v
}
