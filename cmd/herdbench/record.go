package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"time"

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

	run      time.Duration      // the scenario's duration, 0 without one (loadServerPlan)
	by       recording.CohortBy // parsed by check
	attempts recording.AttemptHeader
}

func (f *recordFlags) add(fs *pflag.FlagSet) {
	fs.BoolVar(&f.noRecord, "no-record", false, "do not record the traffic (only the Prometheus counters); no results folder is written")
	fs.StringVar(&f.out, "out", "runs", "folder to write the recording's results folders into (POST /control/results, at exit, on Ctrl-C)")
	fs.StringVar(&f.cohortBy, "cohort-by", "all", "how to tell clients apart, one cohort each: user-agent, source-ip, header:NAME (e.g. header:X-Client-Name), or all (one cohort)")
	fs.IntVar(&f.maxCohorts, "max-cohorts", recording.DefaultMaxCohorts, "cohorts of their own at most: the first keys to arrive get one, later keys are in the cohort \"other\"")
	fs.StringVar(&f.attemptHeader, "attempt-header", "", "request header with the client's attempt number, for retries and amplification: grpc-previous-rpc-attempts (gRPC), amz-sdk-request (AWS SDKs: attempt=N; max=M), or a header holding the number, 1 for the first try (default: none; the figures that need it are then null)")
	fs.DurationVar(&f.window, "record-window", recording.DefaultWindow, "the longest a results folder covers: a longer recording is written one window at a time, so memory stays bounded (about 17 MB per cohort per 15 minutes); at most 24h")
	fs.BoolVar(&f.noPNG, "no-png", false, "write report.html only, without the PNG charts")
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
	case f.window < time.Second || f.window > recording.MaxWindow:
		fmt.Fprintf(stderr, "herdbench %s: --record-window %s: give from 1s to %s (a results folder holds at most a day)\n", role, f.window, recording.MaxWindow)
		return exitUsage
	}
	if err := folder.CheckWritable(f.out); err != nil {
		fmt.Fprintf(stderr, "herdbench %s: --out: %v\n", role, err)
		return exitUsage
	}
	return exitOK
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
