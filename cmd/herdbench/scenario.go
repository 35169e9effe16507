package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/report"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

const scenarioHelp = `Usage: herdbench scenario NAME|FILE [flags]

Runs a scenario: every strategy it lists runs as a cohort of clients against
its own fresh fault-injecting target on 127.0.0.1, all cohorts at once, with
the same seed and the same chaos plan, so they differ only by strategy.

NAME is a built-in scenario (herdbench list) and FILE a scenario YAML file; a
file on disk wins over a built-in of the same name.

At the end it prints a comparison table and a sparkline of attempts per
cohort, and writes a results folder <out>/<scenario>-<UTC time>/ holding
summary.json (the figures), timeline.csv (counts per 10 ms),
timeline_1s.csv, scenario.yaml (the scenario as run), one HdrHistogram log
per cohort (<cohort>.hlog), report.html (charts and the comparison; open it
in a browser, no network needed) and PNG copies of its charts. See
docs/results.md; 'herdbench report DIR' re-renders the report.

Thresholds in the scenario (e.g. "amplification <= 1.5", "recovery_s <= 5s",
"latency.request.p99 < 2s", "success_ratio >= 99%"; top-level for every
cohort, or under a strategy for it alone) are checked at the end, printed as
a pass/fail table and recorded in summary.json; any failure exits with 3.

With --target (or target.url in the file) the swarm sends to that service
instead. Nothing leaves this machine's loopback (127.0.0.0/8, ::1) without
--allow-remote: the target's host, --chaos-control's and --metrics-addr's
are resolved and every address checked, and checked again at every
connection, so no spelling ("localhost.", "127.1") or DNS answer gets
around it. --chaos-control follows no redirect and sends the control
token from $HERDBENCH_CONTROL_TOKEN or --chaos-control-token-file, if the
proxy or target has one. Ctrl-C or SIGTERM stops the
run within about a second and still writes the results, marked partial
(exit 130); a second Ctrl-C exits at once. docs/game-day.md has the runbook.

With --sim the scenario runs in virtual time instead: a deterministic
discrete-event simulation of the same clients, target model and chaos plan,
in a fraction of a second and without sockets. The same seed gives the same
summary.json ("mode": "sim"), so results can be repeated exactly, and fleets
far larger than one machine can hold (a million clients) can be studied.

--runs K repeats each cohort K times with seeds derived from the root seed
and reports every figure as mean ± standard deviation (summary.json: each
run's "stats"). --clients 10,20,50 sweeps the number of clients: the folder
then holds sweep.csv (one row per client count and strategy, means and
standard deviations) and one summary per client count. Real runs go one
after another; simulated runs use every core.

Examples:
  herdbench scenario outage
  herdbench scenario outage --strategies no-jitter,full-jitter --seed 7
  herdbench scenario my-service.yaml --duration 1m --out /tmp/results
  herdbench scenario aws-contention --sim --runs 100
  herdbench scenario aws-contention --sim --runs 100 --clients 10,50,100,150
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
	game       gameDayFlags
}

func runScenario(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var f scenarioFlags
	fs := pflag.NewFlagSet("scenario", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&f.out, "out", "o", "runs", "folder to write the results folder into")
	fs.Uint64Var(&f.seed, "seed", 0, "root random seed (default: the scenario's seed, or a random one, recorded in summary.json)")
	fs.StringSliceVar(&f.strategies, "strategies", nil, "run only these strategies, comma-separated, in this order")
	fs.DurationVar(&f.duration, "duration", 0, "run for this long instead of the scenario's duration (e.g. 45s)")
	fs.BoolVar(&f.sim, "sim", false, "run in virtual time: a deterministic simulation, no sockets")
	fs.IntVar(&f.runs, "runs", 1, "repeat each cohort this many times (seeds derived from the root seed) and report mean ± sd")
	fs.IntSliceVar(&f.clients, "clients", nil, "clients per cohort, instead of the scenario's; several (10,20,50) sweep them into sweep.csv")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress output; print only the results")
	fs.BoolVar(&f.noPNG, "no-png", false, "write report.html without PNG copies of its charts (faster; 'herdbench report DIR' can add them later)")
	f.game.add(fs)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), scenarioHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 ok; 1 the run failed; 2 bad usage, an invalid scenario or a refused target (nothing ran);\n3 a threshold failed (results written); 130 interrupted (results written, marked partial).\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "herdbench scenario: name one scenario (a file or a built-in name), got %d arguments\nRun 'herdbench list' for the built-in scenarios, 'herdbench scenario --help' for flags.\n", fs.NArg())
		return exitUsage
	}
	seen := map[string]bool{}
	for i, name := range f.strategies {
		name = strings.TrimSpace(name)
		f.strategies[i] = name
		if seen[name] {
			fmt.Fprintf(stderr, "herdbench scenario: --strategies names %q twice; cohorts must differ (each is labelled by its strategy's name)\n", name)
			return exitUsage
		}
		seen[name] = true
	}
	counted := map[int]bool{}
	for _, n := range f.clients {
		if counted[n] {
			fmt.Fprintf(stderr, "herdbench scenario: --clients lists %d twice; give each client count once\n", n)
			return exitUsage
		}
		counted[n] = true
	}
	o := scenarios.Overrides{Duration: f.duration, Strategies: f.strategies, Target: f.game.target, AllowRemote: f.game.allowRemote}
	if fs.Changed("seed") {
		o.Seed = &f.seed
	}
	if fs.Changed("duration") && f.duration <= 0 {
		fmt.Fprintf(stderr, "herdbench scenario: --duration %s: a run must last more than 0s\n", f.duration)
		return exitUsage
	}
	if f.runs < 1 {
		fmt.Fprintf(stderr, "herdbench scenario: --runs %d: run each cohort at least once\n", f.runs)
		return exitUsage
	}
	for _, n := range f.clients {
		if n < 1 {
			fmt.Fprintf(stderr, "herdbench scenario: --clients %d: each client count must be 1 or more\n", n)
			return exitUsage
		}
	}
	plans, err := loadPlans(fs.Arg(0), o, f.clients)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	plan := plans[0]

	names := make([]string, len(plan.Strategies))
	for i, s := range plan.Strategies {
		names[i] = s.Name
	}
	mode := "real time"
	if f.sim {
		mode = "virtual time"
	}
	if f.sim && (plan.TargetURL != "" || f.game.chaosControl != "" || f.game.metricsAddr != "") {
		fmt.Fprintln(stderr, "herdbench scenario: --sim runs the model in virtual time, without sockets; an external target (--target, target.url), --chaos-control and --metrics-addr need a real-time run: drop --sim, or drop them")
		return exitUsage
	}
	gd, code := f.game.prepare(ctx, plan, stderr)
	if code != exitOK {
		return code
	}
	defer gd.Close()
	externalNote(stderr, plan, &f.game)
	if !f.quiet {
		fmt.Fprintf(stderr, "herdbench %s: scenario %s, %s, seed %d, %s, cohorts: %s\n",
			herdbenchVersion(), plan.Name, plan.Duration, plan.Seed, mode, strings.Join(names, ", "))
	}
	opts := engine.Options{Sim: f.sim, Runs: f.runs, Version: herdbenchVersion(), Timelines: len(plans) == 1}
	var startErr error
	opts.OnRun = func(point, rep int, r *engine.Run) {
		if err := gd.started(ctx, r); err != nil {
			startErr = err
			r.Stop()
			return
		}
		if f.quiet {
			return
		}
		if len(plans) > 1 || f.runs > 1 {
			fmt.Fprintf(stderr, "run %d of %d, %d clients\n", point*f.runs+rep+1, len(plans)*f.runs, plans[point].Workload.Clients)
		}
		showProgress(ctx, r, stderr)
	}
	began := time.Now()
	points, err := engine.Execute(ctx, plans, opts)
	if err == nil && startErr != nil {
		fmt.Fprintln(stderr, "herdbench:", startErr, "\nThe run was stopped before its start; nothing was written.")
		return exitFailed
	}
	if err != nil {
		fmt.Fprintln(stderr, "herdbench:", err)
		if errors.Is(err, engine.ErrTooManyFiles) {
			return exitUsage // refused before anything ran
		}
		return exitFailed
	}
	if f.sim && !f.quiet {
		fmt.Fprintf(stderr, "simulated %d cohort run(s) in %s\n", len(plans)*len(plan.Strategies)*f.runs, time.Since(began).Round(time.Millisecond))
	}
	if len(points) > 1 || len(f.clients) > 1 {
		return writeSweep(stdout, stderr, f.out, points)
	}
	out := points[0].Output
	out.Summary.Thresholds = results.CheckThresholds(out.Summary, plan.Thresholds)
	dir, werr := results.WriteRun(filepath.Join(f.out, results.DirName(plan.Name, out.Summary.Started)), out)
	if werr == nil {
		// The data is complete and in place; the report is drawn from it.
		werr = report.RenderDir(dir, report.Options{Version: herdbenchVersion(), NoPNG: f.noPNG})
	}

	fmt.Fprintln(stdout)
	if n := results.PartialNotice(out.Summary); n != "" {
		fmt.Fprintln(stdout, n)
	}
	if f.runs > 1 {
		fmt.Fprintf(stdout, "The first of %d repetitions (seed %d); mean ± sd over all of them below.\n", f.runs, out.Summary.Seed)
	}
	_ = results.RenderTable(stdout, out.Summary)
	fmt.Fprintln(stdout)
	if r := out.Summary.Runs; f.runs > 1 || len(r) > 0 && (r[0].Calls != nil || r[0].CompletionS != nil) {
		_ = results.RenderStatsTable(stdout, []*results.Summary{out.Summary})
		fmt.Fprintln(stdout)
	}
	_ = results.RenderPolicies(stdout, out.Summary)
	timelines := make([]results.Timeline, len(out.Cohorts))
	for i, c := range out.Cohorts {
		timelines[i] = c.Rec.Timeline(results.Bucket)
	}
	_ = results.RenderSparklines(stdout, out.Summary, timelines, 100)
	fmt.Fprintln(stdout)
	for _, line := range results.Explain(out.Summary) {
		fmt.Fprintln(stdout, "- "+line)
	}
	fmt.Fprintln(stdout)
	if len(out.Summary.Thresholds) > 0 {
		_ = results.RenderThresholds(stdout, out.Summary.Thresholds)
		fmt.Fprintln(stdout)
	}
	if out.Summary.Partial {
		fmt.Fprintln(stderr, "herdbench: interrupted; the results cover what was recorded and are marked partial")
	}
	warnNoSuccess(stderr, out.Summary)
	if werr != nil {
		fmt.Fprintln(stderr, "herdbench:", werr)
		return exitFailed
	}
	fmt.Fprintln(stdout, "results:", dir)
	return exitCodeOf(out.Summary, stderr)
}

// loadPlans compiles the scenario once per client count (once with the
// scenario's own count when there is none), all with one seed.
func loadPlans(arg string, o scenarios.Overrides, counts []int) ([]*scenarios.Plan, error) {
	name, data, err := scenarios.Find(arg)
	if err != nil {
		return nil, err
	}
	if len(counts) == 0 {
		counts = []int{0}
	}
	sc, err := scenarios.Parse(name, data)
	if err != nil {
		// Report every problem at once, those of what the values mean too.
		o.Clients = counts[0]
		_, err = scenarios.Check(name, data, o)
		return nil, err
	}
	var plans []*scenarios.Plan
	for _, n := range counts {
		o.Clients = n
		p, err := sc.Compile(o)
		if err != nil {
			return nil, err
		}
		if n > 0 && p.Workload.Kind == clients.Open {
			return nil, fmt.Errorf("%s: --clients: the workload is open (arrivals at a rate), it has no clients to count", name)
		}
		o.Seed = &p.Seed // a random seed is drawn once, for every point
		plans = append(plans, p)
	}
	return plans, nil
}

// writeSweep writes and prints the results of a sweep over client counts.
func writeSweep(stdout, stderr io.Writer, out string, points []engine.Point) int {
	summaries := make([]*results.Summary, len(points))
	for i, p := range points {
		summaries[i] = p.Output.Summary
	}
	first := summaries[0]
	dir := filepath.Join(out, results.DirName(first.Scenario, first.Started))
	werr := results.WriteSweep(dir, summaries, points[0].Plan.Resolved)
	fmt.Fprintln(stdout)
	_ = results.RenderStatsTable(stdout, summaries)
	fmt.Fprintln(stdout)
	for _, s := range summaries {
		if s.Partial {
			fmt.Fprintln(stderr, "herdbench: interrupted; the results cover what was recorded and are marked partial")
			break
		}
	}
	if werr != nil {
		fmt.Fprintln(stderr, "herdbench:", werr)
		return exitFailed
	}
	fmt.Fprintln(stdout, "results:", dir)
	return exitOK
}

// warnNoSuccess says so when a cohort sent attempts and none succeeded: a
// target that is down or a wrong URL, rather than a result to compare.
func warnNoSuccess(w io.Writer, s *results.Summary) {
	for _, r := range s.Runs {
		if r.Attempts == 0 || r.Outcomes["ok"] > 0 {
			continue
		}
		top, n := "", int64(-1)
		for o := results.Outcome(0); o < results.NumOutcomes; o++ {
			if v := r.Outcomes[o.String()]; v > n {
				top, n = o.String(), v
			}
		}
		where := "the embedded target"
		if s.Target != "" {
			where = s.Target
		}
		fmt.Fprintf(w, "herdbench: warning: not one of %s's %d attempts succeeded (most were %s: %d); is %s up and answering 2xx?\n", r.Strategy, r.Attempts, top, n, where)
	}
}
