package engine

import (
	"context"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/sim"
)

// lateCrash is 200 clients that a crash resets at one instant, retrying
// without jitter or with it, into a service of 10 slots that comes back
// cold: how many of a wave get through depends on how tight it is.
const lateCrash = `
name: late-crash
duration: 8s
seed: 3
target: {concurrency: 10, queue: 20, queue_timeout: 20ms, service_time: exponential(2ms), cold_start: {from: 0.2, ramp: 1s}}
chaos:
  - {kind: blip, mode: blackhole, at: 1s, for: 500ms}
  - {kind: outage, mode: refuse, at: 1500ms, for: 1s}
workload: {kind: closed, clients: 200, think: exponential(100ms)}
strategies:
  - {name: none, backoff: exponential, base: 100ms, cap: 2s, max_attempts: 8, timeout: 2s}
  - {name: full, backoff: full, base: 100ms, cap: 2s, max_attempts: 8, timeout: 2s}
`

// lagHist returns a lateness histogram (microseconds) holding vs.
func lagHist(vs ...time.Duration) *hdrhistogram.Histogram {
	h := results.NewLagHistogram()
	for _, v := range vs {
		_ = h.RecordValue(int64(v / time.Microsecond))
	}
	return h
}

// The model's second opinion is given each cohort's own lateness: the
// spread after the crash of the first cohort (its clients learned of it
// over 0 to 8 ms) and its send lag (1 ms), none for the second (never
// late enough to ask). Its figures are the simulator's with those tables
// for the first cohort, and the reference's, unchanged, for the second;
// the factors of less lateness at which the model holds are the least
// that do; assembled, the runs carry both opinions and the verdict on
// them.
func TestLateReferenceGivesTheModelEachCohortsLateness(t *testing.T) {
	p := scenariotest.Plan(t, lateCrash, scenarios.Overrides{})
	var spread []time.Duration
	for i := range 81 {
		spread = append(spread, time.Duration(i)*100*time.Microsecond)
	}
	d := &fakeDriver{all: true, n: 1, at: func(_ context.Context, u unit, oc *outcome) {
		oc.check = &selfCheck{
			figures: results.Waves, limit: 10 * time.Millisecond,
			lag:   []*hdrhistogram.Histogram{lagHist(time.Millisecond), lagHist(50 * time.Microsecond)},
			drift: []*hdrhistogram.Histogram{nil, nil},
			spread: [][]results.EdgeSpread{
				{{At: 1500 * time.Millisecond, H: lagHist(spread...)}},
				{{At: 1500 * time.Millisecond, H: lagHist()}},
			},
		}
	}}
	o := Options{Mode: Mode{Runs: 1}}
	ctx := context.Background()
	plans := []*scenarios.Plan{p}
	got, err := schedule(ctx, d, plans, o, func(int) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	tables := latenessOf(&got[0], 2)
	if len(tables) != 2 || len(tables[0].crash) != latenessQuantiles || len(tables[0].send) != latenessQuantiles || !tables[1].none() {
		t.Fatalf("lateness tables %v: want %d values of each for the first cohort, none for the second", tables, latenessQuantiles)
	}
	if lo, hi := tables[0].crash[0], tables[0].crash[latenessQuantiles-1]; lo > 200*time.Microsecond || hi < 7800*time.Microsecond || hi > 8100*time.Microsecond {
		t.Errorf("the first cohort's crash table runs from %v to %v, want about 0 to 8 ms", lo, hi)
	}
	if lo, hi := tables[0].send[0], tables[0].send[latenessQuantiles-1]; lo < 990*time.Microsecond || hi > 1010*time.Microsecond {
		t.Errorf("the first cohort's send table runs from %v to %v, want 1 ms throughout", lo, hi)
	}
	refs := simReference(ctx, plans, got, o)
	lates := lateReference(ctx, plans, got, refs, o)
	if refs == nil || lates == nil || lates[0] == nil {
		t.Fatalf("references %v, with lateness %v", refs, lates)
	}
	op := lates[0]
	if op.predicted == results.Exact || op.exact < 2 || op.hold < 1 || op.hold > op.exact {
		t.Fatalf("the second opinion predicts %s, exact at %d, holds at %d: want the lateness to move the figures, and factors that hold them", op.predicted, op.exact, op.hold)
	}
	// The factor is the least that holds: the model with the lateness that
	// many times smaller predicts exact figures, and with half as much
	// less, it does not.
	for _, c := range []struct {
		f     int
		exact bool
	}{{op.exact, true}, {op.exact / 2, false}} {
		again := simulateLate(ctx, plans, []int{0}, map[*scenarios.Plan][]lateTables{p: {tables[0].scaled(c.f), {}}}, o)
		if j := predict(p, refs[0], again[0]); (j == results.Exact) != c.exact {
			t.Errorf("the lateness %d times smaller predicts %s: want exact %v", c.f, j, c.exact)
		}
	}
	// The first cohort, by hand: the simulator with its tables.
	co := simCohort(p, 0, seeds.Rep(p.Seed, 0), nil)
	co.Lateness, co.SendLag = tables[0].crash, tables[0].send
	rec := results.NewRecorder(p.Duration, 1).Unshared()
	splitAtFault(p, rec)
	sim.New().Run(co, rec)
	want := results.Summarize(cohortOf(p, "none", rec, nil), window(p))
	late, ref := op.late.sum.Runs, refs[0].sum.Runs
	if late[0].Attempts != want.Attempts || late[0].FailedAfterFault != want.FailedAfterFault || late[0].HerdFactor != want.HerdFactor {
		t.Errorf("with lateness, the first cohort: %d attempts, %d failed after fault, herd %.2f; by hand %d, %d, %.2f",
			late[0].Attempts, late[0].FailedAfterFault, late[0].HerdFactor, want.Attempts, want.FailedAfterFault, want.HerdFactor)
	}
	if got, want := op.late.herd["none"], results.HerdFactorsOf(cohortOf(p, "none", rec, nil), window(p)); got != want {
		t.Errorf("with lateness, the first cohort's herd factors %v; by hand %v", got, want)
	}
	if late[0].Attempts == ref[0].Attempts && late[0].HerdFactor == ref[0].HerdFactor {
		t.Errorf("the first cohort's lateness moved nothing (%d attempts, herd %.2f): the test shows nothing", ref[0].Attempts, ref[0].HerdFactor)
	}
	if late[1].Attempts != ref[1].Attempts || late[1].HerdFactor != ref[1].HerdFactor || late[1].FailedAfterFault != ref[1].FailedAfterFault {
		t.Errorf("the second cohort, never late, moved: %+v against %+v", late[1], ref[1])
	}
	pt := assemble(p, o, "real", time.Now(), &got[0], refs[0], op)
	s := pt.Output.Summary
	if s.Runs[0].SimLate == nil || s.Runs[1].SimLate == nil {
		t.Fatalf("assembled runs without the second opinion: %v, %v", s.Runs[0].SimLate, s.Runs[1].SimLate)
	}
	if len(results.ModelMoved(s.Runs[0].Sim, s.Runs[0].SimLate)) > 0 && s.Runs[0].LatenessNeeds != op.exact {
		t.Errorf("the first cohort's run needs %d, the opinion %d", s.Runs[0].LatenessNeeds, op.exact)
	}
	if h, _ := s.Runs[0].SimLate.Get("herd_factor"); h != results.SimFigures(late[0])["herd_factor"] {
		t.Errorf("the first cohort's second opinion has herd %v, the late reference %v", h, late[0].HerdFactor)
	}
	if s.Verdict == nil || s.Harness.Trustworthy != s.Verdict.Trusted() || len(s.Verdict.Figures) == 0 {
		t.Errorf("verdict %+v, self-check trustworthy %v: want a verdict on the figures, the self-check's the same", s.Verdict, s.Harness.Trustworthy)
	}
}

// latenessTable: its values are the histogram's at evenly spaced
// quantiles, ascending; a histogram whose largest value is below
// minLateness (a harness never late), or an empty one, gives none.
func TestLatenessTable(t *testing.T) {
	var vs []time.Duration
	for i := 1; i <= 1000; i++ {
		vs = append(vs, time.Duration(i)*10*time.Microsecond) // 10 µs to 10 ms, evenly
	}
	tb := latenessTable(lagHist(vs...))
	if len(tb) != latenessQuantiles {
		t.Fatalf("%d values, want %d", len(tb), latenessQuantiles)
	}
	for i, v := range tb {
		q := (float64(i) + 0.5) / latenessQuantiles
		want := time.Duration(q * float64(10*time.Millisecond))
		if d := v - want; d > want/50+20*time.Microsecond || -d > want/50+20*time.Microsecond {
			t.Errorf("value %d (quantile %.3f) %v, want about %v", i, q, v, want)
		}
		if i > 0 && v < tb[i-1] {
			t.Errorf("value %d %v below the one before, %v", i, v, tb[i-1])
		}
	}
	if tb := latenessTable(lagHist(50*time.Microsecond, 90*time.Microsecond)); tb != nil {
		t.Errorf("a harness late by at most 90 µs got a table %v", tb)
	}
	if tb := latenessTable(lagHist()); tb != nil {
		t.Errorf("an empty histogram got a table %v", tb)
	}
}
