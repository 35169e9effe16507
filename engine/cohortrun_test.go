package engine

import (
	"encoding/json"
	"testing"

	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
)

// TestCohortRunIsExecutes: a CohortRun's figures are those Execute gives
// the same point's repetition, on a single target and on a chain of
// tiers: what the cliff search finds is what a --set sweep finds.
func TestCohortRunIsExecutes(t *testing.T) {
	for _, name := range []string{"metastable", "layers"} {
		op, err := scenarios.Open(name, scenarios.Overrides{Seed: new(uint64(7))})
		if err != nil {
			t.Fatal(err)
		}
		p := op.Plans[0]
		pts := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true, Runs: 3}})
		for _, strategy := range []int{0, 1} {
			c := NewCohortRun(p, strategy, 2)
			res := sim.New().Run(c.Cohort, c.Rec)
			got, _ := json.Marshal(c.Summarize(res, c.Rec, c.Below, Window(p)))
			want, _ := json.Marshal(pts[0].Repetitions[strategy][2])
			if string(got) != string(want) {
				t.Errorf("%s, strategy %d, rep 2:\n%s\nExecute's:\n%s", name, strategy, got, want)
			}
		}
	}
}
