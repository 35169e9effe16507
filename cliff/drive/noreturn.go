package drive

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/sim"
)

// NoReturn is a search for the point of no return of one collapsing run:
// strategy Strategy of Plan, with the seed of repetition Rep.
type NoReturn struct {
	Plan     *scenarios.Plan
	Strategy string
	Rep      int
	Spec     cliff.NoReturnSpec
	Workers  int
	// Progress, if set, is told after each continuation how many were
	// made and about how many are left, from one goroutine at a time.
	Progress func(done, remaining int)
}

// Instants returns the instants a point of no return is looked for at
// when none are given: from the start of p's first fault to halfway from
// the end of its last to the end of the run, about 80 of them at a round
// step (at least one 10 ms bucket).
func Instants(p *scenarios.Plan) []time.Duration {
	first, last, ok := p.Chaos.Span()
	if p.Chaos == nil || !ok {
		return nil
	}
	to := last + (p.Duration-last)/2
	step := time.Duration(niceDuration(float64(to-first) / 80))
	step = max(step, results.Bucket)
	var out []time.Duration
	for at := first; at <= to; at += step {
		out = append(out, at)
	}
	return out
}

// niceDuration rounds ns down to 1, 2 or 5 times a power of ten.
func niceDuration(ns float64) float64 {
	p := 1.0
	for p*10 <= ns {
		p *= 10
	}
	for _, m := range []float64{5, 2, 1} {
		if m*p <= ns {
			return m * p
		}
	}
	return p
}

// Check runs the run once, whole, and returns its figures: it must
// collapse (never recover within the run) for a point of no return to
// exist.
func (nr *NoReturn) Check() (results.Run, error) {
	i := strategyIndex(nr.Plan, nr.Strategy)
	if i < 0 {
		return results.Run{}, fmt.Errorf("%s has no strategy %q; it has %v", nr.Plan.Name, nr.Strategy, strategyNames(nr.Plan))
	}
	if _, _, ok := nr.Plan.Chaos.Span(); nr.Plan.Chaos == nil || !ok {
		return results.Run{}, fmt.Errorf("%s has no fault: a point of no return is after a trigger", nr.Plan.Name)
	}
	c := engine.NewCohortRun(nr.Plan, i, nr.Rep)
	res := sim.New().Run(c.Cohort, c.Rec)
	w := engine.Window(nr.Plan)
	run := c.Summarize(res, c.Rec, c.Below, w)
	if !Collapsed(nr.Plan, i, w, run.RecoveryS) {
		return run, fmt.Errorf("%s's run with seed %d recovers (in %.2f s after the fault): a point of no return is inside a run that collapses; lengthen the trigger with --set, or pick another seed or strategy", nr.Strategy, c.Cohort.Seed, *run.RecoveryS)
	}
	return run, nil
}

// ContinuationSeed returns the seed of continuation j of a run with seed
// seed: the same at every instant, so instants differ by the state they
// continue, not by their luck.
func ContinuationSeed(seed uint64, j int) uint64 {
	s := seeds.Rep(seed, 1<<30+j)
	if s == 0 {
		s = 1 // 0 means "the run's own randomness"
	}
	return s
}

// Run searches until cliff.NextInstants asks for no more and returns the
// tallies by instant index; when ctx ends, the tallies of the instants
// whose every continuation ended, with ctx's error.
func (nr *NoReturn) Run(ctx context.Context) (map[int]cliff.Tally, error) {
	i := strategyIndex(nr.Plan, nr.Strategy)
	if i < 0 || len(nr.Spec.Instants) == 0 {
		return nil, fmt.Errorf("no strategy %q or no instants", nr.Strategy)
	}
	n := nr.Spec.Runs
	if n <= 0 {
		n = cliff.DefaultContinuations
	}
	tallies := map[int]cliff.Tally{}
	made := 0
	for {
		next := cliff.NextInstants(nr.Spec, tallies)
		if len(next) == 0 {
			return tallies, nil
		}
		if err := ctx.Err(); err != nil {
			return tallies, err
		}
		slices.Sort(next)
		got, err := nr.round(ctx, i, next, n, &made)
		for k, t := range got {
			tallies[k] = t
		}
		if err != nil {
			return tallies, err
		}
	}
}

// round runs n continuations from each instant of next and returns their
// tallies (an instant cut by ctx's end is left out).
func (nr *NoReturn) round(ctx context.Context, strategy int, next []int, n int, made *int) (map[int]cliff.Tally, error) {
	c := engine.NewCohortRun(nr.Plan, strategy, nr.Rep)
	at := make([]time.Duration, len(next))
	for k, i := range next {
		at[k] = nr.Spec.Instants[i]
	}
	var snaps []*sim.Snapshot
	stop := new(atomic.Bool)
	release := context.AfterFunc(ctx, func() { stop.Store(true) })
	c.Cohort.Stop = stop
	sim.New().RunPaused(c.Cohort, c.Rec, at, func(s *sim.Snapshot) { snaps = append(snaps, s) })
	release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(snaps) != len(at) {
		return nil, fmt.Errorf("the run did not reach %s (it ended at %s)", at[len(snaps)], nr.Plan.Duration)
	}
	first, last, _ := nr.Plan.Chaos.Span()
	collapsed := make([]bool, len(next)*n)
	ended := make([]bool, len(next)*n)
	var mu sync.Mutex
	left := len(next) * n
	each(ctx, nr.Workers, len(next)*n, func(_ *sim.Sim, stop *atomic.Bool, job int) {
		sn, j := snaps[job/n], job%n
		res, rec, below := sn.Continue(sim.Variation{Seed: ContinuationSeed(c.Cohort.Seed, j), Calm: true, Stop: stop})
		if res.Stopped {
			return
		}
		w := results.Window{FirstStart: first, LastEnd: max(first, min(sn.At, last))}
		run := c.Summarize(res, rec, below, w)
		collapsed[job], ended[job] = Collapsed(nr.Plan, strategy, w, run.RecoveryS), true
		if nr.Progress != nil {
			mu.Lock()
			*made++
			left--
			nr.Progress(*made, left)
			mu.Unlock()
		}
	})
	out := map[int]cliff.Tally{}
	for k, i := range next {
		t := cliff.Tally{}
		whole := true
		for j := range n {
			whole = whole && ended[k*n+j]
			t.Runs++
			if collapsed[k*n+j] {
				t.Collapsed++
			}
		}
		if whole {
			out[i] = t
		}
	}
	return out, ctx.Err()
}
