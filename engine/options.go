package engine

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
	"github.com/herdbench/herdbench/target"
)

// Options say how Execute (and Start) runs plans, grouped by concern:
// how the plans run (Mode), where real-time runs listen and dial
// (Network), which shard of a split run this is (Shard), who watches a run
// as it goes (Watch), and what runs beside the engine that its options
// must agree with (Beside). Check holds the rules of which go together.
type Options struct {
	Version string // herdbench's, written into the results
	Mode
	Network
	Shard
	Watch
	Beside
	// MaxMemory, if set, refuses plans whose EstimateMemory is above it,
	// with ErrTooMuchMemory, before anything starts.
	MaxMemory uint64
	// Drive, if set, runs each cohort's clients in real time instead of
	// herdbench's swarm (package herdtest runs a user's own client code
	// with it): Start calls it once per cohort, in a goroutine of its own,
	// and the cohort is done when it returns. It must return by the run's
	// end or ctx's. The plan's strategies then only name the cohorts.
	Drive func(ctx context.Context, c Driven)
	// BeforeSend, if set, is called by every real-time client right before
	// each send (swarm.Swarm.BeforeSend): tests make the harness late
	// with it.
	BeforeSend func()

	// lateness is, for the simulator, each plan's cohorts' lateness tables
	// (sim.Cohort's Lateness and SendLag; lateness.go): the model with a
	// real run's own lateness. Nil for every other run.
	lateness map[*scenarios.Plan][]lateTables
	// beforeTask, in tests, is called before each unit the scheduler
	// starts (schedule.go), with its point, first cohort and repetition.
	beforeTask func(point, cohort, rep int)
	// afterSim, in tests, is given what each simulated cohort run did.
	afterSim func(sim.Result)
}

// Mode is how the plans run: in which time, how often, what is kept.
type Mode struct {
	// Sim runs in virtual time (package sim) instead of real time.
	Sim bool
	// SlowMotion runs real-time runs in slow motion (package slowmo): the
	// swarm and the embedded target live every duration of the scenario
	// SlowMotion times longer on the wall clock and record in the
	// scenario's time, so the harness's own lateness is SlowMotion times
	// smaller in it. 0 or 1: real speed. CheckSlowMotion says which plans
	// take it.
	SlowMotion slowmo.Factor
	// Cohorts says how a real-time run's cohorts share the machine: all at
	// once (Together, the zero value), one after the other, each alone on
	// the machine and from its own t = 0 (Apart), or as ApartByDefault
	// says (Auto). Options.Apart decides for a plan.
	Cohorts Cohorts
	// Runs is how many times each cohort runs, each with its own seed
	// (seeds.Rep); less than 1 means once.
	Runs int
	// Workers is how many cohort runs the simulator runs at once; 0 means
	// GOMAXPROCS. Results never depend on it.
	Workers int
	// Timelines keeps the first repetition's recorders in Point.Output, for
	// writing timelines. A sweep leaves it off to save memory.
	Timelines bool
	// NoSimReference leaves out the simulator's figures that a real-time
	// run with an embedded target otherwise carries beside its own
	// (results.Run.Sim): the same plans and seeds, run in virtual time.
	NoSimReference bool
}

// Cohorts is how a real-time run's cohorts share the machine (Mode.Cohorts).
type Cohorts uint8

// How cohorts share the machine.
const (
	Together Cohorts = iota // every cohort at once, on one shared origin
	Apart                   // one after the other, each alone on the machine
	Auto                    // apart when ApartByDefault says so
)

// ParseCohorts reads a Cohorts by its name: together, apart or auto.
func ParseCohorts(s string) (Cohorts, bool) {
	switch s {
	case "together":
		return Together, true
	case "apart":
		return Apart, true
	case "auto":
		return Auto, true
	}
	return 0, false
}

// Network is where real-time runs listen and dial.
type Network struct {
	// Listen and Dial replace the host's TCP stack in real-time runs, e.g.
	// with an in-memory network in tests. Both or neither.
	Listen target.ListenFunc
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
	// Resolver resolves an external target's host, for the loopback
	// check and for the swarm's dials; net.DefaultResolver when nil. Tests
	// pass one with their own DNS.
	Resolver *net.Resolver
}

// Shard is which shard of a run split over processes this is (shard.go).
type Shard struct {
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
	// Clock, for a shard, is this machine's clock measured against the
	// chaos controller's: the merge lines the shards' timelines up with it
	// (results.ShardInfo.Clock).
	Clock *results.ClockOffset
}

// Watch is who watches runs as they go.
type Watch struct {
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
	// Observe, if set, is asked once per cohort of each real-time run
	// (by its strategy's name) for an observer its recorder tells of every
	// attempt (results.Recorder.Observe): the live latency histograms of
	// package telemetry. The simulator ignores it.
	Observe func(cohort string) results.Observer
}

// Beside is what runs beside the engine that its options must agree with,
// as the command sets it from its flags: Check refuses what cannot go
// together.
type Beside struct {
	// ChaosControl says a chaos controller (a standalone target or proxy,
	// --chaos-control) applies the fault plan on its own wall clock, from
	// one t = 0.
	ChaosControl bool
	// Live names the live outputs that watch a real run as it goes, as
	// the command names them (--metrics-addr, --otlp, --ui).
	Live []string
}

// ErrOptions is wrapped by every error of Options.Check.
var ErrOptions = errors.New("options that do not go together")

// Check returns the first rule of which options go together that o
// breaks for a run of plan p (the first plan of a sweep: its points
// share these), nil if none; with p nil, only the rules of the options
// alone. The command calls it once its flags are read (p nil) and again
// with the scenario compiled; the messages name the flags.
func (o Options) Check(p *scenarios.Plan) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrOptions}, args...)...)
	}
	sharded := o.Part.Of > 0 || !o.StartAt.IsZero()
	switch {
	case o.SlowMotion.On() && o.Sim:
		return fail("--slow-motion is for real-time runs, whose harness can be late; --sim is never late: drop one of them")
	case o.Part.Of > 0 && o.StartAt.IsZero():
		return fail("--shard needs --start-at: every shard of a run starts at one agreed instant, e.g. --start-at %s", time.Now().Add(time.Minute).UTC().Truncate(time.Second).Format("2006-01-02T15:04:05.000Z"))
	case sharded && o.Sim:
		return fail("--shard and --start-at are for real-time runs; in virtual time (--sim) one process runs any number of clients: drop --sim, or drop them")
	case sharded && o.Cohorts == Apart:
		return fail("--cohorts apart starts each cohort at its own t = 0, and --start-at names one: drop one of them")
	case sharded && p != nil && (p.Runs > 1 || len(p.Sweep) > 0):
		return fail("%s repeats its run (runs: %d) or sweeps a field (sweep:, --set A=x,y or --clients a,b): --shard and --start-at run one run at one instant; set runs: 1 and no sweep, or give --runs 1 and one value per --set", p.Name, p.Runs)
	case o.Sim:
		if msg := simConflict(p != nil && p.TargetURL != "", o.ChaosControl, o.Live); msg != "" {
			return fail("%s", msg)
		}
	case o.SlowMotion.On() && o.ChaosControl:
		return fail("--chaos-control runs the fault plan on the wall clock, which --slow-motion does not slow: drop one of them")
	case o.Cohorts == Apart && o.ChaosControl:
		return fail("--cohorts apart starts each cohort at its own t = 0, and --chaos-control starts one fault plan at one t = 0: drop one of them")
	}
	if p == nil {
		return nil
	}
	if err := CheckSlowMotion(p, o); err != nil {
		return fmt.Errorf("%w: --slow-motion: %s", ErrOptions, strings.TrimPrefix(err.Error(), "engine: "))
	}
	return nil
}

// simConflict says what a virtual-time run cannot have beside it: an
// external target, a chaos controller, live outputs; "" when none.
func simConflict(external, chaosControl bool, live []string) string {
	var real, drop []string
	if external {
		real, drop = append(real, "an external target (--target, target.url)"), append(drop, "the external target (--target, or target.url from the file)")
	}
	if chaosControl {
		real, drop = append(real, "--chaos-control"), append(drop, "--chaos-control")
	}
	real, drop = append(real, live...), append(drop, live...)
	if len(real) == 0 {
		return ""
	}
	verb := "needs"
	if len(real) > 1 {
		verb = "need"
	}
	return fmt.Sprintf("--sim runs the model in virtual time, without sockets; %s %s a real-time run: drop --sim, or drop %s", strings.Join(real, ", "), verb, strings.Join(drop, " and "))
}

// Apart reports whether a real-time run of p runs its cohorts one after
// the other (Mode.Cohorts): never in virtual time, with an external target
// (one service, one timeline), beside a chaos controller (one fault plan,
// one t = 0) or with a single cohort.
func (o Options) Apart(p *scenarios.Plan) bool {
	if o.Sim || p.TargetURL != "" || o.ChaosControl || len(p.Strategies) < 2 {
		return false
	}
	return o.Cohorts == Apart || o.Cohorts == Auto && ApartByDefault(p)
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
