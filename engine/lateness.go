package engine

import (
	"context"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// The model's second opinion: a real run's self-check measures how late
// its harness was (how far apart the clients learned of each crash, and
// how late they sent what they had scheduled). A real run with a
// simulator reference also asks the model what its figures would be with
// that lateness (sim.Cohort's Lateness at the crashes and SendLag on
// every send, drawn from the run's own measures), and how many times less
// late a harness must be for the model to hold them: the verdict weighs
// both (results.Decide). A harness is that late at a crash alone, where
// every client learns of it at once; a model that drew every failure's
// lateness from the crash's spread smeared the waves into a recovering
// service and had it recover in a second where real runs took four.

// latenessQuantiles is how many values a cohort's lateness table holds:
// its measured lateness at as many evenly spaced quantiles.
const latenessQuantiles = 64

// minLateness is the least lateness worth asking the model about: a
// harness whose every measure is below it (a synctest bubble, which is
// never late) gets no second opinion.
const minLateness = 100 * time.Microsecond

// lateTables is a cohort's lateness as the model takes it: how late its
// clients learned of a crash (sim.Cohort.Lateness) and how late they sent
// (sim.Cohort.SendLag); either nil when never late enough to matter.
type lateTables struct{ crash, send []time.Duration }

// none reports whether t holds no lateness at all.
func (t lateTables) none() bool { return t.crash == nil && t.send == nil }

// scaled returns t with every value divided by f.
func (t lateTables) scaled(f int) lateTables { return lateTables{scale(t.crash, f), scale(t.send, f)} }

// latenessOf returns each cohort of the point's lateness tables, over
// every repetition: its spread after the crashes and its send lag (nil
// when no cohort has any worth a look).
func latenessOf(sc *scheduled, cohorts int) []lateTables {
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
	out := make([]lateTables, cohorts)
	any := false
	for ci := range out {
		if spread[ci] == nil {
			continue
		}
		out[ci] = lateTables{crash: latenessTable(spread[ci]), send: latenessTable(lag[ci])}
		any = any || !out[ci].none()
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

// simulated is a point simulated: its summary, and each cohort's herd factor
// at every resolution (results.Resolutions) in its first repetition, by
// strategy.
type simulated struct {
	sum  *results.Summary
	herd map[string]results.HerdFactors
}

// reading returns the strategy name's reading of m, nil if m has none.
func (m *simulated) reading(name string) *results.Reading {
	if m == nil {
		return nil
	}
	r := refRun(m.sum, name)
	if r == nil {
		return nil
	}
	return &results.Reading{Figures: results.SimFigures(*r), Herd: m.herd[name]}
}

// opinion is the model's second opinion of a real point: its plan
// simulated with each cohort's own lateness, what that predicts of the
// run (results.Predict), and the factors of less lateness at which the
// model's figures hold: exact (every figure, the waves at 10 ms; 0 when
// none up to results.MaxLatenessNeeds does) and within their bands at
// some resolution (hold; 1 when this run's lateness does).
type opinion struct {
	late        *simulated
	predicted   results.Judgement
	exact, hold int
}

// lateReference returns the model's second opinion of each real point
// with a reference (refs): nil where the point has none, or its harness
// was never late enough to ask. Until the model predicts exact figures it
// runs it again with every cohort's lateness 2, 4, ...
// results.MaxLatenessNeeds times smaller.
func lateReference(ctx context.Context, plans []*scenarios.Plan, got []scheduled, refs []*simulated, o Options) []*opinion {
	tables := map[*scenarios.Plan][]lateTables{}
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
	return opinions(ctx, plans, at, tables, refs, o)
}

// opinions returns the model's second opinion of the points at of plans,
// each cohort of a plan late by its tables, against their references.
func opinions(ctx context.Context, plans []*scenarios.Plan, at []int, tables map[*scenarios.Plan][]lateTables, refs []*simulated, o Options) []*opinion {
	first := simulateLate(ctx, plans, at, tables, o)
	if first == nil {
		return nil
	}
	out := make([]*opinion, len(plans))
	pending := map[int]bool{}
	for _, i := range at {
		op := &opinion{late: first[i]}
		op.predicted = predict(plans[i], refs[i], first[i])
		switch op.predicted {
		case results.Exact:
			op.exact, op.hold = 1, 1
		case results.Holds:
			op.hold = 1
			pending[i] = true
		default:
			pending[i] = true
		}
		out[i] = op
	}
	for f := 2; f <= results.MaxLatenessNeeds && len(pending) > 0 && ctx.Err() == nil; f *= 2 {
		scaled := map[*scenarios.Plan][]lateTables{}
		var which []int
		for i := range pending {
			t := make([]lateTables, len(tables[plans[i]]))
			for ci, l := range tables[plans[i]] {
				t[ci] = l.scaled(f)
			}
			scaled[plans[i]] = t
			which = append(which, i)
		}
		slices.Sort(which)
		again := simulateLate(ctx, plans, which, scaled, o)
		if again == nil {
			break
		}
		for _, i := range which {
			j := predict(plans[i], refs[i], again[i])
			if j != results.NotTrustworthy && out[i].hold == 0 {
				out[i].hold = f
			}
			if j == results.Exact {
				out[i].exact = f
				delete(pending, i)
			}
		}
	}
	return out
}

// predict returns what the verdict says of a run of p whose figures are
// late's, against ref's.
func predict(p *scenarios.Plan, ref, late *simulated) results.Judgement {
	j, _ := results.Predict(evidenceOf(p, ref, late), hasFaults(p))
	return j
}

// hasFaults reports whether p's chaos plan has a fault.
func hasFaults(p *scenarios.Plan) bool { return p.Chaos != nil && len(p.Chaos.Faults()) > 0 }

// simulate runs the points at of plans in virtual time, each cohort with
// its lateness tables in tables (none, or a nil map: as the model has
// it), with o's repetitions and workers, and returns them by point (a
// point the end of ctx cut is partial); nil if the simulator failed.
func simulate(ctx context.Context, plans []*scenarios.Plan, at []int, tables map[*scenarios.Plan][]lateTables, o Options) []*simulated {
	ps := make([]*scenarios.Plan, len(at))
	for k, i := range at {
		ps[k] = plans[i]
	}
	ro := Options{lateness: tables, Mode: Mode{Sim: true, Timelines: true, Runs: o.Runs, Workers: o.Workers}}
	d, release := newSimDriver(ctx, ro)
	defer release()
	started := time.Now()
	sg, err := schedule(ctx, d, ps, ro, func(rep int) bool { return rep == 0 })
	if err != nil {
		return nil
	}
	out := make([]*simulated, len(plans))
	for k, i := range at {
		pt := assemble(ps[k], ro, "sim", started, &sg[k], nil, nil)
		m := &simulated{sum: pt.Output.Summary, herd: map[string]results.HerdFactors{}}
		for _, c := range pt.Output.Cohorts {
			m.herd[c.Strategy] = results.HerdFactorsOf(c, window(ps[k]))
		}
		out[i] = m
	}
	return out
}

// simulateLate is simulate for the second opinion: nil as well when ctx
// ended, since a cut point's figures would read as moved or held.
func simulateLate(ctx context.Context, plans []*scenarios.Plan, at []int, tables map[*scenarios.Plan][]lateTables, o Options) []*simulated {
	out := simulate(ctx, plans, at, tables, o)
	if ctx.Err() != nil {
		return nil
	}
	return out
}

// scale returns t's values divided by f (nil for nil).
func scale(t []time.Duration, f int) []time.Duration {
	if t == nil {
		return nil
	}
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
