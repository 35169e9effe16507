package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/internal/sysmem"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/report"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

const scenarioHelp = `Usage: herdbench scenario NAME|FILE [flags]

Runs a scenario: every strategy it lists runs as a cohort of clients against
its own fresh fault-injecting target on 127.0.0.1, with the same seed and the
same chaos plan, so they differ only by strategy. The cohorts run at once, or
one after the other when closed-loop or one-shot cohorts, or cohorts calling a
chain of tiers, outnumber the cores (--cohorts): cohorts that share too few
cores smear each other's waves.

NAME is a built-in scenario (herdbench list) and FILE a scenario YAML file; a
file on disk wins over a built-in of the same name.

At the end it prints the answer, in at most 20 lines at 120 columns: a real
run's verdict in one sentence, the comparison in brief (the simulator's
figures in brackets), a sparkline of attempts per cohort and the results
folder; --explain prints everything else after it (every table in full,
what the figures mean, the self-check). It writes a results folder
<out>/<scenario>-<UTC time>/ holding summary.json (the figures),
timeline.csv (counts per 10 ms), timeline_1s.csv, scenario.yaml (the
scenario as run), one HdrHistogram log per cohort (<cohort>.hlog),
report.html (charts and the comparison; open it in a browser, no network
needed) and PNG copies of its charts. See docs/results.md; 'herdbench
report DIR' re-renders the report.

A real run judges its own figures. It runs the same plan in virtual time
(well under a second) and prints the simulator's figures for the same seed
in brackets beside each cohort's (--no-sim-reference: not); --explain adds
them again with the lateness its harness measured (how late attempts were
sent, how far apart the clients learned of a crash) on a "(sim, late)" row.
Its verdict, in one sentence and in summary.json: exact (every headline
figure agrees with the simulator's), holds (they agree, the herd factor
read over buckets wider than 10 ms, where this machine smeared the waves)
or not trustworthy (a figure left its band, or could have: exit code 5).
By default (--slow-motion auto) a calibration of about 2 s first measures
how late this machine's harness is at a crash, and the model picks the
slow motion the scenario needs (and, where the cohorts would run apart,
whether together in more slow motion is better); the choice and the
expected wall time are said before the run.

Thresholds in the scenario (e.g. "amplification <= 1.5", "recovery_s <= 5s",
"latency.request.p99 < 2s", "success_ratio >= 99%"; top-level for every
cohort, or under a strategy for it alone) are checked at the end, printed as
a pass/fail table and recorded in summary.json; any failure exits with 3.
With --runs a threshold must hold in every repetition ("mean(herd_factor) <
3" compares the mean instead); a sweep checks them at every client count.

With --target (or target.url in the file) the swarm sends to that service
instead. Nothing leaves this machine's loopback (127.0.0.0/8, ::1) without
--allow-remote: the target's host, --chaos-control's, --metrics-addr's and
--ui's are resolved and every address checked, and checked again at every
connection, so no spelling ("localhost.", "127.1") or DNS answer gets
around it. --chaos-control follows no redirect and sends the control
token from $HERDBENCH_CONTROL_TOKEN or --chaos-control-token-file, if the
proxy or target has one. --ui ADDR serves a live page of the run for the
room (charts by outcome every 100 ms, the fault plan, the verdict so
far); off loopback it needs a token (--ui-token-file), the page then
opened as http://HOST:PORT/#token=TOKEN. Ctrl-C or SIGTERM stops the
run within about a second and still writes the results, marked partial
(exit 130); a second Ctrl-C exits at once. docs/game-day.md has the runbook.

With --sim the scenario runs in virtual time instead: a deterministic
discrete-event simulation of the same clients, target model and chaos plan,
in a fraction of a second and without sockets. The same seed gives the same
summary.json ("mode": "sim"), so results can be repeated exactly, and fleets
far larger than one machine can hold (a million clients) can be studied.

--runs K repeats each cohort K times with seeds derived from the root seed
and reports every figure as mean ± standard deviation (summary.json: each
run's "stats").

--set PATH=VALUE sets a field of the scenario, named by its path as in the
YAML (workload.clients, target.concurrency, chaos[1].for, strategies[0].jitter,
or a list item by its name: strategies[no-jitter].base, chaos[crash].for).
With several values, --set PATH=V1,V2,... sweeps the field: the scenario runs
at every combination of the values of every swept field (the cross product),
each point with its --runs repetitions and its thresholds, in either engine.
--clients 10,20,50 is --set workload.clients=10,20,50. Every point is checked
before anything runs. The folder then holds sweep.csv (a row per point and
strategy: a column per swept field, means and standard deviations), one
summary per point, and report.html, which draws every figure against a swept
field and, for two swept fields, a heat map of each figure over both. Real
runs go one after another; simulated runs use every core. The folder's
scenario.yaml records the repetitions (runs) and the sweep (its sweep:
section, which takes any field as --set does): rerunning it repeats them.
Ctrl-C keeps the points that finished.

Before anything runs, every number is checked against its range
(docs/limits.md), --out is created and checked writable, with free space
for the results folder's estimated size, and the memory the run needs is
estimated: above --max-memory (default: half of this machine's memory, its
cgroup's limit or its ulimit -v less 2 GiB, whichever is smallest) the run
is refused with what to change.

Examples:
  herdbench scenario outage
  herdbench scenario outage --strategies no-jitter,full-jitter --seed 7
  herdbench scenario my-service.yaml --duration 1m --out /tmp/results
  herdbench scenario aws-contention --sim --runs 100
  herdbench scenario aws-contention --sim --runs 100 --clients 10,50,100,150
  herdbench scenario jitter-range --sim
  herdbench scenario outage --sim --set workload.clients=100,300,1000 --set chaos[crash].for=1s,2.3s,4s
  herdbench scenario outage --strategies full-jitter --set strategies[full-jitter].cap=1s,10s
  herdbench scenario outage --sim --clients 1000000
  herdbench scenario gameday.yaml --target http://127.0.0.1:8090/ --chaos-control http://127.0.0.1:8091 --metrics-addr 127.0.0.1:9100

Flags:
`

type scenarioFlags struct {
	out        string
	seed       uint64
	strategies []string
	duration   time.Duration
	quiet      bool
	noPNG      bool
	sim        bool
	runs       int
	clients    []int
	set        []string
	maxMemory  string
	cohorts    string
	slow       slowMotionFlag
	noSimRef   bool
	junit      string // --junit: the thresholds as a JUnit XML report
	json       bool   // --json: summary.json on stdout, the tables on stderr
	explain    bool   // --explain: every table and what the figures mean, after the answer
	print      bool   // --print: the scenario's YAML on stdout, nothing run
	game       gameDayFlags
	sh         shardFlags

	// allowUntrustworthy is --allow-untrustworthy: a verdict not
	// trustworthy sets no exit code and fails no JUnit case.
	allowUntrustworthy bool
}

// execute runs the plans, calibrate measures this machine's harness for
// --slow-motion auto and renderReport draws a results folder's report;
// tests replace them.
var (
	execute      = engine.Execute
	calibrate    = engine.Calibrate
	renderReport = report.RenderDir
)

// scenarioRun is a scenario command whose flags and scenario were read and
// checked: what it will run, and how.
type scenarioRun struct {
	f         scenarioFlags
	plans     []*scenarios.Plan // one, or one per point of a sweep
	sweep     bool
	opts      engine.Options
	limit     uint64 // --max-memory, or its default; 0 for none
	limitText string // how to name the limit in messages
	// wall is how long the runs last at real speed (wallAtRealSpeed).
	wall time.Duration
}

// planScenario reads the scenario command's flags and compiles its
// scenario. done is true when the command should return code at once
// (help asked for, or a problem reported on stderr). Nothing is checked
// against the machine yet (memory, --out).
func planScenario(args []string, stdout, stderr io.Writer) (sr *scenarioRun, code int, done bool) {
	sr = &scenarioRun{}
	f := &sr.f
	fs := pflag.NewFlagSet("scenario", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&f.out, "out", "o", "runs", "folder to write the results folder into (created, and checked writable, before the run)")
	fs.Uint64Var(&f.seed, "seed", 0, "root random seed (default: the scenario's seed, or a random one, recorded in summary.json)")
	fs.StringSliceVar(&f.strategies, "strategies", nil, "run only these strategies, comma-separated, in this order")
	fs.DurationVar(&f.duration, "duration", 0, "run for this long instead of the scenario's duration (e.g. 45s; at most 24h)")
	fs.BoolVar(&f.sim, "sim", false, "run in virtual time: a deterministic simulation, no sockets")
	fs.IntVar(&f.runs, "runs", 1, fmt.Sprintf("repeat each cohort this many times, 1 to %d (seeds derived from the root seed), and report mean ± sd; thresholds must hold in every repetition", scenarios.MaxRuns))
	fs.StringArrayVar(&f.set, "set", nil, "set a field, PATH=VALUE (e.g. target.concurrency=32), or sweep it, PATH=V1,V2,... (e.g. strategies[0].jitter=0,0.1,1); repeat it to sweep several fields over every combination")
	fs.IntSliceVar(&f.clients, "clients", nil, "clients per cohort, instead of the scenario's; several (10,20,50) sweep them: the same as --set workload.clients=10,20,50")
	fs.StringVar(&f.maxMemory, "max-memory", "", "refuse a run estimated to need more memory than this, e.g. 8GiB or 500MB; 0 for no limit (default: half of this machine's memory, its cgroup's limit or its ulimit -v less 2 GiB, the smallest)")
	fs.StringVar(&f.cohorts, "cohorts", "auto", "in real time, run the cohorts together (at once) or apart (one after the other, each alone on the machine); auto: apart when closed-loop or one-shot cohorts, or cohorts calling a chain of tiers, outnumber the cores")
	f.slow = slowMotionFlag{auto: true, k: 1}
	fs.Var(&f.slow, "slow-motion", slowMotionHelp)
	fs.BoolVar(&f.noSimRef, "no-sim-reference", false, "in real time, do not also run the plan in virtual time to show the simulator's figures beside the real ones")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress output; print only the results")
	fs.BoolVar(&f.noPNG, "no-png", false, "write report.html without PNG copies of its charts (faster; 'herdbench report DIR' can add them later)")
	addOutputFlags(fs, f)
	fs.BoolVar(&f.print, "print", false, "print the scenario's YAML (a built-in's, to copy and edit: herdbench scenario outage --print > my.yaml) and run nothing")
	f.game.add(fs)
	f.sh.add(fs)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), scenarioHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), exitCodesHelp)
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return nil, code, true
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "herdbench scenario: name one scenario (a file or a built-in name), got %d arguments\nRun 'herdbench list' for the built-in scenarios, 'herdbench scenario --help' for flags.\n", fs.NArg())
		return nil, exitUsage, true
	}
	if f.print {
		return nil, printScenario(fs, stdout, stderr), true
	}
	if msg := cmpOr(f.check(fs), f.sh.check(f, fs)); msg != "" {
		fmt.Fprintln(stderr, "herdbench scenario: "+msg)
		return nil, exitUsage, true
	}
	var err error
	if sr.limit, sr.limitText, err = memoryLimit(f.maxMemory); err != nil {
		fmt.Fprintf(stderr, "herdbench scenario: --max-memory: %v\n", err)
		return nil, exitUsage, true
	}
	cohorts, _ := engine.ParseCohorts(f.cohorts) // checked with the flags
	sr.opts = engine.Options{Version: herdbenchVersion(), MaxMemory: sr.limit,
		Mode:   engine.Mode{Sim: f.sim, NoSimReference: f.noSimRef, SlowMotion: slowmo.Factor(f.slow.k), Cohorts: cohorts},
		Shard:  engine.Shard{Part: f.sh.part, StartAt: f.sh.t0},
		Beside: engine.Beside{ChaosControl: f.game.chaosControl != "", Live: f.game.live()},
	}
	if err := sr.opts.Check(nil); err != nil {
		fmt.Fprintln(stderr, "herdbench scenario: "+strings.TrimPrefix(err.Error(), engine.ErrOptions.Error()+": "))
		return nil, exitUsage, true
	}
	o := scenarios.Overrides{Duration: f.duration, Strategies: f.strategies, Target: f.game.target, AllowRemote: f.game.allowRemote}
	if fs.Changed("seed") {
		o.Seed = &f.seed
	}
	if fs.Changed("runs") {
		o.Runs = f.runs
	}
	if o.Headers, err = f.game.requestHeaders(); err != nil {
		fmt.Fprintln(stderr, "herdbench scenario:", err)
		return nil, exitUsage, true
	}
	if o.Set, err = f.axes(); err != nil {
		fmt.Fprintln(stderr, "herdbench scenario:", err)
		return nil, exitUsage, true
	}
	f.sh.overrides(&o)
	// The scenario, compiled once, or once per point of its sweep (the
	// file's, with --set and --clients over it), all with one root seed:
	// every point is checked before any runs.
	op, err := scenarios.Open(fs.Arg(0), o)
	if note := builtinNote(fs.Arg(0), op); note != "" && !f.quiet {
		fmt.Fprintln(stderr, "herdbench: "+note)
	}
	if errors.Is(err, scenarios.ErrNotFound) {
		fmt.Fprint(stderr, "herdbench scenario: ")
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return nil, exitUsage, true
	}
	sr.plans = op.Plans
	plan := sr.plans[0]
	sr.sweep = len(plan.Sweep) > 0
	sr.opts.Runs, sr.opts.Timelines = plan.Runs, !sr.sweep
	if err := sr.opts.Check(plan); err != nil {
		fmt.Fprintln(stderr, "herdbench scenario: "+strings.TrimPrefix(err.Error(), engine.ErrOptions.Error()+": "))
		return nil, exitUsage, true
	}
	return sr, exitOK, false
}

// runScenario runs the scenario command: plan, check the machine, run,
// then finish (finish.go), the same way for one run and for a sweep.
func runScenario(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	var dir string // the results folder, once written
	defer func() {
		if v := recover(); v != nil {
			code = internalError(stderr, v, debug.Stack(), dir)
		}
	}()
	sr, code, done := planScenario(args, stdout, stderr)
	if done {
		return code
	}
	if code := sr.checkMachine(stderr); code != exitOK {
		return code
	}
	gd, code := sr.f.game.prepare(ctx, sr.plans[0], stderr)
	if code != exitOK {
		return code
	}
	defer gd.Close(stderr)
	if sr.f.sh.part.Of > 0 {
		gd.measureClock(ctx, stderr)
	}
	if err := sr.chooseSlowMotion(ctx, stderr); err != nil {
		fmt.Fprintln(stderr, "herdbench: interrupted before the run; nothing was written")
		return exitSignal
	}
	sr.announce(ctx, stderr)
	points, err := sr.execute(ctx, gd, stderr)
	var internal *engine.PanicError
	switch {
	case errors.As(err, &internal) && len(points) > 0:
		// Write what was recorded (marked partial), then report the bug.
		finish(stdout, stderr, "scenario", &sr.f, points, sr.sweep, &dir)
		return internalError(stderr, internal.Value, internal.Stack, dir)
	case errors.As(err, &internal):
		return internalError(stderr, internal.Value, internal.Stack, "")
	case errors.Is(err, engine.ErrLate):
		fmt.Fprintln(stderr, "herdbench:", err)
		return exitLate
	case errors.As(err, new(*notStartedError)):
		fmt.Fprintln(stderr, "herdbench:", err, "\nThe run was stopped before its start; nothing was written.")
		return exitFailed
	case err != nil:
		fmt.Fprintln(stderr, "herdbench:", err)
		if errors.Is(err, engine.ErrTooManyFiles) || errors.Is(err, engine.ErrTooMuchMemory) {
			return exitUsage // refused before anything ran
		}
		return exitFailed
	}
	return finish(stdout, stderr, "scenario", &sr.f, points, sr.sweep, &dir)
}

// checkMachine checks, before any traffic, the memory the run needs and
// the folder it writes into. A non-zero code means stop with it.
func (sr *scenarioRun) checkMachine(stderr io.Writer) int {
	plans := make([]*scenarios.Plan, len(sr.plans))
	for i, p := range sr.plans {
		plans[i] = engine.Share(p, sr.opts.Part) // a shard needs memory for its own clients
	}
	if err := engine.CheckMemory(plans, sr.opts, sr.limit, sr.limitText); err != nil {
		fmt.Fprintf(stderr, "herdbench scenario: %v\nNothing ran.\n", err)
		return exitUsage
	}
	if err := folder.CheckWritable(sr.f.out); err != nil {
		fmt.Fprintf(stderr, "herdbench scenario: --out: %v\nNothing ran; name a folder you can write in, e.g. --out /tmp/runs.\n", err)
		return exitUsage
	}
	dpi := report.PNGDPI
	if sr.f.noPNG {
		dpi = 0
	}
	need := engine.EstimateOutput(plans, sr.opts, dpi)
	if err := folder.CheckSpace(sr.f.out, need.Total, need.String(), folder.FreeSpace); err != nil {
		fmt.Fprintf(stderr, "herdbench scenario: --out: %v\nNothing ran.\n", err)
		return exitUsage
	}
	if err := checkJUnitPath(sr.f.junit); err != nil {
		fmt.Fprintf(stderr, "herdbench scenario: --junit: %v\nNothing ran.\n", err)
		return exitUsage
	}
	return exitOK
}

// strategyNames are the cohorts' names, in order.
func (sr *scenarioRun) strategyNames() []string {
	names := make([]string, len(sr.plans[0].Strategies))
	for i, s := range sr.plans[0].Strategies {
		names[i] = s.Name
	}
	return names
}

// announce says on stderr what is about to run.
func (sr *scenarioRun) announce(ctx context.Context, stderr io.Writer) {
	plan, names := sr.plans[0], sr.strategyNames()
	externalNote(stderr, plan, &sr.f.game)
	if sr.f.quiet {
		return
	}
	mode := "real time"
	if sr.f.sim {
		mode = "virtual time"
	} else if k := sr.opts.SlowMotion; k.On() {
		mode = fmt.Sprintf("real time in slow motion (%d×: each second of the scenario lasts %s)", k, k.Wall(time.Second))
	}
	fmt.Fprintf(stderr, "herdbench %s: scenario %s, %s, seed %d, %s, cohorts: %s\n",
		herdbenchVersion(), plan.Name, plan.Duration, plan.Seed, mode, strings.Join(names, ", "))
	if sh := &sr.f.sh; sh.part.Of > 0 {
		fmt.Fprintf(stderr, "Shard %s: ", sh.part)
		if plan.Workload.Kind != clients.Open {
			fmt.Fprintf(stderr, "%d of the %d clients of each cohort", sh.part.Count(plan.Workload.Clients), plan.Workload.Clients)
		} else {
			fmt.Fprintf(stderr, "one arrival in %d", sh.part.Of)
		}
		fmt.Fprintf(stderr, ", t = 0 at %s (in %s).\n", sh.t0.Format("2006-01-02T15:04:05.000Z"), time.Until(sh.t0).Round(time.Millisecond))
	}
	if sr.opts.Apart(plan) {
		fmt.Fprintf(stderr, "The cohorts run one after the other, each alone on the machine (%d cores for %d cohorts; --cohorts together runs them at once).\n",
			runtime.GOMAXPROCS(0), len(names))
	}
	if !sr.f.sim {
		fmt.Fprintf(stderr, "Expected wall time: about %s.\n", roundWall(sr.expectedWall(ctx)))
	}
}

// expectedWall is about how long a real run of sr lasts on the wall
// clock: every unit's runs in slow motion, and each one's lead; then the
// simulator's reference, its second opinion and the report, a few
// seconds at most (afterRun).
func (sr *scenarioRun) expectedWall(ctx context.Context) time.Duration {
	wall := sr.opts.SlowMotion.Wall(sr.wallAtRealSpeed(ctx))
	for _, p := range sr.plans {
		units := max(1, p.Runs)
		if sr.opts.Apart(p) {
			units *= len(p.Strategies)
		}
		wall += time.Duration(units) * engine.Lead(p, sr.opts)
	}
	return wall + afterRun
}

// afterRun is about what a real run takes after its last unit: the
// simulator's reference and second opinion, the results folder and the
// report with its PNGs (measured on 2 cores for the outage: 4 to 9 s).
const afterRun = 5 * time.Second

// notStartedError is execute's error when a real run was stopped before
// its t = 0 because what had to happen then (--chaos-control's start)
// failed; nothing it recorded is worth writing.
type notStartedError struct{ err error }

func (e *notStartedError) Error() string { return e.err.Error() }
func (e *notStartedError) Unwrap() error { return e.err }

// execute runs every point, with the game day's hooks and, unless quiet,
// progress on stderr.
func (sr *scenarioRun) execute(ctx context.Context, gd *gameDay, stderr io.Writer) ([]engine.Point, error) {
	f, plans, plan, opts, names := &sr.f, sr.plans, sr.plans[0], sr.opts, sr.strategyNames()
	var startErr error
	opts.Observe = gd.observe()
	opts.Clock = gd.clock // a shard's, in its summary (results.ShardInfo.Clock)
	opts.OnRun = func(point, rep int, r *engine.Run) {
		if err := gd.started(ctx, r); err != nil {
			startErr = err
			r.Stop()
			return
		}
		if f.quiet {
			return
		}
		if len(plans) > 1 || plan.Runs > 1 {
			where := ""
			if sr.sweep {
				where = fmt.Sprintf(": point %d of %d, %s", point+1, len(plans), results.PointLabel(plans[point].Point))
			}
			fmt.Fprintf(stderr, "run %d of %d%s\n", point*plan.Runs+rep+1, len(plans)*plan.Runs, where)
		}
		if opts.Apart(r.Plan) {
			name := r.Plan.Strategies[0].Name
			fmt.Fprintf(stderr, "cohort %d of %d: %s\n", slices.Index(names, name)+1, len(names), name)
		}
		nameW := 0
		for _, n := range names {
			nameW = max(nameW, len(n))
		}
		showProgress(ctx, r, stderr, nameW)
	}
	if f.sim && !f.quiet && (len(plans) > 1 || plan.Runs > 1) {
		bar := newCountBar(stderr, "simulated cohort runs")
		defer bar.stop()
		opts.OnDone = bar.set
	}
	began := time.Now()
	points, err := execute(ctx, plans, opts)
	if err == nil && startErr != nil {
		return points, &notStartedError{startErr}
	}
	if err == nil && f.sim && !f.quiet && ctx.Err() == nil {
		fmt.Fprintf(stderr, "simulated %s in %s\n", spoken.Count(len(plans)*len(plan.Strategies)*plan.Runs, "cohort run", "cohort runs"), time.Since(began).Round(time.Millisecond))
	}
	if err == nil && f.sim && !f.quiet && ctx.Err() != nil {
		if line := stoppedLine(points); line != "" {
			fmt.Fprintln(stderr, line)
		}
	}
	return points, err
}

// stoppedLine says, once an interrupt has stopped a simulation, how far it
// got and that what it simulated is being written: a long simulation's
// folder (every 10 ms of its timelines, its logs, its report) takes far
// longer to write than to simulate, so the wait after the interrupt is the
// writing, and a second interrupt skips it. "" when nothing ran.
func stoppedLine(points []engine.Point) string {
	reached, cohorts := 0.0, 0
	for _, p := range points {
		s := p.Output.Summary
		if s.EndedS != nil {
			reached = max(reached, *s.EndedS)
		} else {
			reached = max(reached, s.DurationS)
		}
		cohorts += len(p.Output.Cohorts)
	}
	if len(points) == 0 {
		return ""
	}
	what := "the figures of the runs that ended"
	if cohorts > 0 {
		what = fmt.Sprintf("%s' timelines, logs and report, to %s of virtual time", spoken.Count(cohorts, "cohort", "cohorts"), time.Duration(reached*float64(time.Second)).Round(time.Second))
	}
	return "herdbench scenario: the simulation stopped; writing " + what + " (interrupt again to exit at once, saving nothing)"
}

const exitCodesHelp = `
Exit codes: 0 ok; 1 the run failed, or an internal error (a bug: its report
is on stderr); 2 bad usage, an invalid scenario or a refused run (nothing
ran); 3 a threshold failed (results written); 4 too late: --start-at had
passed, or was too near to be ready (nothing sent); 5 the run's verdict is
not trustworthy: a headline figure left, or could have left, its band of
the simulator's (results written; before 3, whose thresholds such figures
cannot judge; --allow-untrustworthy: 0 or 3); 130 interrupted (results
written, marked partial). Killed by SIGABRT (134 in a shell): the Go
runtime itself failed, e.g. out of memory beyond the estimate.
`

// check checks the flags that need no scenario, and returns what is wrong,
// or "".
func (f *scenarioFlags) check(fs *pflag.FlagSet) string {
	seen := map[string]bool{}
	for i, name := range f.strategies {
		name = strings.TrimSpace(name)
		f.strategies[i] = name
		if seen[name] {
			return fmt.Sprintf("--strategies names %q twice; cohorts must differ (each is labelled by its strategy's name)", name)
		}
		seen[name] = true
	}
	if len(f.clients) > 0 && slices.ContainsFunc(f.set, func(s string) bool { p, _, _ := strings.Cut(s, "="); return strings.TrimSpace(p) == "workload.clients" }) {
		return "--clients is --set workload.clients: give the count of clients once"
	}
	if len(f.clients) > scenarios.MaxSweepPoints {
		return fmt.Sprintf("--clients lists %d counts; a sweep has at most %d", len(f.clients), scenarios.MaxSweepPoints)
	}
	counted := map[int]bool{}
	for _, n := range f.clients {
		if counted[n] {
			return fmt.Sprintf("--clients lists %d twice; give each client count once", n)
		}
		counted[n] = true
		if n < 1 || n > scenarios.MaxClients {
			return fmt.Sprintf("--clients %d: each client count must be from 1 to %d per cohort", n, scenarios.MaxClients)
		}
	}
	if fs.Changed("duration") && (f.duration <= 0 || f.duration > scenarios.MaxDuration) {
		return fmt.Sprintf("--duration %s: a run lasts more than 0s and at most 24h", f.duration)
	}
	if f.runs < 1 || f.runs > scenarios.MaxRuns {
		return fmt.Sprintf("--runs %d: run each cohort from 1 to %d times", f.runs, scenarios.MaxRuns)
	}
	if f.cohorts != "auto" && f.cohorts != "together" && f.cohorts != "apart" {
		return fmt.Sprintf("--cohorts %q: write together (every cohort at once), apart (one after the other) or auto", f.cohorts)
	}
	if f.slow.k < 1 || f.slow.k > slowmo.Max {
		return fmt.Sprintf("--slow-motion %d: live the scenario from 1 (real speed) to %d times slower, or auto", f.slow.k, slowmo.Max)
	}
	return ""
}

// cmpOr returns the first of msgs that is not "".
func cmpOr(msgs ...string) string {
	for _, m := range msgs {
		if m != "" {
			return m
		}
	}
	return ""
}

// memoryLimit reads --max-memory: a size ("8GiB", "500MB"), 0 for no
// limit, or, when empty, half of what this machine (or its cgroup) has.
// It returns the limit and how to name it in messages.
func memoryLimit(flag string) (uint64, string, error) {
	if flag != "" {
		b, err := humanize.ParseBytes(flag)
		if err != nil {
			return 0, "", fmt.Errorf("%q is not a size; write e.g. 8GiB or 500MB, or 0 for no limit", flag)
		}
		return b, "--max-memory " + humanize.IBytes(b), nil
	}
	m, err := sysmem.Available()
	if err != nil {
		const fallback = 8 << 30
		return fallback, "the default --max-memory of " + humanize.IBytes(fallback) + " (this machine's memory is unknown)", nil
	}
	return m.Bytes / 2, fmt.Sprintf("the default --max-memory of %s, half of %s (%s)", humanize.IBytes(m.Bytes/2), m.Source, humanize.IBytes(m.Bytes)), nil
}

// axes reads --set and --clients: the fields they set or sweep.
func (f *scenarioFlags) axes() ([]scenarios.Axis, error) {
	var out []scenarios.Axis
	for _, s := range f.set {
		a, err := scenarios.ParseSet(s)
		if err != nil {
			return nil, fmt.Errorf("--set %w", err)
		}
		out = append(out, a)
	}
	if len(f.clients) > 0 {
		a := scenarios.Axis{Path: "workload.clients", Origin: "--clients"}
		for _, n := range f.clients {
			a.Values = append(a.Values, strconv.Itoa(n))
		}
		out = append(out, a)
	}
	return out, nil
}
