package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// fakeDriver runs no clients: each unit leaves one run per cohort whose
// attempts name it (point*100 + rep*10 + cohort), and the driver logs the
// units in the order they start.
type fakeDriver struct {
	all, cancelled bool // together(), startsCancelled()
	n              int  // workers()
	// at, if set, is called as each unit runs, and may change its outcome.
	at func(ctx context.Context, u unit, oc *outcome)

	mu  sync.Mutex
	log []string
}

func (d *fakeDriver) together(*scenarios.Plan) bool { return d.all }
func (d *fakeDriver) workers() int                  { return d.n }
func (d *fakeDriver) startsCancelled() bool         { return d.cancelled }
func (d *fakeDriver) newRunner() runner             { return d }

func (d *fakeDriver) run(ctx context.Context, p *scenarios.Plan, u unit, keep bool) (outcome, error) {
	d.mu.Lock()
	d.log = append(d.log, fmt.Sprintf("%d/%d/%v", u.point, u.rep, u.cohorts))
	d.mu.Unlock()
	var oc outcome
	for _, ci := range u.cohorts {
		oc.runs = append(oc.runs, results.Run{Strategy: p.Strategies[ci].Name, Attempts: int64(u.point*100 + u.rep*10 + ci)})
		if keep {
			oc.cohorts = append(oc.cohorts, results.Cohort{Strategy: p.Strategies[ci].Name})
		}
	}
	if d.at != nil {
		d.at(ctx, u, &oc)
	}
	return oc, nil
}

// fakePlans returns n plans of two cohorts, a and b.
func fakePlans(n int) []*scenarios.Plan {
	var out []*scenarios.Plan
	for i := range n {
		out = append(out, &scenarios.Plan{Name: fmt.Sprint("p", i), Seed: 1, Duration: time.Second,
			Strategies: []clients.Strategy{{Name: "a"}, {Name: "b"}}})
	}
	return out
}

// attempts lists what each slot of sc holds (-1: never ran).
func attempts(sc []scheduled) [][]int64 {
	var out [][]int64
	for _, p := range sc {
		var row []int64
		for _, rep := range p.got {
			for _, oc := range rep {
				if oc == nil {
					row = append(row, -1)
					continue
				}
				for _, r := range oc.runs {
					row = append(row, r.Attempts)
				}
			}
		}
		out = append(out, row)
	}
	return out
}

// One worker runs the units in the order point, repetition, cohort: one
// unit per cohort, or one per repetition when the driver runs cohorts
// together; OnDone counts every cohort run.
func TestScheduleOrder(t *testing.T) {
	for _, c := range []struct {
		all  bool
		want []string
	}{
		{false, []string{"0/0/[0]", "0/0/[1]", "0/1/[0]", "0/1/[1]", "1/0/[0]", "1/0/[1]", "1/1/[0]", "1/1/[1]"}},
		{true, []string{"0/0/[0 1]", "0/1/[0 1]", "1/0/[0 1]", "1/1/[0 1]"}},
	} {
		d := &fakeDriver{all: c.all, n: 1}
		var done []int
		o := Options{Mode: Mode{Runs: 2}, Watch: Watch{OnDone: func(n, total int) {
			if total != 8 {
				t.Errorf("OnDone total %d, want 2 points × 2 reps × 2 cohorts", total)
			}
			done = append(done, n)
		}}}
		sc, err := schedule(context.Background(), d, fakePlans(2), o, func(int) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d.log, c.want) {
			t.Errorf("together %v: ran %v, want %v", c.all, d.log, c.want)
		}
		if done[len(done)-1] != 8 {
			t.Errorf("together %v: OnDone saw %v, want it to reach 8", c.all, done)
		}
		want := [][]int64{{0, 1, 10, 11}, {100, 101, 110, 111}}
		if got := attempts(sc); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("together %v: slots %v, want %v", c.all, got, want)
		}
	}
}

// N workers fill the same slots as one, and the points assembled from
// them are the same, whatever ran first.
func TestScheduleWorkersSameResults(t *testing.T) {
	plans := fakePlans(3)
	o := Options{Mode: Mode{Runs: 3, Timelines: true}}
	keep := func(rep int) bool { return rep == 0 }
	one, err := schedule(context.Background(), &fakeDriver{n: 1}, plans, o, keep)
	if err != nil {
		t.Fatal(err)
	}
	d := &fakeDriver{n: 4, at: func(_ context.Context, u unit, _ *outcome) {
		for range (u.point + u.rep + u.cohorts[0]) % 3 * 1000 {
			runtime.Gosched() // let the other workers finish first
		}
	}}
	many, err := schedule(context.Background(), d, plans, o, keep)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := attempts(one), attempts(many); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Fatalf("1 worker: %v\n4 workers: %v", a, b)
	}
	for i, p := range plans {
		a := assemble(p, o, "sim", time.Time{}, &one[i], nil, nil)
		b := assemble(p, o, "sim", time.Time{}, &many[i], nil, nil)
		if fmt.Sprint(a.Repetitions) != fmt.Sprint(b.Repetitions) || len(a.Output.Cohorts) != 2 || len(b.Output.Cohorts) != 2 {
			t.Errorf("point %d: repetitions %v and %v, %d and %d timelines", i, a.Repetitions, b.Repetitions, len(a.Output.Cohorts), len(b.Output.Cohorts))
		}
	}
}

// A cancel stops the starting of units: the unit under way ends (cut,
// here at 300 ms), nothing after it starts, and the point is partial
// with ended_s where its first repetition stopped; the point never begun
// is left out of Execute's points (schedule marks none of it run).
func TestSchedulePartialOnCancel(t *testing.T) {
	plans := fakePlans(2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := &fakeDriver{n: 1, at: func(_ context.Context, u unit, oc *outcome) {
		if u.point == 0 && u.rep == 0 && u.cohorts[0] == 1 {
			cancel()
			oc.cut, oc.end = true, 300*time.Millisecond
		}
	}}
	sc, err := schedule(ctx, d, plans, Options{Mode: Mode{Runs: 2}}, func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0/0/[0]", "0/0/[1]"}; !slices.Equal(d.log, want) {
		t.Errorf("ran %v, want %v", d.log, want)
	}
	if sc[1].ran() {
		t.Error("the second point ran after the cancel")
	}
	pt := assemble(plans[0], Options{Mode: Mode{Runs: 2}}, "sim", time.Time{}, &sc[0], nil, nil)
	s := pt.Output.Summary
	if !s.Partial || s.EndedS == nil || *s.EndedS != 0.3 || len(s.Runs) != 2 {
		t.Errorf("partial %v, ended_s %v, %d runs; want partial, 0.3 s, both cohorts' first repetition", s.Partial, s.EndedS, len(s.Runs))
	}

	// A repetition after the first, cut short, is not one: it is left out.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	d = &fakeDriver{n: 1, at: func(_ context.Context, u unit, oc *outcome) {
		if u.rep == 1 && u.cohorts[0] == 0 {
			cancel()
			oc.cut, oc.end = true, 100*time.Millisecond
		}
	}}
	sc, err = schedule(ctx, d, plans[:1], Options{Mode: Mode{Runs: 2}}, func(int) bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	pt = assemble(plans[0], Options{Mode: Mode{Runs: 2}}, "sim", time.Time{}, &sc[0], nil, nil)
	s = pt.Output.Summary
	if !s.Partial || s.EndedS != nil || fmt.Sprint(pt.Repetitions) != fmt.Sprint([][]results.Run{{{Strategy: "a"}}, {{Strategy: "b", Attempts: 1}}}) {
		t.Errorf("partial %v, ended_s %v, repetitions %+v; want each cohort's first repetition alone", s.Partial, s.EndedS, pt.Repetitions)
	}
}

// Cancelled before it begins, a schedule starts nothing, unless its
// driver starts the first unit anyway (real time: the run sets up and
// ends at once, partial).
func TestScheduleCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, first := range []bool{false, true} {
		d := &fakeDriver{n: 2, cancelled: first}
		if _, err := schedule(ctx, d, fakePlans(1), Options{}, func(int) bool { return false }); err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 1}[first]; len(d.log) != want {
			t.Errorf("startsCancelled %v: ran %v, want %d unit(s)", first, d.log, want)
		}
	}
}

// A unit that fails (a panic in the driver, or one it reports) stops the
// schedule: no unit starts after it, what ran is kept, and the
// *PanicError is returned.
func TestSchedulePanicStops(t *testing.T) {
	for _, report := range []bool{false, true} {
		d := &fakeDriver{n: 1, at: func(_ context.Context, u unit, oc *outcome) {
			if u.rep == 0 && u.cohorts[0] == 1 {
				if report {
					oc.err, oc.cut = &PanicError{Value: "boom"}, true
					return
				}
				panic("boom")
			}
		}}
		sc, err := schedule(context.Background(), d, fakePlans(2), Options{}, func(int) bool { return false })
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != "boom" {
			t.Fatalf("reported %v: err %v, want the *PanicError", report, err)
		}
		if len(d.log) != 2 || sc[1].ran() {
			t.Errorf("reported %v: ran %v; want nothing after the failed unit", report, d.log)
		}
		if got := attempts(sc[:1]); fmt.Sprint(got) != map[bool]string{false: "[[0 -1]]", true: "[[0 1]]"}[report] {
			t.Errorf("reported %v: kept %v", report, got)
		}
	}
}

// In real time too, a repetition after the first cut short is not one:
// the second repetition, stopped as it starts, leaves the point partial,
// with no ended_s (the figures shown, the first repetition's, are whole)
// and each cohort's first repetition alone in the figures over them.
func TestRealRepetitionCutShortIsLeftOut(t *testing.T) {
	p := scenariotest.Plan(t, selfCheckScenario, scenarios.Overrides{})
	pt := executeInBubble(t, []*scenarios.Plan{p}, Options{Mode: Mode{Runs: 2, NoSimReference: true}, Watch: Watch{OnRun: func(_, rep int, r *Run) {
		if rep == 1 {
			r.Stop()
		}
	}}})[0]
	s := pt.Output.Summary
	if !s.Partial || s.EndedS != nil || len(s.Runs) != 2 {
		t.Fatalf("partial %v, ended_s %v, %d runs; want partial, none, both cohorts", s.Partial, s.EndedS, len(s.Runs))
	}
	for i, runs := range pt.Repetitions {
		if len(runs) != 1 || runs[0].Attempts == 0 {
			t.Errorf("cohort %d: %d repetitions kept, want the first, whole", i, len(runs))
		}
	}
}

// The summary Execute returns is assembled whole: its thresholds checked
// over every repetition, or, for a shard, left to the merge with its
// clock beside them; the caller writes it as it is.
func TestSummaryAssembledOnce(t *testing.T) {
	p := scenariotest.Plan(t, selfCheckScenario+`
thresholds:
  - amplification < 1
`, scenarios.Overrides{})
	ps := []*scenarios.Plan{p}
	points, err := Execute(context.Background(), ps, Options{Mode: Mode{Sim: true, Runs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	s := points[0].Output.Summary
	if len(s.Thresholds) != 2 || results.ThresholdsFailed(s.Thresholds) != 2 || s.Shard != nil {
		t.Errorf("thresholds %+v, shard %+v; want amplification < 1 checked and failed for both cohorts", s.Thresholds, s.Shard)
	}
	clock := &results.ClockOffset{Against: "127.0.0.1:9090", OffsetMS: 1.5}
	points, err = Execute(context.Background(), ps, Options{Mode: Mode{Sim: true}, Shard: Shard{Part: clients.Part{Index: 1, Of: 2}, Clock: clock}})
	if err != nil {
		t.Fatal(err)
	}
	s = points[0].Output.Summary
	if s.Shard == nil || s.Shard.Clock != clock || len(s.Shard.Thresholds) != 1 || s.Shard.Thresholds[0].Expression != "amplification < 1" || len(s.Thresholds) != 0 {
		t.Errorf("a shard: %+v, thresholds %+v; want the threshold deferred, the clock kept, none checked", s.Shard, s.Thresholds)
	}
}
