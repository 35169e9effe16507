package engine

import (
	"context"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// The model's second opinion: a real run's self-check measures how late
// its harness was (send lag, and how far apart the clients learned of each
// crash), and judges that against a limit drawn from the scenario's
// timescales (results.Limit). Some scenarios' figures hang on less: a wave
// that meets a service whose requests take 5 ms gets more of itself
// served when it arrives over 2 ms instead of at once. So a real run with
// a simulator reference also asks the model what its figures would be if
// the clients had learned of their failures as late as this run's did
// (sim.Cohort.Lateness, drawn from the run's own measures), and the
// self-check says so when a headline figure moves (results.JudgeModel).

// latenessQuantiles is how many values a cohort's lateness table holds:
// its measured lateness at as many evenly spaced quantiles.
const latenessQuantiles = 64

// minLateness is the least lateness worth asking the model about: a
// harness whose every measure is below it (a synctest bubble, which is
// never late) gets no second opinion.
const minLateness = 100 * time.Microsecond

// latenessOf returns each cohort of the point's lateness table (nil for a
// cohort with none worth a look): how long after each crash its clients
// learned of it, over every repetition, or where no attempt was in flight
// at a crash, its send lag.
func latenessOf(sc *scheduled, cohorts int) [][]time.Duration {
	spread := make([]*hdrhistogram.Histogram, cohorts)
	lag := make([]*hdrhistogram.Histogram, cohorts)
	for rep, units := range sc.units {
		for k, u := range units {
			oc := sc.got[rep][k]
			if oc == nil || oc.check == nil {
				continue
			}
			for j, ci := range u.cohorts {
				if spread[ci] == nil {
					spread[ci], lag[ci] = results.NewLagHistogram(), results.NewLagHistogram()
				}
				if j < len(oc.check.lag) {
					lag[ci].Merge(oc.check.lag[j])
				}
				if j < len(oc.check.spread) {
					for _, e := range oc.check.spread[j] {
						spread[ci].Merge(e.H)
					}
				}
			}
		}
	}
	out := make([][]time.Duration, cohorts)
	any := false
	for ci := range out {
		h := spread[ci]
		if h == nil {
			continue
		}
		if h.TotalCount() == 0 {
			h = lag[ci]
		}
		out[ci] = latenessTable(h)
		any = any || out[ci] != nil
	}
	if !any {
		return nil
	}
	return out
}

// latenessTable returns h's values (microseconds) at latenessQuantiles
// evenly spaced quantiles, ascending: draws from it are draws from h. Nil
// when h is empty or its largest value is below minLateness.
func latenessTable(h *hdrhistogram.Histogram) []time.Duration {
	if h.TotalCount() == 0 || time.Duration(h.Max())*time.Microsecond < minLateness {
		return nil
	}
	t := make([]time.Duration, latenessQuantiles)
	for i := range t {
		q := 100 * (float64(i) + 0.5) / latenessQuantiles
		t[i] = time.Duration(h.ValueAtQuantile(q)) * time.Microsecond
	}
	return t
}

// opinion is the model's second opinion of a real point: its plan
// simulated with each cohort's own lateness, and per cohort (by strategy)
// the factor of less lateness at which the model's figures hold
// (results.Run.LatenessNeeds).
type opinion struct {
	late  *results.Summary
	needs map[string]int
}

// lateReference returns the model's second opinion of each real point
// with a reference (refs): nil where the point has none, or its harness
// was never late enough to ask. For each cohort whose headline figures
// move (results.ModelMoved), it runs the model again with the cohort's
// lateness 2, 4, ... results.MaxLatenessNeeds times smaller until they
// hold.
func lateReference(ctx context.Context, plans []*scenarios.Plan, got []scheduled, refs []*results.Summary, o Options) []*opinion {
	tables := map[*scenarios.Plan][][]time.Duration{}
	var at []int
	for i, p := range plans {
		if refs == nil || refs[i] == nil {
			continue
		}
		if l := latenessOf(&got[i], len(p.Strategies)); l != nil {
			tables[p] = l
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		return nil
	}
	out := make([]*opinion, len(plans))
	first := simulateLate(ctx, plans, at, tables, o)
	if first == nil {
		return nil
	}
	// moving[i] names the cohorts of point i whose figures the lateness
	// moved, by strategy, with their index.
	moving := map[int]map[string]int{}
	for _, i := range at {
		out[i] = &opinion{late: first[i], needs: map[string]int{}}
		for ci, r := range first[i].Runs {
			if ref := refRun(refs[i], r.Strategy); ref != nil && len(results.ModelMoved(results.SimFigures(*ref), results.SimFigures(r))) > 0 {
				if moving[i] == nil {
					moving[i] = map[string]int{}
				}
				moving[i][r.Strategy] = ci
			}
		}
	}
	for f := 2; f <= results.MaxLatenessNeeds && len(moving) > 0 && ctx.Err() == nil; f *= 2 {
		scaled := map[*scenarios.Plan][][]time.Duration{}
		var which []int
		for i, cohorts := range moving {
			p := plans[i]
			t := make([][]time.Duration, len(p.Strategies))
			for _, ci := range cohorts {
				t[ci] = scale(tables[p][ci], f)
			}
			scaled[p] = t
			which = append(which, i)
		}
		again := simulateLate(ctx, plans, which, scaled, o)
		if again == nil {
			break
		}
		for _, i := range which {
			for name := range moving[i] {
				r, ref := refRun(again[i], name), refRun(refs[i], name)
				if r != nil && ref != nil && len(results.ModelMoved(results.SimFigures(*ref), results.SimFigures(*r))) == 0 {
					out[i].needs[name] = f
					delete(moving[i], name)
				}
			}
			if len(moving[i]) == 0 {
				delete(moving, i)
			}
		}
	}
	return out
}

// simulate runs the points at of plans in virtual time, each cohort with
// its lateness table in tables (none, or a nil map: as the model has it),
// with o's repetitions and workers, and returns their summaries by point
// (a point the end of ctx cut is partial); nil if the simulator failed.
func simulate(ctx context.Context, plans []*scenarios.Plan, at []int, tables map[*scenarios.Plan][][]time.Duration, o Options) []*results.Summary {
	ps := make([]*scenarios.Plan, len(at))
	for k, i := range at {
		ps[k] = plans[i]
	}
	ro := Options{lateness: tables, Mode: Mode{Sim: true, Runs: o.Runs, Workers: o.Workers}}
	d, release := newSimDriver(ctx, ro)
	defer release()
	started := time.Now()
	sg, err := schedule(ctx, d, ps, ro, func(int) bool { return false })
	if err != nil {
		return nil
	}
	out := make([]*results.Summary, len(plans))
	for k, i := range at {
		out[i] = assemble(ps[k], ro, "sim", started, &sg[k], nil, nil).Output.Summary
	}
	return out
}

// simulateLate is simulate for the second opinion: nil as well when ctx
// ended, since a cut point's figures would read as moved or held.
func simulateLate(ctx context.Context, plans []*scenarios.Plan, at []int, tables map[*scenarios.Plan][][]time.Duration, o Options) []*results.Summary {
	out := simulate(ctx, plans, at, tables, o)
	if ctx.Err() != nil {
		return nil
	}
	return out
}

// scale returns t's values divided by f.
func scale(t []time.Duration, f int) []time.Duration {
	out := make([]time.Duration, len(t))
	for i, v := range t {
		out[i] = v / time.Duration(f)
	}
	return out
}

// refRun returns s's run of the strategy name, nil if none.
func refRun(s *results.Summary, name string) *results.Run {
	for i := range s.Runs {
		if s.Runs[i].Strategy == name {
			return &s.Runs[i]
		}
	}
	return nil
}
