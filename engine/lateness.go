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

// lateReference runs, for each real point with a reference (refs), its
// plan again in virtual time with each cohort's lateness table
// (latenessOf), and returns each one's simulated summary: nil where the
// point has no reference or its harness was never late enough to ask.
func lateReference(ctx context.Context, plans []*scenarios.Plan, got []scheduled, refs []*results.Summary, o Options) []*results.Summary {
	var ps []*scenarios.Plan
	var at []int
	lateness := map[*scenarios.Plan][][]time.Duration{}
	for i, p := range plans {
		if refs == nil || refs[i] == nil {
			continue
		}
		if l := latenessOf(&got[i], len(p.Strategies)); l != nil {
			ps, at = append(ps, p), append(at, i)
			lateness[p] = l
		}
	}
	if len(ps) == 0 {
		return nil
	}
	ro := Options{Sim: true, Runs: o.Runs, Workers: o.Workers, lateness: lateness}
	d, release := newSimDriver(ctx, ro)
	defer release()
	started := time.Now()
	sg, err := schedule(ctx, d, ps, ro, func(int) bool { return false })
	if err != nil || ctx.Err() != nil {
		return nil
	}
	out := make([]*results.Summary, len(plans))
	for k := range sg {
		out[at[k]] = assemble(ps[k], ro, "sim", started, &sg[k], nil, nil).Output.Summary
	}
	return out
}
