package main

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/engine"
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

// recorder is a target's or proxy's recording of its traffic and the end
// of its results: each results folder goes through the scenario command's
// end of a run (thresholds, data, report, published whole).
type recorder struct {
	rec     *recording.Recording
	plan    *scenarios.Plan
	flags   *recordFlags
	role    string
	srv     atomic.Pointer[target.Server] // set once listening
	logf    func(format string, args ...any)
	mu      sync.Mutex // one folder written at a time
	failed  int        // threshold checks failed in the folders of ended windows
	written int
	werr    error
	stderr  io.Writer
}

// newRecorder returns the recording of a server (role "target" or "proxy"),
// or nil with --no-record.
func newRecorder(role, upstream string, plan *scenarios.Plan, f *recordFlags, stderr io.Writer, logf func(string, ...any)) *recorder {
	if f.noRecord {
		return nil
	}
	r := &recorder{plan: plan, flags: f, role: role, logf: logf, stderr: stderr}
	r.rec = recording.New(recording.Options{
		By: role, Upstream: upstream, Scenario: plan.Name, Description: plan.Description, Seed: plan.Seed,
		ScenarioYAML: plan.Resolved, Version: herdbenchVersion(),
		CohortBy: f.by, MaxCohorts: f.maxCohorts, Attempts: f.attempts, Window: f.window,
		Faults: func(from, to time.Time) []chaos.Timed {
			if srv := r.srv.Load(); srv != nil {
				return srv.FaultsBetween(from, to)
			}
			return nil
		},
		Done: r.windowDone,
	})
	return r
}

// observer is what the server tells of its traffic: nil without a
// recording.
func (r *recorder) observer() target.Observer {
	if r == nil {
		return nil
	}
	return r.rec
}

// listening gives the recording its server, once it listens.
func (r *recorder) listening(srv *target.Server) {
	if r != nil {
		r.srv.Store(srv)
	}
}

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
		r.flags.by, r.flags.maxCohorts, attempts, r.flags.out, trimDuration(r.flags.window))
}

// results serves POST /control/results: the recording so far.
func (r *recorder) results() (control.ResultsAnswer, error) {
	seg, err := r.rec.Snapshot()
	if errors.Is(err, recording.ErrNothingRecorded) {
		return control.ResultsAnswer{}, control.ErrNothingRecorded
	}
	if err != nil {
		return control.ResultsAnswer{}, err
	}
	dir, sum, err := r.write(seg)
	if err != nil {
		return control.ResultsAnswer{Dir: dir}, err
	}
	return control.ResultsAnswer{Dir: dir, Thresholds: sum.Thresholds, Failed: results.ThresholdsFailed(sum.Thresholds)}, nil
}

// windowDone writes a window that ended (full, or the plan restarted):
// its thresholds count for the exit code.
func (r *recorder) windowDone(seg recording.Segment) {
	dir, sum, err := r.write(seg)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.werr = err
		fmt.Fprintf(r.stderr, "herdbench %s: writing the results of a recording window: %v\n", r.role, err)
		return
	}
	r.written++
	r.failed += results.ThresholdsFailed(sum.Thresholds)
	r.logf("recording window %d ended: results %s%s", sum.Recorded.Segment, dir, thresholdsText(sum))
}

func thresholdsText(s *results.Summary) string {
	if len(s.Thresholds) == 0 {
		return ""
	}
	return fmt.Sprintf(" (thresholds: %d of %d failed)", results.ThresholdsFailed(s.Thresholds), len(s.Thresholds))
}

// write ends one results folder as the scenario command ends a run:
// thresholds checked, the data and report written into a hidden folder
// and published whole.
func (r *recorder) write(seg recording.Segment) (string, *results.Summary, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if srv := r.srv.Load(); srv != nil {
		seg.Output.Summary.Recorded.Address = srv.Addr()
	}
	sum := seg.Output.Summary // a recording's, not a run's: its thresholds are checked here
	sum.Thresholds = results.CheckThresholds(sum, r.plan.Thresholds, nil)
	e := &ending{points: []engine.Point{{Plan: r.plan, Output: seg.Output}}}
	dir, err := e.save(&scenarioFlags{out: r.flags.out, noPNG: r.flags.noPNG})
	return dir, sum, err
}

// finish writes the recording's last results when the server stops: the
// figures on stdout, as the scenario command prints them, and the exit
// code: 3 if a threshold failed in it or in an ended window, 1 if a
// folder could not be written.
func (r *recorder) finish(stdout, stderr io.Writer) int {
	if r == nil {
		return exitOK
	}
	r.rec.Wait() // the windows that ended are written
	if n := r.rec.Late(); n > 0 {
		fmt.Fprintf(stderr, "herdbench %s: %d answer(s) ended after the results of the window they arrived in were written: they are in no results\n", r.role, n)
	}
	seg, err := r.rec.Snapshot()
	if errors.Is(err, recording.ErrNothingRecorded) {
		// r.mu is held only to read written: code takes it again.
		r.mu.Lock()
		written := r.written
		r.mu.Unlock()
		if written == 0 && len(r.plan.Thresholds) > 0 {
			fmt.Fprintf(stderr, "herdbench %s: nothing was recorded (no attempt arrived%s), so the scenario's %d threshold(s) checked nothing (exit code %d)\n", r.role, r.unstartedText(), len(r.plan.Thresholds), exitThresholds)
			return exitThresholds
		}
		fmt.Fprintf(stderr, "herdbench %s: nothing recorded since the plan's clock last started%s; no results written\n", r.role, r.unstartedText())
		return r.code()
	}
	dir, sum, err := r.write(seg)
	e := &ending{points: []engine.Point{{Plan: r.plan, Output: seg.Output}}}
	if dir != "" {
		e.show(stdout)
		fmt.Fprintln(stdout, results.ProvenanceLine(sum))
		fmt.Fprintln(stdout, "results:", dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "herdbench %s: writing the results: %v\n", r.role, err)
		return exitFailed
	}
	r.mu.Lock()
	r.failed += results.ThresholdsFailed(sum.Thresholds)
	r.mu.Unlock()
	return r.code()
}

func (r *recorder) unstartedText() string {
	if n := r.rec.Unstarted(); n > 0 {
		return fmt.Sprintf("; %d arrived before the plan's clock started, which --hold keeps until POST /control/start", n)
	}
	return ""
}

// code is the exit code of the recording's results so far.
func (r *recorder) code() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.werr != nil:
		return exitFailed
	case r.failed > 0:
		fmt.Fprintf(r.stderr, "herdbench %s: %d threshold check(s) failed on the recorded traffic (exit code %d)\n", r.role, r.failed, exitThresholds)
		return exitThresholds
	}
	return exitOK
}
