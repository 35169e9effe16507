package engine

import (
	"context"
	"net"
	"runtime"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
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
	// OnDone, if set, is called each time a unit of the scheduler ends
	// (every cohort of a real-time repetition, or one cohort: run apart,
	// or simulated), with how many cohort runs have ended and how many
	// there are in all: the progress of a long sweep. A repetition after
	// the first cut short is not counted. Simulated runs end on several
	// workers: it must be safe to call from several goroutines at once.
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

	// lateness is, for the simulator, each plan's cohorts' lateness tables
	// (sim.Cohort.Lateness; lateness.go): the model with a real run's own
	// lateness. Nil for every other run.
	lateness map[*scenarios.Plan][][]time.Duration

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

	// SlowMotion runs real-time runs in slow motion (package slowmo): the
	// swarm and the embedded target live every duration of the scenario
	// SlowMotion times longer on the wall clock and record in the
	// scenario's time, so the harness's own lateness is SlowMotion times
	// smaller in it. 0 or 1: real speed. CheckSlowMotion says which plans
	// take it.
	SlowMotion slowmo.Factor

	// Clock, for a shard, is this machine's clock measured against the
	// chaos controller's: the merge lines the shards' timelines up with it
	// (results.ShardInfo.Clock).
	Clock *results.ClockOffset

	// beforeTask, in tests, is called before each unit the scheduler
	// starts (schedule.go), with its point, first cohort and repetition.
	beforeTask func(point, cohort, rep int)
	// afterSim, in tests, is given what each simulated cohort run did.
	afterSim func(sim.Result)
}

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
	var refs []*results.Summary
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
		var ref *results.Summary
		var late *opinion
		if refs != nil {
			ref = refs[pi]
		}
		if lates != nil {
			late = lates[pi]
		}
		points = append(points, assemble(p, o, mode, started, &got[pi], ref, late))
	}
	return points, err
}

// simReference runs the real points' plans again in virtual time, with
// the same seeds, and returns each one's simulated summary (nil where
// there is none). An external target has no model to simulate, and a
// point cut short has no whole figures to compare: neither gets one. A
// bug in the simulator leaves every point without a reference.
func simReference(ctx context.Context, plans []*scenarios.Plan, got []scheduled, o Options) []*results.Summary {
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
