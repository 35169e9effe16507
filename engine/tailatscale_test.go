package engine

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// The documented scenarios of hedged requests (docs/scenarios), held to
// their shape in both engines: the real one over the in-memory network in
// a synctest bubble, shortened where its run would be long.

// docScenario opens docs/scenarios/name.yaml with o.
func docScenario(t *testing.T, name string, o scenarios.Overrides) *scenarios.Plan {
	t.Helper()
	op, err := scenarios.Open(filepath.Join("..", "docs", "scenarios", name+".yaml"), o)
	if err != nil {
		t.Fatal(err)
	}
	return op.Plans[0]
}

// bothEngines runs p in virtual time and in the real engine.
func bothEngines(t *testing.T, p *scenarios.Plan) map[string][]results.Run {
	t.Helper()
	return map[string][]results.Run{
		"simulator":   execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs,
		"real engine": runInBubble(t, p).Summary.Runs,
	}
}

// TestTailAtScaleShape: "The Tail at Scale"'s shape (a hedge after 10 ms
// cut the 99.9th percentile from 1,800 ms to 74 ms for about 2% more
// requests): against a heavy-tailed service, hedging after 10 ms cuts the
// requests' p99.9 at least fivefold for at most 6% more attempts, in both
// engines.
func TestTailAtScaleShape(t *testing.T) {
	p := docScenario(t, "tail-at-scale", scenarios.Overrides{Duration: 10 * time.Second, Clients: 100})
	for engine, runs := range bothEngines(t, p) {
		plain, hedged := runs[0], runs[1]
		pp, hp := figure(t, plain, "latency_ms.request.p999"), figure(t, hedged, "latency_ms.request.p999")
		extra := figure(t, hedged, "hedges") / float64(hedged.Requests)
		t.Logf("%s: p99.9 %.1f ms without hedging, %.1f ms with; %.1f%% more attempts", engine, pp, hp, 100*extra)
		if !(hp*5 <= pp) || extra > 0.06 || extra < 0.005 {
			t.Errorf("%s: p99.9 %.1f ms hedged against %.1f ms, for %.1f%% more attempts; want a cut of five times or more for 0.5%% to 6%%", engine, hp, pp, 100*extra)
		}
	}
}

// TestHedgeDoublesTheHerdInAnOutage: the harm a hedge does in an outage
// (docs/scenarios/hedge-outage.yaml): during the stall every request
// hangs past its hedge's delay, so the hedged cohort sends about twice the
// unhedged one's attempts into it, and the cold service after the crash
// gets more attempts, answers more of them with failures and recovers
// later, in both engines.
func TestHedgeDoublesTheHerdInAnOutage(t *testing.T) {
	p := docScenario(t, "hedge-outage", scenarios.Overrides{})
	out := map[string]folderRuns{}
	out["simulator"] = folderRuns{execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true, Timelines: true}})[0].Output.Cohorts}
	out["real engine"] = folderRuns{runInBubble(t, p).Cohorts}
	for engine, o := range out {
		stall := o.attempts(3*time.Second, 4500*time.Millisecond)
		after := o.attempts(6800*time.Millisecond, 11800*time.Millisecond)
		t.Logf("%s: attempts in the stall %v, in the cold start %v (full jitter, hedged)", engine, stall, after)
		if r := float64(stall[1]) / float64(stall[0]); r < 1.7 || r > 2.3 {
			t.Errorf("%s: the hedged cohort sent %d attempts into the stall, the unhedged %d: %.2f times, want about twice", engine, stall[1], stall[0], r)
		}
		if after[1] < after[0]*5/4 {
			t.Errorf("%s: into the cold start, hedged %d attempts against %d: want a quarter more or above", engine, after[1], after[0])
		}
	}
}

// folderRuns are a run's cohorts, for counting attempts on their timelines.
type folderRuns struct{ cohorts []results.Cohort }

// attempts returns each cohort's attempts sent in [from, to).
func (f folderRuns) attempts(from, to time.Duration) []int64 {
	out := make([]int64, len(f.cohorts))
	for i, c := range f.cohorts {
		tl := c.Rec.Timeline(results.Bucket)
		for b, row := range tl.Rows {
			if at := time.Duration(b) * tl.Resolution; at >= from && at < to {
				for o := results.Outcome(0); o < results.NumOutcomes; o++ {
					out[i] += row[o]
				}
			}
		}
	}
	return out
}
