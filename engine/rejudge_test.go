package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// kept returns what a results folder keeps of pt: its summary as
// summary.json has it (rounded) and each cohort's attempts per 10 ms.
func kept(t *testing.T, p *scenarios.Plan, pt Point, timelines bool) Kept {
	t.Helper()
	data, err := folder.EncodeSummary(pt.Output.Summary)
	if err != nil {
		t.Fatal(err)
	}
	s, err := folder.DecodeSummary(data)
	if err != nil {
		t.Fatal(err)
	}
	k := Kept{Plan: p, Summary: s}
	if timelines {
		k.Attempts = map[string][]int64{}
		for _, c := range pt.Output.Cohorts {
			k.Attempts[c.Strategy] = c.Rec.Timeline(results.Bucket).Attempts()
		}
	}
	return k
}

// A real run judged again from what its results folder keeps gets its own
// verdict back: on time (nothing approximate, the same sentence), and
// with a harness late by 0 to 21 ms (the same outcome, the model's
// lateness said to be approximate); a sweep's point, which keeps no
// timeline, too. A plan that is not the one that ran is refused.
func TestRejudgeGivesAKeptRunItsVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engine in a bubble")
	}
	p := scenariotest.Plan(t, lateCrash, scenarios.Overrides{})
	for _, c := range []struct {
		name string
		late time.Duration // the step of the lateness, 0 to 7 steps
	}{{"on time", 0}, {"late", 3 * time.Millisecond}} {
		o := Options{Mode: Mode{Timelines: true}}
		if c.late > 0 {
			var n atomic.Int64
			o.BeforeSend = func() { time.Sleep(time.Duration(n.Add(1)%8) * c.late) }
		}
		pt := executeInBubble(t, []*scenarios.Plan{p}, o)[0]
		was := pt.Output.Summary.Verdict
		for _, timelines := range []bool{true, false} {
			v, approx, err := Rejudge(context.Background(), kept(t, p, pt, timelines))
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			t.Logf("%s (timelines %v): %s; approximate: %v", c.name, timelines, v.Sentence, approx)
			if v.Outcome != was.Outcome {
				t.Errorf("%s (timelines %v): judged again %s (%s), the run's own %s (%s)", c.name, timelines, v.Outcome, v.Sentence, was.Outcome, was.Sentence)
			}
			if c.late == 0 && timelines && (v.Sentence != was.Sentence || len(approx) > 0) {
				t.Errorf("on time: %q (approximate: %v), want the run's own %q, nothing approximate", v.Sentence, approx, was.Sentence)
			}
			if (c.late > 0 || !timelines) != (len(approx) > 0) {
				t.Errorf("%s (timelines %v): approximate %v", c.name, timelines, approx)
			}
		}
	}
	seed := uint64(4)
	other := scenariotest.Plan(t, lateCrash, scenarios.Overrides{Seed: &seed})
	pt := executeInBubble(t, []*scenarios.Plan{p}, Options{Mode: Mode{Timelines: true}})[0]
	if _, _, err := Rejudge(context.Background(), kept(t, other, pt, true)); !errors.Is(err, ErrNotReproduced) {
		t.Errorf("another seed's plan: %v, want ErrNotReproduced", err)
	}
}
