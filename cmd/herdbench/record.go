package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/recording"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/target"
	"github.com/spf13/pflag"
)

// recordFlags are the target's and proxy's flags of their recording of
// the traffic.
type recordFlags struct {
	noRecord      bool
	out           string
	window        time.Duration
	cohortBy      string
	maxCohorts    int
	attemptHeader string
	noPNG         bool
	maxMemory     string

	run      time.Duration      // the scenario's duration, 0 without one (loadServerPlan)
	by       recording.CohortBy // parsed by check
	attempts recording.AttemptHeader
}

func (f *recordFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&f.noRecord, "no-record", false, "do not record the traffic (only the Prometheus counters); no results folder is written")
	fs.StringVar(&f.out, "out", "runs", "folder to write the recording's results folders into (POST /control/results, at exit, on Ctrl-C)")
	fs.StringVar(&f.cohortBy, "cohort-by", "all", "how to tell clients apart, one cohort each: user-agent, source-ip, header:NAME (e.g. header:X-Client-Name), or all (one cohort)")
	fs.IntVar(&f.maxCohorts, "max-cohorts", recording.DefaultMaxCohorts, fmt.Sprintf("cohorts of their own at most (1 to %d): the first keys to arrive get one, later keys are in the cohort \"other\"", recording.MaxCohortsLimit))
	fs.StringVar(&f.attemptHeader, "attempt-header", "", "request header with the client's attempt number, for retries and amplification: grpc-previous-rpc-attempts (gRPC), amz-sdk-request (AWS SDKs: attempt=N; max=M), or a header holding the number, 1 for the first try (default: none; the figures that need it are then null)")
	fs.DurationVar(&f.window, "record-window", recording.DefaultWindow, "the longest a results folder covers: a longer recording is written one window at a time, so memory stays bounded (about 17 MB per cohort per 15 minutes, --max-memory); at most 24h")
	fs.BoolVar(&f.noPNG, "no-png", false, "write report.html only, without the PNG charts")
	fs.StringVar(&f.maxMemory, "max-memory", "", "refuse a recording whose cohorts (--max-cohorts) and window (--record-window) could hold more memory than this, e.g. 8GiB; 0 for no limit (default: half of this machine's memory, its cgroup's limit or its ulimit -v less 2 GiB, the smallest)")
}

// check reads the recording's flags; a non-zero code means stop with it.
func (f *recordFlags) check(role string, stderr io.Writer) int {
	if f.noRecord {
		return exitOK
	}
	var err error
	if f.by, err = recording.ParseCohortBy(f.cohortBy); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return exitUsage
	}
	if f.attempts, err = recording.ParseAttemptHeader(f.attemptHeader); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return exitUsage
	}
	switch {
	case f.maxCohorts < 1:
		fmt.Fprintf(stderr, "herdbench %s: --max-cohorts %d: give at least 1 (the other keys then share the cohort \"other\")\n", role, f.maxCohorts)
		return exitUsage
	case f.maxCohorts > recording.MaxCohortsLimit:
		fmt.Fprintf(stderr, "herdbench %s: --max-cohorts %d: give at most %d (each cohort holds its own recorder, and a report of more compares nothing); the keys beyond share the cohort \"other\", which names its busiest\n", role, f.maxCohorts, recording.MaxCohortsLimit)
		return exitUsage
	case f.window < time.Second || f.window > recording.MaxWindow:
		fmt.Fprintf(stderr, "herdbench %s: --record-window %s: give from 1s to %s (a results folder holds at most a day)\n", role, f.window, recording.MaxWindow)
		return exitUsage
	}
	if err := f.checkFootprint(); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: %v\n", role, err)
		return exitUsage
	}
	if err := folder.CheckWritable(f.out); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: --out: %v\n", role, err)
		return exitUsage
	}
	return exitOK
}

// checkFootprint refuses, before anything starts, a recording whose
// cohorts and window could hold more memory than --max-memory (its
// default: half of this machine's), saying what would fit.
func (f *recordFlags) checkFootprint() error {
	limit, what, err := memoryLimit(f.maxMemory)
	if err != nil {
		return fmt.Errorf("--max-memory: %w", err)
	}
	cells := func(n int) int { return n + 1 } // and "other"
	if by, _ := recording.ParseCohortBy(f.cohortBy); by.String() == recording.AllCohort {
		cells = func(int) int { return 1 } // one cohort: nothing tells clients apart
	}
	need := recording.Footprint(cells(f.maxCohorts), f.window)
	if limit == 0 || need <= limit {
		return nil
	}
	fit := 0
	for fit < f.maxCohorts && recording.Footprint(cells(fit+1), f.window) <= limit {
		fit++
	}
	// The longest window, in whole seconds (minutes above an hour), that fits.
	lo, hi := time.Duration(0), f.window
	for hi-lo > time.Second {
		if mid := (lo + hi) / 2; recording.Footprint(cells(f.maxCohorts), mid) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	window := lo.Truncate(time.Second)
	if window > time.Hour {
		window = window.Truncate(time.Minute)
	}
	var fixes []string
	if fit > 0 {
		fixes = append(fixes, fmt.Sprintf("fewer cohorts (--max-cohorts %d fits)", fit))
	}
	if window >= time.Second {
		fixes = append(fixes, fmt.Sprintf("a shorter window (--record-window %s fits)", control.TrimDuration(window)))
	}
	fix := "give " + strings.Join(fixes, " or ") + ", or raise --max-memory"
	if len(fixes) == 0 {
		fix = "raise --max-memory"
	}
	return fmt.Errorf("--max-cohorts %d with --record-window %s could hold about %s at once (%s, each a recorder of 10 ms buckets over the window, for the window recorded and the one written), above %s: %s",
		f.maxCohorts, control.TrimDuration(f.window), humanize.IBytes(need), spoken.Count(cells(f.maxCohorts), "cohort", "cohorts"), what, fix)
}

// recorder is a target's or proxy's recording of its traffic
// (recording.Keeper), each results folder through the scenario command's
// end of a run (thresholds, data, report, published whole); nil with
// --no-record.
type recorder struct {
	k     *recording.Keeper
	plan  *scenarios.Plan
	flags *recordFlags
	role  string
}

// newRecorder returns the recording of a server (role "target" or "proxy"),
// or nil with --no-record.
func newRecorder(role, upstream string, plan *scenarios.Plan, f *recordFlags, stderr io.Writer, logf func(string, ...any)) *recorder {
	if f.noRecord {
		return nil
	}
	r := &recorder{flags: f, plan: plan, role: role}
	warnUnjudgeable(stderr, role, plan.Thresholds, f.attempts.Name != "")
	r.k = recording.Keep(recording.KeepOptions{
		Recording: recording.Options{
			By: role, Upstream: upstream, Scenario: plan.Name, Description: plan.Description, Seed: plan.Seed,
			ScenarioYAML: plan.Resolved, Version: herdbenchVersion(),
			CohortBy: f.by, MaxCohorts: f.maxCohorts, Attempts: f.attempts, Window: f.window, Run: f.run,
		},
		Thresholds: plan.Thresholds, Save: r.save, Logf: logf,
		Warnf: func(format string, args ...any) {
			fmt.Fprintf(stderr, "herdbench %s: %s\n", role, fmt.Sprintf(format, args...))
		},
	})
	return r
}

// warnUnjudgeable says, before any traffic, which of the scenario's
// thresholds a recording cannot judge: their figure is null in it, so an
// upper bound fails and a lower bound passes whatever the clients do.
func warnUnjudgeable(w io.Writer, role string, ths []results.Threshold, numbered bool) {
	for _, th := range ths {
		if why := recording.Unmeasurable(th.Metric, numbered); why != "" {
			fmt.Fprintf(w, "herdbench %s: warning: threshold %q cannot judge a recording: %s. Its figure is null, so it fails as an upper bound and holds as a lower one, whatever the clients do; drop it from the scenario or give what it needs\n", role, th.Expr, why)
		}
	}
}

// save writes one folder of the recording through the scenario command's
// end of a run.
func (r *recorder) save(out folder.Output) (string, error) {
	e := &ending{points: []engine.Point{{Plan: r.plan, Output: out}}}
	return e.save(&scenarioFlags{out: r.flags.out, noPNG: r.flags.noPNG})
}

// keeper is the recording: nil without one.
func (r *recorder) keeper() *recording.Keeper {
	if r == nil {
		return nil
	}
	return r.k
}

// observer is what the server tells of its traffic: nil without a
// recording.
func (r *recorder) observer() target.Observer { return r.keeper().Observer() }

// describe says what is recorded, for the log.
func (r *recorder) describe() string {
	if r == nil {
		return "not recording the traffic (--no-record)"
	}
	attempts := "no attempt numbers (--attempt-header): retries and amplification are not told"
	if r.flags.attempts.Name != "" {
		attempts = "attempt numbers from " + r.flags.attempts.Name
	}
	return fmt.Sprintf("recording the traffic on the plan's clock: cohorts by %s (at most %d), %s; results into %s on POST /control/results, at exit and on Ctrl-C, one folder per %s at most",
		r.flags.by, r.flags.maxCohorts, attempts, r.flags.out, control.TrimDuration(r.flags.window))
}

// results serves POST /control/results: the recording so far.
func (r *recorder) results() (control.ResultsAnswer, error) {
	dir, sum, err := r.k.Snapshot()
	if errors.Is(err, recording.ErrNothingRecorded) {
		return control.ResultsAnswer{}, control.ErrNothingRecorded
	}
	if err != nil {
		return control.ResultsAnswer{Dir: dir}, err
	}
	return control.ResultsAnswer{Dir: dir, Thresholds: sum.Thresholds, Failed: results.ThresholdsFailed(sum.Thresholds)}, nil
}

// finish writes the recording's last results when the server stops: the
// figures on stdout, as the scenario command prints them, and the exit
// code: 3 if a threshold failed in it or in an ended window, 1 if a
// folder could not be written.
func (r *recorder) finish(stdout, stderr io.Writer) int {
	last, end := r.keeper().Finish()
	out := &stickyWriter{w: stdout} // its first failed write is said below
	if last.Dir != "" {
		e := &ending{points: []engine.Point{{Plan: r.plan, Output: last.Output}}}
		serr := e.show(out)
		fmt.Fprintln(out, results.ProvenanceLine(last.Summary))
		fmt.Fprintln(out, "results:", last.Dir)
		if page := reportIn(last.Dir); page != "" {
			fmt.Fprintln(out, "report:", page)
		}
		out.err = cmp.Or(out.err, serr)
	}
	if out.err != nil {
		fmt.Fprintf(stderr, "herdbench %s: the recording's figures could not be written out: %v (they are in %s)\n", r.role, out.err, last.Dir)
	}
	switch {
	case end == recording.WriteFailed || out.err != nil:
		return exitFailed
	case end == recording.ThresholdsFailed && last.Failed > 0:
		fmt.Fprintf(stderr, "herdbench %s: %s failed on the recorded traffic (exit code %d)\n", r.role, spoken.Count(last.Failed, "threshold check", "threshold checks"), exitThresholds)
		return exitThresholds
	case end == recording.ThresholdsFailed: // nothing recorded: the recording said so
		return exitThresholds
	}
	return exitOK
}
