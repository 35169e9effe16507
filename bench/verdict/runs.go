package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// corpus is everything the command measured, as -data holds it.
type corpus struct {
	Config config `json:"config"`
	// Commands are the commands that measured it: the first, and each
	// -append after it.
	Commands []string `json:"commands"`
	// Command is the first's, as the first corpora wrote it.
	Command string    `json:"command,omitempty"`
	Machine string    `json:"machine"`
	Started time.Time `json:"started"`
	Ended   time.Time `json:"ended"`
	Runs    []record  `json:"runs"`
	Main    []record  `json:"main"`
	// Rejudged are the times -rejudge judged the runs again.
	Rejudged []rejudging `json:"rejudged,omitempty"`
}

// rejudging is one -rejudge: its command and when.
type rejudging struct {
	Command string    `json:"command"`
	At      time.Time `json:"at"`
}

// record is one real run (one point of a sweep) and what its verdict
// said of it.
type record struct {
	Scenario string `json:"scenario"`
	Point    string `json:"point,omitempty"` // a sweep's point
	Hogs     int    `json:"hogs"`
	Slow     string `json:"slow"` // the --slow-motion given
	// Args are the main job's arguments beyond its scenario (-main-args).
	Args string `json:"args,omitempty"`
	// SlowMotion is the factor the run lived at (auto's choice).
	SlowMotion int        `json:"slow_motion"`
	Apart      bool       `json:"apart"`
	Load       [3]float64 `json:"load"` // the load averages (1, 5, 15 min) before the run
	WallS      float64    `json:"wall_s"`
	// ExpectedS is the wall time the command said it expected (the main
	// job); 0 when it said none.
	ExpectedS    float64 `json:"expected_s,omitempty"`
	Exit         int     `json:"exit"`
	Outcome      string  `json:"outcome"`
	ResolutionMS float64 `json:"resolution_ms,omitempty"`
	Sentence     string  `json:"sentence"`
	// InBand: every headline figure the verdict read was within its band
	// of the simulator's, at the resolution the verdict read it.
	InBand bool `json:"in_band"`
	// Limits: the self-check's limits alone flagged the run (its
	// warnings): the old verdict.
	Limits bool `json:"limits_flagged"`
	// LateAgrees of LateCompared figures were within the band of the
	// model's given the run's own lateness; SimAgrees of them within the
	// simulator's.
	LateAgrees   int `json:"late_agrees"`
	SimAgrees    int `json:"sim_agrees"`
	LateCompared int `json:"late_compared"`
	// Headline: the built-in's headline held (null: it has none).
	Headline *bool  `json:"headline,omitempty"`
	Err      string `json:"error,omitempty"`
	// Folder is the run's folder under -keep (corpus-001, main-012).
	Folder string `json:"folder,omitempty"`
	// Rejudged says whether -rejudge judged the run again ("yes", or
	// "failed: why"); Before is then the outcome it had, and Approx what
	// of the verdict the folder could only approximate.
	Rejudged string `json:"rejudged,omitempty"`
	Before   string `json:"before,omitempty"`
	Approx   string `json:"approximate,omitempty"`
}

// runner runs herdbench and reads what it wrote.
type runner struct {
	bin, dir string
	hogs     int
	log      io.Writer
	n        int // runs so far, for the folders' names
}

// corpusRun runs scenario name once in cond and returns a record per
// point.
func (r *runner) corpusRun(ctx context.Context, name string, cond condition) []record {
	r.n++
	out := filepath.Join(r.dir, fmt.Sprintf("corpus-%03d", r.n))
	args := []string{"scenario", name, "-q", "--no-png", "--out", out, "--slow-motion", cond.slow}
	base := record{Scenario: name, Hogs: cond.hogs, Slow: cond.slow, Folder: filepath.Base(out)}
	res := r.exec(ctx, args, "", cond.hogs, &base)
	if base.Err != "" {
		logf(r.log, "%s (%d hogs, --slow-motion %s): %s", name, cond.hogs, cond.slow, base.Err)
		return []record{base}
	}
	recs := records(base, res)
	for _, rec := range recs {
		logf(r.log, "%s%s (%d hogs, %d×, load %.1f): %s in %.0f s; in band %v", name, pointText(rec.Point), cond.hogs, rec.SlowMotion, rec.Load[0], rec.Outcome, rec.WallS, rec.InBand)
	}
	return recs
}

// mainRun runs the main job, `herdbench scenario outage.yaml`, as a user
// types it (in a folder of its own, where no outage.yaml is: the
// built-in runs), beside h hogs.
func (r *runner) mainRun(ctx context.Context, h int, extra []string) record {
	r.n++
	wd := filepath.Join(r.dir, fmt.Sprintf("main-%03d", r.n))
	base := record{Scenario: "outage", Hogs: h, Slow: "auto", Args: strings.Join(extra, " "), Folder: filepath.Base(wd)}
	for i, a := range extra {
		if a == "--slow-motion" && i+1 < len(extra) {
			base.Slow = extra[i+1]
		}
	}
	if err := os.MkdirAll(wd, 0o755); err != nil {
		base.Err = err.Error()
		return base
	}
	res := r.exec(ctx, append([]string{"scenario", "outage.yaml"}, extra...), wd, h, &base)
	if base.Err != "" {
		logf(r.log, "main job (%d hogs): %s", h, base.Err)
		return base
	}
	if m := expectedRE.FindStringSubmatch(res.stderr); m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil {
			base.ExpectedS = d.Seconds()
		}
	}
	recs := records(base, res)
	logf(r.log, "main job (%d hogs, %d×, load %.1f): %s in %.0f s (expected %.0f s)", h, recs[0].SlowMotion, recs[0].Load[0], recs[0].Outcome, recs[0].WallS, recs[0].ExpectedS)
	return recs[0]
}

// skippedPrefix starts the error of a run the corpus could not make: a
// condition the scenario refuses (slow motion of a gRPC scenario), which
// the page leaves out.
const skippedPrefix = "skipped: "

// skipped reports whether r is a condition its scenario refuses. The
// first corpora recorded such a run as herdbench's refusal.
func (r record) skipped() bool {
	return strings.HasPrefix(r.Err, skippedPrefix) || strings.Contains(r.Err, "--slow-motion: slow motion (")
}

// expectedRE finds the expected wall time the scenario command prints.
var expectedRE = regexp.MustCompile(`Expected wall time: about (\S+)\.`)

// result is what one herdbench command left.
type result struct {
	summaries []*results.Summary
	stderr    string
}

// exec runs herdbench with args (in wd, if set) beside h hogs, fills
// rec's load, wall time, exit code or error, and reads the summaries of
// the results folder it names.
func (r *runner) exec(ctx context.Context, args []string, wd string, h int, rec *record) result {
	var stop func()
	if h > 0 {
		var err error
		if stop, err = cli.Hogs(h); err != nil {
			rec.Err = err.Error()
			return result{}
		}
		defer stop()
		time.Sleep(300 * time.Millisecond) // the hogs are spinning
	}
	rec.Load = loadAverages()
	cmd := exec.CommandContext(ctx, r.bin, args...)
	cmd.Dir = wd
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // herdbench stops within a second, results written
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	began := time.Now()
	err := cmd.Run()
	rec.WallS = time.Since(began).Seconds()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		rec.Err = "interrupted"
		return result{}
	case errors.As(err, &exit) && (exit.ExitCode() == 3 || exit.ExitCode() == 5):
		rec.Exit = exit.ExitCode()
	case errors.As(err, &exit) && exit.ExitCode() == 2 && strings.Contains(stderr.String(), "--slow-motion: slow motion"):
		rec.Err = skippedPrefix + "slow motion cannot slow this scenario"
		return result{}
	case err != nil:
		rec.Err = fmt.Sprintf("herdbench %s: %v: %s", strings.Join(args, " "), err, lastLine(stderr.String()))
		return result{}
	}
	dir := ""
	for _, l := range strings.Split(stdout.String(), "\n") {
		if f, ok := strings.CutPrefix(l, "results: "); ok {
			dir = strings.TrimSpace(f)
		}
	}
	if dir != "" && !filepath.IsAbs(dir) {
		dir = filepath.Join(wd, dir)
	}
	ss, err := readSummaries(dir)
	if err != nil {
		rec.Err = err.Error()
	}
	return result{summaries: ss, stderr: stderr.String()}
}

// records returns base filled in from each summary of res (a run's, or a
// sweep's points'), with the built-in's headline over all of them.
func records(base record, res result) []record {
	held := headline(res.summaries)
	var out []record
	for _, s := range res.summaries {
		rec := base
		rec.Headline = held
		rec.Point = results.PointLabel(s.Point)
		rec.SlowMotion = max(1, s.SlowMotion)
		rec.Apart = s.CohortsApart
		judged(&rec, s)
		out = append(out, rec)
	}
	if len(out) == 0 {
		base.Err = "no summary"
		out = append(out, base)
	}
	return out
}

// headline reports whether the built-in's headline held over ss (a run's
// summary, or a sweep's points'); nil for a scenario without one.
func headline(ss []*results.Summary) *bool {
	if len(ss) == 0 {
		return nil
	}
	checks, ok := scenarios.Headline(ss[0].Scenario, ss...)
	if !ok {
		return nil
	}
	h := true
	for _, c := range checks {
		h = h && c.Holds
	}
	return &h
}

// judged fills rec from s's verdict: its outcome, whether its figures
// were within their bands (the corpus's truth), whether the limits alone
// flagged it, and how the model given the run's lateness agreed.
func judged(rec *record, s *results.Summary) {
	v := s.Verdict
	if v == nil {
		rec.Err = "no verdict"
		return
	}
	rec.Outcome, rec.ResolutionMS, rec.Sentence = string(v.Outcome), v.ResolutionMS, v.Sentence
	rec.Limits = s.Harness != nil && len(s.Harness.Warnings) > 0
	attempts := map[string]float64{}
	for _, r := range s.Runs {
		attempts[r.Strategy], _ = r.Sim.Get("attempts")
	}
	rec.InBand = true
	for _, f := range v.Figures {
		b, ok := results.BandOf(f.Name)
		if !ok || f.Finer {
			continue
		}
		n := attempts[f.Cohort]
		rec.InBand = rec.InBand && b.Within(f.Real, f.Sim, n)
		if f.Late != nil {
			rec.LateCompared++
			if b.Within(f.Real, f.Late, n) {
				rec.LateAgrees++
			}
			if b.Within(f.Real, f.Sim, n) {
				rec.SimAgrees++
			}
		}
	}
}

// readSummaries reads a results folder's summary: a run's summary.json, or
// a sweep's summary of every point.
func readSummaries(dir string) ([]*results.Summary, error) {
	if dir == "" {
		return nil, errors.New("herdbench named no results folder")
	}
	names := []string{filepath.Join(dir, "summary.json")}
	if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); err == nil {
		names, _ = filepath.Glob(filepath.Join(dir, "summary-*.json"))
	}
	var out []*results.Summary
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		s, err := folder.DecodeSummary(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// loadAverages returns the machine's load averages (Linux), zeros where
// it does not say.
func loadAverages() [3]float64 {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	for i, f := range strings.Fields(string(b))[:3] {
		l[i], _ = strconv.ParseFloat(f, 64)
	}
	return l
}

// machine describes this machine: its CPU and cores, and its kernel.
func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel := runtime.GOOS
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel += " " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%s, %d cores, %s", cpu, runtime.NumCPU(), kernel)
}

func pointText(p string) string {
	if p == "" {
		return ""
	}
	return " [" + p + "]"
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
