package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// A real run judged again from its results folder (Rejudge), by this
// version's verdict: the simulator is deterministic per plan and seed, so
// its reference is the run's own again, and the folder keeps the run's
// figures, its timelines (not a sweep's points') and the figures of the
// model given its lateness (runs[].sim_with_lateness, and the verdict's at
// the resolution it read). What it does not keep is the lateness itself,
// only its p50, p99 and max: the model given it at the other resolutions
// is simulated again from those.

// Kept is what a results folder keeps of a real point, for Rejudge.
type Kept struct {
	// Plan is the point's plan as it ran: its scenario.yaml compiled with
	// its seed (a sweep's, at its point).
	Plan *scenarios.Plan
	// Summary is its summary.json (a sweep point's summary-*.json).
	Summary *results.Summary
	// Attempts are each cohort's attempts per 10 ms bucket, by cohort
	// (its timeline.csv read back); nil for a sweep's point, which keeps
	// no timeline: its herd factors are then known at 10 ms and at the
	// resolution its verdict read them alone.
	Attempts map[string][]int64
}

// ErrNotReproduced is Rejudge's error when the kept plan, simulated, does
// not give the run's own simulator reference (runs[].sim): it is not the
// plan that ran.
var ErrNotReproduced = errors.New("engine: the kept plan does not reproduce the run's simulator reference")

// Rejudge returns the verdict this version gives the kept real point k,
// and what of it is approximate (in words; none: it is the verdict the
// run would have had).
func Rejudge(ctx context.Context, k Kept) (*results.Verdict, []string, error) {
	p, s := k.Plan, k.Summary
	if s.Harness == nil || s.Mode != "real" {
		return nil, nil, errors.New("engine: only a real run has a verdict to judge again")
	}
	plans := []*scenarios.Plan{p}
	o := Options{Mode: Mode{Runs: max(1, p.Runs), SlowMotion: slowmo.Factor(max(1, s.SlowMotion))}}
	refs := simulate(ctx, plans, []int{0}, nil, Options{Mode: Mode{Runs: o.Runs}})
	if refs == nil || refs[0] == nil || refs[0].sum.Partial {
		return nil, nil, fmt.Errorf("engine: the simulator's reference of %s did not run", p.Name)
	}
	if err := reproduced(refs[0].sum, s); err != nil {
		return nil, nil, err
	}
	var approx []string
	var late *opinion
	if tables := keptLateness(s, p); tables != nil {
		if ops := opinions(ctx, plans, []int{0}, map[*scenarios.Plan][]lateTables{p: tables}, refs, o); ops != nil {
			late = ops[0]
		}
		approx = append(approx, "the lateness from its p50, p99 and max")
	}
	ev, err := keptEvidence(k, refs[0], late)
	if err != nil {
		return nil, nil, err
	}
	if k.Attempts == nil {
		approx = append(approx, "the waves at 10 ms and at the resolution its verdict read alone (no timeline)")
	}
	return results.Decide(s, ev, remedy(p, o, s, late)), approx, ctx.Err()
}

// reproduced checks that ref, the kept plan simulated, gives each
// cohort's simulator figures as the summary s holds them (rounded).
func reproduced(ref, s *results.Summary) error {
	for i := range s.Runs {
		r := refRun(ref, s.Runs[i].Strategy)
		if r == nil {
			return fmt.Errorf("%w: no cohort %s", ErrNotReproduced, s.Runs[i].Strategy)
		}
		for name, want := range s.Runs[i].Sim {
			if got, ok := results.SimFigures(*r).Get(name); !ok || !near(got, want) {
				return fmt.Errorf("%w: %s's %s is %g, the run's %g", ErrNotReproduced, r.Strategy, name, got, want)
			}
		}
	}
	return nil
}

// near reports whether a and b agree to summary.json's rounding.
func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-3*max(1, math.Abs(b))
}

// keptLateness returns each cohort of p's lateness tables as a summary
// keeps them: each measure's p50, p99 and max (runs[].spread_ms, the
// crash, and send_lag_ms), read as a distribution that rises linearly
// between them from 0; nil when no cohort was late enough to ask.
func keptLateness(s *results.Summary, p *scenarios.Plan) []lateTables {
	out := make([]lateTables, len(p.Strategies))
	any := false
	for ci, st := range p.Strategies {
		r := refRun(s, st.Name)
		if r == nil {
			continue
		}
		out[ci] = lateTables{crash: tableOf(r.SpreadMS), send: tableOf(r.SendLagMS)}
		any = any || !out[ci].none()
	}
	if !any {
		return nil
	}
	return out
}

// tableOf returns latenessQuantiles values of the distribution through
// (0, 0), (0.5, p50), (0.99, p99) and (1, max), linear between them; nil
// for none, or one whose max is below minLateness.
func tableOf(l *results.Lag) []time.Duration {
	if l == nil || time.Duration(l.Max*float64(time.Millisecond)) < minLateness {
		return nil
	}
	qs, vs := []float64{0, 0.5, 0.99, 1}, []float64{0, l.P50, l.P99, l.Max}
	t := make([]time.Duration, latenessQuantiles)
	for i := range t {
		q := (float64(i) + 0.5) / latenessQuantiles
		j := 1
		for q > qs[j] {
			j++
		}
		v := vs[j-1] + (vs[j]-vs[j-1])*(q-qs[j-1])/(qs[j]-qs[j-1])
		t[i] = time.Duration(v * float64(time.Millisecond))
	}
	return t
}

// keptEvidence is evidence for a kept point: each cohort's figures and
// herd factors (from its timeline, or the summary's and its verdict's),
// the simulator's (ref), and the model's given the run's lateness: the
// summary's own where it holds them (sim_with_lateness, and the verdict's
// figures at the resolution it read), late's elsewhere.
func keptEvidence(k Kept, ref *simulated, late *opinion) ([]results.Evidence, error) {
	s, w := k.Summary, window(k.Plan)
	var ev []results.Evidence
	for i := range s.Runs {
		r := &s.Runs[i]
		sim := ref.reading(r.Strategy)
		if sim == nil {
			continue
		}
		e := results.Evidence{Cohort: r.Strategy, Real: results.Reading{Figures: results.SimFigures(*r), Herd: unknownHerd()}, Sim: *sim}
		herd, hasHerd := e.Real.Figures.Get("herd_factor")
		if a, ok := k.Attempts[r.Strategy]; ok {
			e.Real.Herd = results.HerdFactorsOfAttempts(a, w)
			if hasHerd && !near(e.Real.Herd[0], herd) {
				return nil, fmt.Errorf("engine: %s's timeline gives a herd factor of %g, its summary %g: not its run's timeline", r.Strategy, e.Real.Herd[0], herd)
			}
		} else {
			e.Real.Herd[0] = herd
		}
		if r.SimLate != nil {
			e.Late = &results.Reading{Figures: r.SimLate, Herd: unknownHerd()}
			if h, ok := late.herdOf(r.Strategy); ok {
				e.Late.Herd = h
			}
			e.Late.Herd[0], _ = r.SimLate.Get("herd_factor")
		}
		keptWaves(&e, s.Verdict)
		ev = append(ev, e)
	}
	return ev, nil
}

// keptWaves sets e's herd factors at the resolution v, the run's own
// verdict, read them: the real one where no timeline gave it, and the
// model's given the run's lateness.
func keptWaves(e *results.Evidence, v *results.Verdict) {
	if v == nil {
		return
	}
	for _, f := range v.Figures {
		if f.Cohort != e.Cohort || f.Name != "herd_factor" {
			continue
		}
		for i, res := range results.Resolutions {
			if f.ResolutionMS != float64(res/time.Millisecond) {
				continue
			}
			if f.Real != nil && math.IsNaN(e.Real.Herd[i]) {
				e.Real.Herd[i] = *f.Real
			}
			if f.Late != nil && e.Late != nil {
				e.Late.Herd[i] = *f.Late
			}
		}
	}
}

// herdOf returns the herd factors of the model given the run's lateness
// for the cohort name, if it ran whole.
func (op *opinion) herdOf(name string) (results.HerdFactors, bool) {
	if op == nil || op.late == nil || op.late.sum.Partial {
		return results.HerdFactors{}, false
	}
	h, ok := op.late.herd[name]
	return h, ok
}

// unknownHerd is a herd factor known at no resolution.
func unknownHerd() results.HerdFactors {
	var h results.HerdFactors
	for i := range h {
		h[i] = math.NaN()
	}
	return h
}
