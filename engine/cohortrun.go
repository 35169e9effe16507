package engine

import (
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/sim"
)

// CohortRun is one cohort of a plan set up to run once in virtual time as
// Execute runs one repetition of it: the simulator's cohort with the
// repetition's seed, and fresh recorders, split at the end of the faults
// when a metric asks. The cliff search (package cliff/drive) runs it
// itself, with sim.Sim's Run or RunPaused, and takes its figures from
// Summarize: the figures a --set sweep's point with --runs has.
type CohortRun struct {
	Plan     *scenarios.Plan
	Strategy int // its index in Plan.Strategies
	Cohort   *sim.Cohort
	Rec      *results.Recorder
	Below    []*results.Recorder // a chain of tiers' calls below the first tier
}

// NewCohortRun returns strategy (an index in p.Strategies) of p, set up for
// repetition rep: the seed seeds.Rep(p.Seed, rep), as Execute gives it.
// Its recorders keep no per-second latencies: only the figures are read.
func NewCohortRun(p *scenarios.Plan, strategy, rep int) *CohortRun {
	mk := func() *results.Recorder { return results.NewRecorder(p.Duration, 1).WithoutIntervals().Unshared() }
	rec, below := mk(), newBelow(p, mk)
	splitAtFault(p, append([]*results.Recorder{rec}, below...)...)
	return &CohortRun{Plan: p, Strategy: strategy, Cohort: simCohort(p, strategy, seeds.Rep(p.Seed, rep), below), Rec: rec, Below: below}
}

// Summarize returns the figures of a run of c that ended with res and
// recorded into rec and below (c's own recorders, or a snapshot's
// continuation's), measured from the fault window w (Window of the plan,
// or the window a continuation's faults were cut to).
func (c *CohortRun) Summarize(res sim.Result, rec *results.Recorder, below []*results.Recorder, w results.Window) results.Run {
	rc := cohortOf(c.Plan, c.Plan.Strategies[c.Strategy].Name, rec, below)
	run := results.Summarize(rc, w)
	run.WastedWork = res.Target.Wasted
	tierWaste(&run, res.Tiers)
	return run
}

// Window returns the span of p's faults the figures are measured from.
func Window(p *scenarios.Plan) results.Window { return window(p) }
