package drive

import (
	"context"
	"testing"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/sim"
)

// The replay of Huang et al.'s retry rig (OSDI 2022, the artifact's
// Retry_Metastability; docs/cliff.md says what the analogue models
// differently), with its acceptance bands:
//   - the cliff search over the trigger's length puts the edge between
//     9 and 10 s (the paper: 9 s recovers, 10 s stays stuck), and the
//     edge is sharp: every seed recovers at 8.5 s and every one
//     collapses at 10.5 s;
//   - a milder cut (22.5% of capacity left, the paper's baseline) and a
//     25% lower rate (its reduced load) each recover from a 10 s trigger,
//     every seed.
//
// The arrival rate is the analogue's one calibrated parameter, set as the
// authors tuned theirs (their README): the shape around it is the model's.
const huangRig = "../../examples/huang-retry.yaml"

func TestHuangRetryReplay(t *testing.T) {
	if underRace {
		t.Skip("the replay is the model's figures, one goroutine per run: without -race only")
	}
	op, _ := open(t, huangRig, 7)
	x, err := cliff.ParseAxis("chaos[cpu].for=1s..20s/0.5s")
	if err != nil {
		t.Fatal(err)
	}
	sp := cliff.Spec{X: x, Strategies: []string{"rig"}, Seeds: 8, MaxSeeds: 8}
	rs, err := (&Search{Scenario: op, Spec: sp}).Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := cliff.Summarize(sp, rs).Strategies[0].Lines[0]
	t.Logf("edge %v s, 95%% interval %v to %v s, every seed recovers up to %v s, collapses from %v s", b.Median, b.Low, b.High, deref(b.Safe), deref(b.Doomed))
	if !b.Found || b.Median < 9 || b.Median > 10 {
		t.Errorf("the edge at %v s, not between 9 and 10 s", b.Median)
	}
	if b.Safe == nil || *b.Safe < 8.5 || b.Doomed == nil || *b.Doomed > 10.5 {
		t.Errorf("the edge is not sharp: every seed recovers up to %v s, every one collapses from %v s", deref(b.Safe), deref(b.Doomed))
	}
	for _, c := range []struct{ what, set string }{
		{"a milder cut (22.5% left)", "chaos[cpu].capacity=0.225"},
		{"a 25% lower rate", "workload.rate=278"},
	} {
		op, fixed := open(t, huangRig, 7, c.set, "chaos[cpu].for=10s")
		p, err := Compile(op, fixed)
		if err != nil {
			t.Fatal(err)
		}
		for rep := range 8 {
			cr := engine.NewCohortRun(p, 0, rep)
			res := sim.New().Run(cr.Cohort, cr.Rec)
			w := engine.Window(p)
			if run := cr.Summarize(res, cr.Rec, cr.Below, w); Collapsed(p, 0, w, run.RecoveryS) {
				t.Errorf("%s, a 10 s trigger: seed %d collapses", c.what, rep)
			}
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
