package engine

import (
	"context"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/sim"
	"github.com/herdbench/herdbench/target"
)

// Options say how Execute runs plans.
type Options struct {
	// Sim runs in virtual time (package sim) instead of real time.
	Sim bool
	// Runs is how many times each cohort runs, each with its own seed
	// (seeds.Rep); less than 1 means once.
	Runs    int
	Version string
	// Timelines keeps the first repetition's recorders in Point.Output, for
	// writing timelines. A sweep leaves it off to save memory.
	Timelines bool
	// Workers is how many cohort runs the simulator runs at once; 0 means
	// GOMAXPROCS. Results never depend on it.
	Workers int
	// OnRun, if set, is called with each real-time run as it starts, for
	// progress displays (point and rep count from 0).
	OnRun func(point, rep int, r *Run)
	// OnDone, if set, is called each time a cohort run ends (every
	// cohort of a real-time repetition, each simulated cohort run), with
	// how many have ended and how many there are in all: the progress of
	// a long sweep. Simulated runs end on several workers: it must be
	// safe to call from several goroutines at once.
	OnDone func(done, total int)
	// MaxMemory, if set, refuses plans whose EstimateMemory is above it,
	// with ErrTooMuchMemory, before anything starts.
	MaxMemory uint64
	// Listen and Dial replace the host's TCP stack in real-time runs, e.g.
	// with an in-memory network in tests. Both or neither.
	Listen target.ListenFunc
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	// Apart runs a real-time run's cohorts one after the other, each alone
	// on the machine, instead of all at once: on few cores the cohorts
	// then do not take CPU from each other at the instants that matter
	// (a crash every cohort sees at once, the waves after it). Each cohort
	// has its own t = 0; the run takes as many times longer as there are
	// cohorts. Ignored with an external target (one service, one timeline).
	Apart bool
	// NoSimReference leaves out the simulator's figures that a real-time
	// run with an embedded target otherwise carries beside its own
	// (results.Run.Sim): the same plans and seeds, run in virtual time.
	NoSimReference bool
	// BeforeSend, if set, is called by every real-time client right before
	// each send (clients.Swarm.BeforeSend): tests make the harness late
	// with it.
	BeforeSend func()
	// Resolver resolves an external target's host, for the loopback
	// check and for the swarm's dials; net.DefaultResolver when nil. Tests
	// pass one with their own DNS.
	Resolver *net.Resolver

	// Part runs one shard of every cohort (clients.Part): its clients, or
	// its share of an open workload's arrivals. A Part with Of set marks
	// the results as that shard's (results.ShardInfo); the zero Part runs
	// the whole cohort.
	Part clients.Part
	// StartAt, if set, is the real-time run's t = 0 on the wall clock
	// instead of now plus a lead: the instant every shard of a run agreed
	// on. A run that cannot be ready by then is refused before it sends
	// anything, with a *LateError (shard.go).
	StartAt time.Time

	// Drive, if set, runs each cohort's clients in real time instead of
	// herdbench's swarm (package herdtest runs a user's own client code
	// with it): Start calls it once per cohort, in a goroutine of its own,
	// and the cohort is done when it returns. It must return by the run's
	// end or ctx's. The plan's strategies then only name the cohorts.
	Drive func(ctx context.Context, c Driven)

	// Observe, if set, is asked once per cohort of each real-time run
	// (by its strategy's name) for an observer its recorder tells of every
	// attempt (results.Recorder.Observe): the live latency histograms of
	// package telemetry. The simulator ignores it.
	Observe func(cohort string) results.Observer

	// beforeTask, in tests, is called before each simulated cohort run.
	beforeTask func(point, cohort, rep int)
}

// Point is the outcome of one plan (one client count of a sweep) over its
// repetitions.
type Point struct {
	Plan *scenarios.Plan
	// Output's Summary has one Run per cohort: the first repetition's
	// figures, with Stats over all repetitions when there were several.
	// Its Cohorts are the first repetition's recorders when
	// Options.Timelines is set.
	Output results.Output
	// Repetitions holds, with more than one repetition, each cohort's
	// figures in every repetition that ran, in the order of Output's
	// runs: what thresholds are checked against.
	Repetitions [][]results.Run
}

// Execute runs every plan Options.Runs times, in virtual time or real time,
// and returns one Point per plan, in order. Real runs go one after another;
// simulated cohort runs are spread over the workers, with results in a
// fixed order, so the figures never depend on scheduling. If ctx is
// cancelled, Execute stops starting runs and returns the points that began:
// those that finished whole, and those it cut, marked partial; the first
// point always, even if nothing of it ran.
func Execute(ctx context.Context, plans []*scenarios.Plan, o Options) ([]Point, error) {
	if o.MaxMemory > 0 {
		if err := CheckMemory(plans, o, o.MaxMemory, "the limit of "+size(o.MaxMemory)); err != nil {
			return nil, err
		}
	}
	reps := max(1, o.Runs)
	if o.Sim {
		return executeSim(ctx, plans, reps, o)
	}
	total, done := 0, 0
	for _, p := range plans {
		total += reps * len(p.Strategies)
	}
	points := make([]Point, 0, len(plans))
	for pi, p := range plans {
		cohortRuns := make([][]results.Run, len(p.Strategies))
		var first results.Output
		var check *selfCheck
		var runErr error
		partial := false
		for rep := 0; rep < reps; rep++ {
			if rep > 0 && ctx.Err() != nil {
				partial = true
				break
			}
			q := *p
			q.Seed = seeds.Rep(p.Seed, rep)
			rr, err := runRep(ctx, &q, o, pi, rep)
			if err != nil {
				return points, err
			}
			out := rr.out
			if rr.err != nil {
				// A bug stopped the run: keep what it recorded, and stop.
				runErr = rr.err
				out.Summary.Partial = true
			}
			partial = partial || out.Summary.Partial
			if rep == 0 {
				first = out
				first.Summary.Started = rr.origin.UTC().Truncate(time.Millisecond)
				check = rr.check
			} else {
				check.merge(rr.check)
			}
			for i, run := range out.Summary.Runs {
				cohortRuns[i] = append(cohortRuns[i], run)
			}
			if out.Summary.Partial {
				break
			}
			if done += len(p.Strategies); o.OnDone != nil {
				o.OnDone(done, total)
			}
		}
		s := first.Summary
		s.Seed, s.Partial = p.Seed, partial
		finishSummary(s, p, cohortRuns, reps)
		check.apply(s) // over every repetition
		if !o.Timelines {
			first.Cohorts = nil
		}
		points = append(points, Point{Plan: p, Output: first, Repetitions: repetitions(cohortRuns, reps)})
		if runErr != nil {
			return points, runErr
		}
		if ctx.Err() != nil {
			break
		}
	}
	if !o.NoSimReference && ctx.Err() == nil {
		addSimReference(ctx, points, reps, o)
	}
	return points, nil
}

// addSimReference runs the real points' plans again in virtual time, with
// the same seeds, and puts each cohort's simulated figures beside the real
// ones. An external target has no model to simulate: its points get none.
func addSimReference(ctx context.Context, points []Point, reps int, o Options) {
	var plans []*scenarios.Plan
	var at []int
	for i, pt := range points {
		if pt.Plan.TargetURL == "" && !pt.Output.Summary.Partial {
			plans = append(plans, pt.Plan)
			at = append(at, i)
		}
	}
	if len(plans) == 0 {
		return
	}
	sim, err := executeSim(ctx, plans, reps, Options{Workers: o.Workers})
	if err != nil {
		return // a bug in the simulator: the real figures stand without a reference
	}
	for k, sp := range sim {
		if sp.Output.Summary.Partial {
			continue
		}
		real := points[at[k]].Output.Summary
		for i := range real.Runs {
			for _, r := range sp.Output.Summary.Runs {
				if r.Strategy == real.Runs[i].Strategy {
					real.Runs[i].Sim = results.SimFigures(r)
				}
			}
		}
	}
}

// repRun is one repetition of a real-time run: what it wrote, the first
// cohort's t = 0, the self-check, and the panic that stopped it, if any.
type repRun struct {
	out    results.Output
	origin time.Time
	check  *selfCheck
	err    error // a panic of the run's goroutines (Run.Err)
}

// runRep runs one repetition of p in real time: every cohort at once, or,
// with Options.Apart, one cohort after the other, each alone on the
// machine.
func runRep(ctx context.Context, p *scenarios.Plan, o Options, point, rep int) (repRun, error) {
	if !o.Apart || p.TargetURL != "" || len(p.Strategies) < 2 {
		r, err := Start(ctx, p, o)
		if err != nil {
			return repRun{}, err
		}
		if o.OnRun != nil {
			o.OnRun(point, rep, r)
		}
		return repRun{out: r.Wait(), origin: r.Origin, check: r.check, err: r.Err()}, nil
	}
	var rr repRun
	for i := range p.Strategies {
		if i > 0 && ctx.Err() != nil {
			rr.out.Summary.Partial = true // the cohorts after this one never ran
			break
		}
		q := *p
		q.Strategies = p.Strategies[i : i+1]
		r, err := Start(ctx, &q, o)
		if err != nil {
			return repRun{}, err
		}
		if o.OnRun != nil {
			o.OnRun(point, rep, r)
		}
		co := r.Wait()
		started := r.Origin.UTC().Truncate(time.Millisecond)
		if len(co.Summary.Runs) > 0 {
			co.Summary.Runs[0].Started = &started
		}
		if len(co.Cohorts) > 0 {
			co.Cohorts[0].Started = started
		}
		if i == 0 {
			rr = repRun{out: co, origin: r.Origin, check: r.check}
			rr.out.Summary.CohortsApart = true
		} else {
			rr.out.Summary.Runs = append(rr.out.Summary.Runs, co.Summary.Runs...)
			rr.out.Cohorts = append(rr.out.Cohorts, co.Cohorts...)
			rr.check.join(r.check)
		}
		if rr.err = r.Err(); rr.err != nil {
			break
		}
		if co.Summary.Partial {
			rr.out.Summary.Partial, rr.out.Summary.EndedS = true, co.Summary.EndedS
			break
		}
	}
	rr.check.limit = results.Limit(timescales(p)) // every cohort's strategy counts, not the first's alone
	rr.check.apply(rr.out.Summary)
	return rr, nil
}

// ApartByDefault reports whether a real-time run of p should run its
// cohorts one after the other (Options.Apart) when the user does not say:
// when the process has fewer cores than p has cohorts and p's clients are
// closed-loop or one-shot. Such clients act together: a crash or the start
// fails hundreds of them at one instant, and what the run measures is how
// they retry afterwards, in waves a few milliseconds wide. Cohorts that
// share too few cores wake at those same instants and take the CPU from
// each other, smearing each other's waves (docs/performance.md has the
// measurements). Open-loop arrivals are independent of each other: their
// cohorts run together, unless they call a chain of tiers: a cohort whose
// chain collapses multiplies its work on the machine (every middle tier's
// calls and connections, thousands of them) and takes the CPU from the
// other cohorts' servers, whose capacity then drops with it.
func ApartByDefault(p *scenarios.Plan) bool {
	shared := p.Workload.Kind != clients.Open || len(p.Tiers) > 1
	return p.TargetURL == "" && shared && runtime.GOMAXPROCS(0) < len(p.Strategies)
}

// finishSummary puts the repetitions' figures into s.
func finishSummary(s *results.Summary, p *scenarios.Plan, cohortRuns [][]results.Run, reps int) {
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
	s.Runs = s.Runs[:0]
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
		if len(runs) > 0 { // as finishSummary keeps them
			out = append(out, runs)
		}
	}
	return out
}

// task is one simulated cohort run.
type task struct{ point, cohort, rep int }

func executeSim(ctx context.Context, plans []*scenarios.Plan, reps int, o Options) ([]Point, error) {
	started := time.Now()
	var tasks []task
	for pi, p := range plans {
		for rep := 0; rep < reps; rep++ {
			for ci := range p.Strategies {
				tasks = append(tasks, task{pi, ci, rep})
			}
		}
	}
	// Results land in fixed slots, so their order never depends on which
	// worker ran what.
	runs := make([][][]results.Run, len(plans))
	done := make([][][]bool, len(plans))
	kept := make([][]*results.Recorder, len(plans))
	keptBelow := make([][][]*results.Recorder, len(plans)) // a chain's tiers' recorders
	for pi, p := range plans {
		runs[pi] = make([][]results.Run, len(p.Strategies))
		done[pi] = make([][]bool, len(p.Strategies))
		kept[pi] = make([]*results.Recorder, len(p.Strategies))
		keptBelow[pi] = make([][]*results.Recorder, len(p.Strategies))
		for ci := range p.Strategies {
			runs[pi][ci] = make([]results.Run, reps)
			done[pi][ci] = make([]bool, reps)
		}
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(tasks))
	var next, ended atomic.Int64
	// An interrupt stops every worker's cohort run where it is (sim's
	// Cohort.Stop), not only the starting of the next one: one cohort run
	// of a long scenario lasts minutes.
	var stop atomic.Bool
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	cut := make([]time.Duration, len(plans)) // per point: the earliest virtual time a cut run reached; -1 if none
	for i := range cut {
		cut[i] = -1
	}
	var cutMu sync.Mutex
	var wg sync.WaitGroup
	var failed atomic.Pointer[PanicError] // the first worker's panic: every worker stops
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					failed.CompareAndSwap(nil, &PanicError{Value: v, Stack: debug.Stack()})
				}
			}()
			s := sim.New()
			var scratch *results.Recorder
			var scratchBelow []*results.Recorder
			for ctx.Err() == nil && failed.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(tasks) {
					return
				}
				t := tasks[i]
				if o.beforeTask != nil {
					o.beforeTask(t.point, t.cohort, t.rep)
				}
				p := plans[t.point]
				rec := scratch
				keep := o.Timelines && t.rep == 0
				switch {
				case keep:
					rec = results.NewRecorder(p.Duration, 1).Unshared()
				case rec == nil || rec.Duration() != p.Duration:
					scratch = results.NewRecorder(p.Duration, 1).WithoutIntervals().Unshared()
					rec = scratch
				default:
					rec.Reset()
				}
				var below []*results.Recorder
				switch {
				case keep:
					below = newBelow(p, func() *results.Recorder { return results.NewRecorder(p.Duration, 1).Unshared() })
				case len(scratchBelow) != max(0, len(p.Tiers)-1) || len(scratchBelow) > 0 && scratchBelow[0].Duration() != p.Duration:
					scratchBelow = newBelow(p, func() *results.Recorder {
						return results.NewRecorder(p.Duration, 1).WithoutIntervals().Unshared()
					})
					below = scratchBelow
				default:
					for _, b := range scratchBelow {
						b.Reset()
					}
					below = scratchBelow
				}
				splitAtFault(p, append([]*results.Recorder{rec}, below...)...)
				co := simCohort(p, t.cohort, seeds.Rep(p.Seed, t.rep), below)
				co.Part, co.Stop = o.Part, &stop
				res := s.Run(co, rec)
				if res.Stopped {
					if t.rep > 0 {
						// A repetition cut short is not one: the figures
						// over repetitions keep those that ran whole.
						return
					}
					// The first repetition's figures and timelines are
					// the ones shown: ended_s says where they stop.
					cutMu.Lock()
					if cut[t.point] < 0 || res.End < cut[t.point] {
						cut[t.point] = res.End
					}
					cutMu.Unlock()
				}
				rc := cohortOf(p, p.Strategies[t.cohort].Name, rec, below)
				run := results.Summarize(rc, window(p))
				run.WastedWork = res.Target.Wasted
				tierWaste(&run, res.Tiers)
				runs[t.point][t.cohort][t.rep] = run
				done[t.point][t.cohort][t.rep] = true
				if keep {
					kept[t.point][t.cohort] = rec
					keptBelow[t.point][t.cohort] = below
				}
				if o.OnDone != nil {
					o.OnDone(int(ended.Add(1)), len(tasks))
				}
			}
		}()
	}
	wg.Wait()

	points := make([]Point, 0, len(plans))
	for pi, p := range plans {
		s := newSummary(p, "sim", o.Version, started)
		cohortRuns := make([][]results.Run, len(p.Strategies))
		ran := false
		for ci := range p.Strategies {
			for rep := 0; rep < reps; rep++ {
				if !done[pi][ci][rep] {
					s.Partial = true
					continue
				}
				ran = true
				cohortRuns[ci] = append(cohortRuns[ci], runs[pi][ci][rep])
			}
		}
		if !ran && pi > 0 {
			continue // interrupted before this point began: nothing to keep
		}
		if cut[pi] >= 0 {
			s.Partial = true
			ended := cut[pi].Seconds()
			s.EndedS = &ended
		}
		finishSummary(s, p, cohortRuns, reps)
		out := results.Output{Summary: s, Scenario: p.Resolved}
		if o.Timelines {
			// Every cohort whose figures the summary holds has its
			// timeline, whole or cut where the interrupt found it; a
			// cohort that never began has neither.
			for ci, st := range p.Strategies {
				if len(cohortRuns[ci]) > 0 && kept[pi][ci] != nil {
					out.Cohorts = append(out.Cohorts, cohortOf(p, st.Name, kept[pi][ci], keptBelow[pi][ci]))
				}
			}
		}
		markShard(&out, p, o.Part)
		points = append(points, Point{Plan: p, Output: out, Repetitions: repetitions(cohortRuns, reps)})
	}
	if pe := failed.Load(); pe != nil {
		return points, pe
	}
	return points, nil
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
	return s
}

// splitAtFault makes each recorder keep the latencies from the end of p's
// last fault on (Recorder.SplitAt), when a metric reads them
// (results.SplitWanted); a plan without faults has no split.
func splitAtFault(p *scenarios.Plan, recs ...*results.Recorder) {
	if p.Chaos == nil || !results.SplitWanted() {
		return
	}
	if _, last, ok := p.Chaos.Span(); ok {
		for _, r := range recs {
			r.SplitAt(last)
		}
	}
}

// window is the span of p's chaos plan that the metrics measure from.
func window(p *scenarios.Plan) results.Window {
	if p.Chaos != nil {
		if first, last, ok := p.Chaos.Span(); ok {
			return results.Window{FirstStart: first, LastEnd: last}
		}
	}
	return results.Window{}
}

// cohortOf returns the cohort name of p recorded by rec (and, for a chain
// of tiers, by below).
func cohortOf(p *scenarios.Plan, name string, rec *results.Recorder, below []*results.Recorder) results.Cohort {
	return results.Cohort{
		Strategy: name, Rec: rec,
		OCC:     p.Target.Kind == target.OCC,
		OneShot: p.Workload.Kind == clients.OneShot,
		Tiers:   tierNames(p), Below: below,
	}
}
