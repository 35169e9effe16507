package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target/model"
)

// Point is the outcome of one plan (one client count of a sweep) over its
// repetitions.
type Point struct {
	Plan *scenarios.Plan
	// Output's Summary has one Run per cohort: the first repetition's
	// figures, with Stats over all repetitions when there were several.
	// Its Cohorts are the first repetition's recorders when
	// Options.Timelines is set.
	Output folder.Output
	// Repetitions holds, with more than one repetition, each cohort's
	// figures in every repetition that ran, in the order of Output's
	// runs: what thresholds are checked against.
	Repetitions [][]results.Run
}

// Execute runs every plan Options.Runs times, in virtual time or real time,
// and returns one Point per plan, in order: one scheduler (schedule.go)
// over a driver, real or simulated (drivers.go). Real runs go one after
// another; simulated cohort runs are spread over the workers, with
// results in a fixed order, so the figures never depend on scheduling.
// Each point's summary is assembled once (assemble): its thresholds are
// checked (a shard's left to the merge) and, for a real-time run with an
// embedded target, the simulator's figures of the same plans and seeds
// are beside its own (unless Options.NoSimReference). If ctx is
// cancelled, Execute stops starting runs and returns the points that
// began: those that finished whole, and those it cut, marked partial; the
// first point always, even if nothing of it ran.
func Execute(ctx context.Context, plans []*scenarios.Plan, o Options) ([]Point, error) {
	if o.MaxMemory > 0 {
		if err := CheckMemory(plans, o, o.MaxMemory, "the limit of "+size(o.MaxMemory)); err != nil {
			return nil, err
		}
	}
	started := time.Now()
	var d driver = realDriver{o}
	mode := "real"
	if o.Sim {
		sd, release := newSimDriver(ctx, o)
		defer release()
		d, mode = sd, "sim"
	}
	got, err := schedule(ctx, d, plans, o, func(rep int) bool { return rep == 0 && o.Timelines })
	var refs []*simulated
	var lates []*opinion
	if !o.Sim && !o.NoSimReference && ctx.Err() == nil && err == nil {
		refs = simReference(ctx, plans, got, o)
		lates = lateReference(ctx, plans, got, refs, o) // lateness.go
	}
	points := make([]Point, 0, len(plans))
	for pi, p := range plans {
		if pi > 0 && !got[pi].ran() {
			continue // interrupted before this point began: nothing to keep
		}
		var ref *simulated
		var late *opinion
		if refs != nil {
			ref = refs[pi]
		}
		if lates != nil {
			late = lates[pi]
		}
		points = append(points, assemble(p, o, mode, started, &got[pi], ref, late))
	}
	checkAcrossPoints(points)
	return points, err
}

// checkAcrossPoints checks the thresholds that compare points of a sweep,
// now that every point has run, into the summaries of the points they are
// checked at (results.CheckPoints).
func checkAcrossPoints(points []Point) {
	if len(points) < 2 || points[0].Plan == nil {
		return
	}
	var across []results.Threshold
	for _, th := range points[0].Plan.Thresholds {
		if th.AcrossPoints() {
			across = append(across, th)
		}
	}
	if len(across) == 0 {
		return
	}
	runs := make([]results.PointRuns, len(points))
	for i, pt := range points {
		runs[i] = results.PointRuns{Summary: pt.Output.Summary, Reps: pt.Repetitions}
	}
	results.CheckPoints(runs, across)
}

// simReference runs the real points' plans again in virtual time, with
// the same seeds, and returns each one's simulated summary (nil where
// there is none). An external target has no model to simulate, and a
// point cut short has no whole figures to compare: neither gets one. A
// bug in the simulator leaves every point without a reference.
func simReference(ctx context.Context, plans []*scenarios.Plan, got []scheduled, o Options) []*simulated {
	var at []int
	for i, p := range plans {
		if p.TargetURL == "" && got[i].ran() && !got[i].partial() {
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	return simulate(ctx, plans, at, nil, o)
}

// fillRuns puts each cohort's figures into s: its run, or with
// repetitions their aggregate (results.Aggregate), and the repetitions'
// seeds.
func fillRuns(s *results.Summary, p *scenarios.Plan, cohortRuns [][]results.Run, reps int) {
	if p.Workload.Kind != clients.Open {
		s.Clients = p.Workload.Clients
	}
	s.Point = p.Point
	if reps > 1 {
		s.Repetitions = reps
		for rep := 0; rep < reps; rep++ {
			s.Seeds = append(s.Seeds, seeds.Rep(p.Seed, rep))
		}
	}
	for _, runs := range cohortRuns {
		if len(runs) == 0 {
			continue
		}
		if reps > 1 {
			s.Runs = append(s.Runs, results.Aggregate(runs))
		} else {
			s.Runs = append(s.Runs, runs[0])
		}
	}
}

// repetitions returns the cohorts' runs in every repetition, or nil when
// there is one (the summary's runs are then the only figures).
func repetitions(cohortRuns [][]results.Run, reps int) [][]results.Run {
	if reps < 2 {
		return nil
	}
	var out [][]results.Run
	for _, runs := range cohortRuns {
		if len(runs) > 0 { // as fillRuns keeps them
			out = append(out, runs)
		}
	}
	return out
}

// newSummary starts a summary of p (its runs are filled in by the caller).
func newSummary(p *scenarios.Plan, mode, version string, started time.Time) *results.Summary {
	s := &results.Summary{
		Scenario: p.Name, Description: p.Description, Mode: mode,
		Seed: p.Seed, Version: version, Started: started.UTC().Truncate(time.Millisecond),
		DurationS: p.Duration.Seconds(),
		Workload:  p.Workload.Kind.String(), Faults: []results.FaultWindow{},
	}
	if p.Chaos != nil {
		for i, f := range p.Chaos.Faults() {
			s.Faults = append(s.Faults, results.FaultWindow{Name: f.Name, Kind: f.Kind, AtS: f.At.Seconds(), ForS: f.For.Seconds(), Tier: p.FaultTier(i)})
		}
	}
	for i, g := range p.Workload.Surges {
		// A load spike is the run's trigger as a fault is: the figures
		// measure from it, and the report shades it.
		s.Faults = append(s.Faults, results.FaultWindow{Name: fmt.Sprintf("surge-%d", i+1), Kind: "surge", AtS: g.At.Seconds(), ForS: g.For.Seconds()})
	}
	return s
}

// triggers returns when p's triggers come and go: its chaos plan's
// faults and its open workload's surges (a load spike); false if it has
// neither.
func triggers(p *scenarios.Plan) (first, last time.Duration, ok bool) {
	if p.Chaos != nil {
		first, last, ok = p.Chaos.Span()
	}
	for _, g := range p.Workload.Surges {
		if !ok || g.At < first {
			first = g.At
		}
		last, ok = max(last, g.At+g.For), true
	}
	return first, last, ok
}

// splitAtFault makes each recorder keep the latencies from the end of p's
// last fault on (Recorder.SplitAt), when a metric reads them
// (results.SplitWanted); a plan without faults has no split.
func splitAtFault(p *scenarios.Plan, recs ...*results.Recorder) {
	if !results.SplitWanted() {
		return
	}
	if _, last, ok := triggers(p); ok {
		for _, r := range recs {
			r.SplitAt(last)
		}
	}
}

// window is the span of p's triggers (its faults and surges) that the
// metrics measure from.
func window(p *scenarios.Plan) results.Window {
	if first, last, ok := triggers(p); ok {
		return results.Window{FirstStart: first, LastEnd: last}
	}
	return results.Window{}
}

// cohortOf returns the cohort name of p recorded by rec (and, for a chain
// of tiers, by below).
func cohortOf(p *scenarios.Plan, name string, rec *results.Recorder, below []*results.Recorder) results.Cohort {
	hedged := false
	for i := range p.Strategies {
		if s := &p.Strategies[i]; s.Name == name {
			hedged = s.Hedge.Max > 0
		}
	}
	return results.Cohort{
		Strategy: name, Rec: rec,
		OCC:     p.Target.Kind == model.OCC,
		OneShot: p.Workload.Kind == clients.OneShot,
		Tiers:   tierNames(p), Below: below,
		Hedged: hedged,
	}
}
