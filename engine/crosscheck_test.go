package engine

import (
	"math"
	"testing"

	"github.com/herdbench/herdbench/scenarios"
)

// The cross-check runs one small scenario in both engines and compares
// their figures. The simulator's figures are exact for its seed; the real
// engine's vary from run to run (the order of near-simultaneous events on
// real sockets, timer and scheduling delays on a busy machine), so the
// tolerances are set from the spread measured over repeated real runs and
// leave room for a loaded 2-core machine (documented with each check).

func within(t *testing.T, what string, real, sim, tol float64) {
	t.Helper()
	t.Logf("%s: real %.2f, sim %.2f", what, real, sim)
	if math.Abs(real/sim-1) > tol {
		t.Errorf("%s: real %.2f, sim %.2f: more than %.0f%% apart", what, real, sim, 100*tol)
	}
}

// TestCrossCheckOCC: AWS's contention experiment at N = 10 (no backoff and
// full jitter). Over 100 runs the calls have a standard deviation of about
// 8% (none) and 6% (full) of their mean, so the mean of 4 real runs lies
// within 4% or 3% (one sd) of the model's; 20% is five sds, room for a
// systematic difference only if the engines disagree.
func TestCrossCheckOCC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engine")
	}
	ps := plans(t, "aws-contention", "", scenarios.Overrides{Strategies: []string{"none", "full"}}, 10)
	sim := execute(t, ps, Options{Sim: true, Runs: 200})[0]
	real := execute(t, ps, Options{Runs: 4})[0]
	if real.Output.Summary.Mode != "real" || real.Output.Summary.Partial {
		t.Fatalf("real summary: mode %q, partial %v", real.Output.Summary.Mode, real.Output.Summary.Partial)
	}
	for _, strategy := range []string{"none", "full"} {
		within(t, strategy+" mean calls", stat(t, real, strategy, "calls").Mean, stat(t, sim, strategy, "calls").Mean, 0.20)
		if s := stat(t, real, strategy, "succeeded"); s.Mean != 10 {
			t.Errorf("%s: %v clients succeeded, want all 10", strategy, s.Mean)
		}
	}
	// Without backoff the completion time is tight (sd 10% of the mean).
	within(t, "none mean completion_s", stat(t, real, "none", "completion_s").Mean, stat(t, sim, "none", "completion_s").Mean, 0.25)
}

// TestCrossCheckCapacity: a plain target with slots, a queue, a network
// delay and a 503 outage, under a closed workload with full jitter. The
// counts come from about 600 requests; between real runs they vary by a
// few percent.
func TestCrossCheckCapacity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engine")
	}
	ps := plans(t, "cross.yaml", `
name: cross
duration: 2s
seed: 5
network: {delay: 2ms}
target: {concurrency: 4, queue: 8, queue_timeout: 100ms, service_time: 5ms}
chaos: [{kind: outage, at: 700ms, for: 500ms}]
workload: {kind: closed, clients: 20, think: exponential(50ms)}
strategies: [{name: full, backoff: full, base: 50ms, cap: 1s, max_attempts: 4, timeout: 1s}]
`, scenarios.Overrides{})
	sim := execute(t, ps, Options{Sim: true, Runs: 20})[0]
	real := execute(t, ps, Options{Runs: 2})[0]
	for _, m := range []string{"requests", "attempts", "amplification", "success_ratio"} {
		within(t, m, stat(t, real, "full", m).Mean, stat(t, sim, "full", m).Mean, 0.20)
	}
}
