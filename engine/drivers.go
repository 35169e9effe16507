package engine

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/sim"
)

// realDriver runs units in real time, one after another (Start): a
// repetition's cohorts all at once, or, with Options.Apart, one cohort
// after the other, each alone on the machine.
type realDriver struct{ o Options }

func (d realDriver) together(p *scenarios.Plan) bool {
	return !d.o.Apart(p)
}

func (realDriver) workers() int { return 1 }

func (realDriver) startsCancelled() bool { return true }

func (d realDriver) newRunner() runner { return d }

// run runs u's cohorts in real time, with the repetition's seed. A real
// run always keeps its recorders: a shard's marks read them.
func (d realDriver) run(ctx context.Context, p *scenarios.Plan, u unit, _ bool) (outcome, error) {
	q := *p
	q.Seed = seeds.Rep(p.Seed, u.rep)
	q.Strategies = make([]clients.Strategy, len(u.cohorts))
	for j, ci := range u.cohorts {
		q.Strategies[j] = p.Strategies[ci]
	}
	r, err := Start(ctx, &q, d.o)
	if err != nil {
		return outcome{}, err
	}
	if d.o.OnRun != nil {
		d.o.OnRun(u.point, u.rep, r)
	}
	<-r.done
	oc := r.outcome()
	if len(u.cohorts) < len(p.Strategies) { // apart: each cohort has its own t = 0
		started := r.Origin.UTC().Truncate(time.Millisecond)
		for j := range oc.runs {
			oc.runs[j].Started = &started
			oc.cohorts[j].Started = started
		}
	}
	return oc, nil
}

// simDriver runs units in virtual time (package sim), one cohort each,
// on Options.Workers workers. An interrupt stops every worker's cohort
// run where it is (sim's Cohort.Stop), not only the starting of the next
// one: one cohort run of a long scenario lasts minutes.
type simDriver struct {
	o    Options
	stop *atomic.Bool
}

// newSimDriver returns a simulator driver that ctx's end stops, and the
// function that lets go of ctx.
func newSimDriver(ctx context.Context, o Options) (*simDriver, func() bool) {
	d := &simDriver{o: o, stop: new(atomic.Bool)}
	return d, context.AfterFunc(ctx, func() { d.stop.Store(true) })
}

func (*simDriver) together(*scenarios.Plan) bool { return false }

func (d *simDriver) workers() int {
	if d.o.Workers > 0 {
		return d.o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

func (*simDriver) startsCancelled() bool { return false }

func (d *simDriver) newRunner() runner { return &simRunner{d: d, s: sim.New()} }

// simRunner is one worker's simulator, with the recorders it reuses for
// the cohort runs whose recorders are not kept.
type simRunner struct {
	d            *simDriver
	s            *sim.Sim
	scratch      *results.Recorder
	scratchBelow []*results.Recorder // a chain's tiers'
}

func (w *simRunner) run(_ context.Context, p *scenarios.Plan, u unit, keep bool) (outcome, error) {
	ci := u.cohorts[0]
	rec, below := w.recorders(p, keep)
	co := simCohort(p, ci, seeds.Rep(p.Seed, u.rep), below)
	co.Part, co.Stop = w.d.o.Part, w.d.stop
	if l := w.d.o.lateness[p]; l != nil {
		co.Lateness, co.SendLag = l[ci].crash, l[ci].send
	}
	res := w.s.Run(co, rec)
	if w.d.o.afterSim != nil {
		w.d.o.afterSim(res)
	}
	rc := cohortOf(p, p.Strategies[ci].Name, rec, below)
	run := results.Summarize(rc, window(p))
	run.WastedWork = res.Target.Wasted
	tierWaste(&run, res.Tiers)
	oc := outcome{runs: []results.Run{run}, cut: res.Stopped, end: res.End}
	if keep {
		oc.cohorts = []results.Cohort{rc}
	}
	return oc, nil
}

// recorders returns the recorders of a cohort run of p: new ones to keep,
// or the worker's scratch ones, reset, without intervals; split at the
// end of the faults when a metric asks (splitAtFault).
func (w *simRunner) recorders(p *scenarios.Plan, keep bool) (*results.Recorder, []*results.Recorder) {
	rec, below := w.fresh(p, keep)
	splitAtFault(p, append([]*results.Recorder{rec}, below...)...)
	return rec, below
}

func (w *simRunner) fresh(p *scenarios.Plan, keep bool) (*results.Recorder, []*results.Recorder) {
	if keep {
		mk := func() *results.Recorder { return results.NewRecorder(p.Duration, 1).Unshared() }
		return mk(), newBelow(p, mk)
	}
	scratch := func() *results.Recorder { return results.NewRecorder(p.Duration, 1).WithoutIntervals().Unshared() }
	if w.scratch == nil || w.scratch.Duration() != p.Duration {
		w.scratch = scratch()
	} else {
		w.scratch.Reset()
	}
	if len(w.scratchBelow) != max(0, len(p.Tiers)-1) || len(w.scratchBelow) > 0 && w.scratchBelow[0].Duration() != p.Duration {
		w.scratchBelow = newBelow(p, scratch)
	} else {
		for _, b := range w.scratchBelow {
			b.Reset()
		}
	}
	return w.scratch, w.scratchBelow
}
