// Command robustness measures how often the built-in scenarios show what
// they claim in real time: it runs each one K times, on the machine as it
// is and again with CPU hogs beside it, and prints for every run whether
// its headline held (scenarios.Headline: every claim its YAML states, c1,
// c2, … in the tables), with the figures, the harness's self-check and the
// load average, then how often it held.
//
//	go run ./bench/robustness -runs 20 -hog-runs 10 -hogs 2
//
// For an OCC scenario (aws-contention) it also compares every cohort's
// calls with a reference, the simulator's mean over -reference-runs
// seeds, and counts the runs within -calls-within of it and those whose
// self-check agreed (trustworthy exactly when they were):
//
//	go run ./bench/robustness -scenarios aws-contention -runs 5 -hog-runs 5 -args "--clients 130 --strategies exponential,full"
//
// The runs are the real CLI, herdbench scenario NAME, built from this tree
// (or -herdbench PATH), so they are what a user gets. Runs alternate: for
// each round, every scenario once without hogs, then once with them, so
// both conditions see the same machine. A hog is a child process spinning
// on one core; the command starts the hogs right before a run and kills
// them (by PID) right after, and each hog also stops by itself at its
// deadline or when this command's process is gone. All load goes to
// 127.0.0.1 and every run stops by itself.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

func main() {
	hog := flag.Duration("hog", 0, "internal: spin on one core for this long, or until the parent process is gone")
	names := flag.String("scenarios", "outage,metastable", "built-in scenarios (or files) to run, comma-separated; each must have a headline ("+strings.Join(headlined(), ", ")+")")
	runs := flag.Int("runs", 20, "runs of each scenario without hogs")
	hogRuns := flag.Int("hog-runs", 10, "runs of each scenario with -hogs CPU hogs beside it")
	hogs := flag.Int("hogs", 2, "CPU hogs (processes spinning on one core each) during the hog runs")
	hb := flag.String("herdbench", "", "the herdbench binary (default: built from this tree into a temporary folder)")
	extra := flag.String("args", "", "more arguments for every herdbench scenario run, space-separated (e.g. \"--clients 50\")")
	keep := flag.String("keep", "", "keep the results folders in this folder (default: a temporary folder, removed at the end)")
	markdown := flag.Bool("markdown", false, "print the tables as Markdown")
	callsWithin := flag.Float64("calls-within", 0.15, "for OCC scenarios (aws-contention): how close to the reference each cohort's calls must be, as a fraction, for the summary's count of runs whose calls agreed")
	refRuns := flag.Int("reference-runs", 100, "for OCC scenarios: the reference is the simulator's mean calls over this many seeds (herdbench scenario NAME --sim --runs N, with -args), run once per scenario; 0 compares each run with the simulator's run of its own seed (runs[].sim)")
	flag.Parse()
	if *hog > 0 {
		spin(*hog)
		return
	}
	cfg := config{runs: *runs, hogRuns: *hogRuns, hogs: *hogs, herdbench: *hb, keep: *keep, markdown: *markdown, callsWithin: *callsWithin, refRuns: *refRuns}
	cfg.scenarios = strings.Split(*names, ",")
	if *extra != "" {
		cfg.args = strings.Fields(*extra)
	}
	// Ctrl-C or SIGTERM stops the run under way (herdbench writes it,
	// marked partial) and the hogs, and prints the runs done so far.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "robustness:", err)
		os.Exit(1)
	}
}

type config struct {
	scenarios     []string
	runs, hogRuns int
	hogs          int
	herdbench     string
	args          []string
	keep          string
	markdown      bool
	callsWithin   float64 // -calls-within
	refRuns       int     // -reference-runs
	// refs caches each scenario's reference: its cohorts' mean calls in
	// the simulator over refRuns seeds (nil: none, not an OCC scenario).
	refs map[string]map[string]float64
}

// outcome is one run of one scenario.
type outcome struct {
	scenario string
	hogs     int
	load     float64 // one-minute load average before the run
	wall     time.Duration
	checks   []scenarios.Claim
	harness  *results.Harness
	worstLag float64 // the largest cohort send lag p99, ms
	// worstSpread is the largest cohort spread p99 after a crash, ms
	// (results.Run.SpreadMS), when hasSpread.
	worstSpread float64
	hasSpread   bool
	// calls is, for an OCC scenario (aws-contention), each cohort's calls
	// against the simulator's for the same plan and seed (runs[].sim), and
	// callsOff the largest |calls / sim − 1| over the cohorts; none
	// without.
	calls    []string
	callsOff float64
	err      error
}

func (o outcome) held() bool {
	if o.err != nil || len(o.checks) == 0 {
		return false
	}
	for _, c := range o.checks {
		if !c.Holds {
			return false
		}
	}
	return true
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "herdbench-robustness-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "runs")
	if cfg.keep != "" {
		out = cfg.keep
	}
	if cfg.herdbench == "" {
		cfg.herdbench = filepath.Join(dir, "herdbench")
		build := exec.Command("go", "build", "-o", cfg.herdbench, "./cmd/herdbench")
		build.Stdout, build.Stderr = stderr, stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building herdbench (run from the repository's root, or pass -herdbench): %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cfg.refs = map[string]map[string]float64{}
	started := time.Now()
	var all []outcome
	for round := 0; round < max(cfg.runs, cfg.hogRuns) && ctx.Err() == nil; round++ {
		for _, name := range cfg.scenarios {
			conditions := []int{}
			if round < cfg.runs {
				conditions = append(conditions, 0)
			}
			if cfg.hogs > 0 && round < cfg.hogRuns {
				conditions = append(conditions, cfg.hogs)
			}
			for _, h := range conditions {
				if ctx.Err() != nil {
					break
				}
				o := runOnce(ctx, cfg, self, name, h, out)
				all = append(all, o)
				fmt.Fprintf(stderr, "%s, %d hogs, round %d: %s\n", name, h, round+1, line(o))
			}
		}
	}
	report(stdout, cfg, all, time.Since(started))
	return nil
}

// runOnce runs one scenario with h hogs beside it.
func runOnce(ctx context.Context, cfg config, self, name string, h int, out string) outcome {
	o := outcome{scenario: name, hogs: h, load: loadAverage()}
	var hogs []*exec.Cmd
	for range h {
		// A hog outlives no run: it is killed right after it, and stops by
		// itself when this process is gone, or after 15 minutes, longer
		// than any built-in takes (aws-contention at 100 clients, cohorts
		// apart: about 2 minutes).
		c := exec.Command(self, "-hog", "15m")
		if err := c.Start(); err != nil {
			o.err = err
			return o
		}
		hogs = append(hogs, c)
	}
	defer func() {
		for _, c := range hogs {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	if h > 0 {
		time.Sleep(300 * time.Millisecond) // the hogs are spinning
	}
	args := append([]string{"scenario", name, "-q", "--no-png", "--out", out}, cfg.args...)
	cmd := exec.CommandContext(ctx, cfg.herdbench, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) } // herdbench stops within a second, results written
	cmd.WaitDelay = 10 * time.Second
	began := time.Now()
	text, err := cmd.Output()
	o.wall = time.Since(began)
	if ctx.Err() != nil {
		o.err = errors.New("interrupted")
		return o
	}
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 3) { // 3: a threshold failed, results written
		o.err = fmt.Errorf("herdbench %s: %w", strings.Join(args, " "), err)
		return o
	}
	dir := ""
	for _, l := range strings.Split(string(text), "\n") {
		if f, ok := strings.CutPrefix(l, "results: "); ok {
			dir = strings.TrimSpace(f)
		}
	}
	summaries, err := readSummaries(dir)
	if err != nil {
		o.err = err
		return o
	}
	checks, ok := scenarios.Headline(summaries[0].Scenario, summaries...)
	if !ok {
		o.err = fmt.Errorf("scenario %q has no headline to check", summaries[0].Scenario)
		return o
	}
	o.checks = checks
	for _, s := range summaries {
		if o.harness == nil || s.Harness != nil && !s.Harness.Trustworthy {
			o.harness = s.Harness // a sweep is as trustworthy as its least trustworthy point
		}
		for _, r := range s.Runs {
			if r.SendLagMS != nil {
				o.worstLag = max(o.worstLag, r.SendLagMS.P99)
			}
			if r.SpreadMS != nil {
				o.worstSpread, o.hasSpread = max(o.worstSpread, r.SpreadMS.P99), true
			}
			if r.Calls == nil {
				continue
			}
			ref, ok := 0.0, false
			if cfg.refRuns > 0 {
				ref, ok = reference(ctx, cfg, name, out)[r.Strategy]
			} else {
				ref, ok = r.Sim.Get("calls")
			}
			if ok && ref > 0 {
				d := float64(*r.Calls)/ref - 1
				o.callsOff = max(o.callsOff, math.Abs(d))
				o.calls = append(o.calls, fmt.Sprintf("%s %d vs %.0f (%+.1f%%)", r.Strategy, *r.Calls, ref, 100*d))
			}
		}
	}
	return o
}

// reference returns scenario name's reference calls per cohort: the
// simulator's mean over cfg.refRuns seeds, with the runs' extra
// arguments, computed once (an empty map if it has none, or could not).
func reference(ctx context.Context, cfg config, name, out string) map[string]float64 {
	if ref, ok := cfg.refs[name]; ok {
		return ref
	}
	ref := map[string]float64{}
	cfg.refs[name] = ref
	args := append([]string{"scenario", name, "--sim", "--runs", strconv.Itoa(cfg.refRuns), "-q", "--no-png", "--out", out}, cfg.args...)
	text, err := exec.CommandContext(ctx, cfg.herdbench, args...).Output()
	if err != nil {
		return ref
	}
	for _, l := range strings.Split(string(text), "\n") {
		if f, ok := strings.CutPrefix(l, "results: "); ok {
			if ss, err := readSummaries(strings.TrimSpace(f)); err == nil {
				for _, r := range ss[0].Runs {
					if st, ok := r.Stats["calls"]; ok && st.N > 0 {
						ref[r.Strategy] = st.Mean
					}
				}
			}
		}
	}
	return ref
}

// readSummaries reads a results folder's summary: a run's summary.json, or
// a sweep's summary of every point.
func readSummaries(dir string) ([]*results.Summary, error) {
	names := []string{filepath.Join(dir, "summary.json")}
	if _, err := os.Stat(filepath.Join(dir, "sweep.csv")); err == nil {
		names, _ = filepath.Glob(filepath.Join(dir, "summary-*.json"))
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: a sweep without summaries", dir)
		}
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

func line(o outcome) string {
	if o.err != nil {
		return "error: " + o.err.Error()
	}
	var parts []string
	for _, c := range o.checks {
		mark := "ok"
		if !c.Holds {
			mark = "FAILS"
		}
		parts = append(parts, fmt.Sprintf("%s: %s %s", c.Short, c.Figure, mark))
	}
	trust := "trustworthy"
	if o.harness != nil && !o.harness.Trustworthy {
		trust = "NOT trustworthy"
	}
	extra := ""
	if o.hasSpread {
		extra += fmt.Sprintf(", spread p99 %.1f ms", o.worstSpread)
	}
	if o.harness != nil {
		extra += fmt.Sprintf(", %s limit %.1f ms", o.harness.Figures, o.harness.LimitMS)
	}
	if len(o.calls) > 0 {
		extra += "; calls vs the reference: " + strings.Join(o.calls, ", ")
	}
	return fmt.Sprintf("load %.1f, %s; %s; send lag p99 %.1f ms%s (%s)", o.load, o.wall.Round(100*time.Millisecond), strings.Join(parts, "; "), o.worstLag, extra, trust)
}

// report prints one table per scenario and condition, then how often each
// headline held.
func report(w io.Writer, cfg config, all []outcome, took time.Duration) {
	fmt.Fprintf(w, "\nrobustness: %s, %d runs each without hogs and %d with %d CPU hogs, in %s\n", strings.Join(cfg.scenarios, ", "), cfg.runs, cfg.hogRuns, cfg.hogs, took.Round(time.Second))
	if len(cfg.args) > 0 {
		fmt.Fprintf(w, "extra arguments: %s\n", strings.Join(cfg.args, " "))
	}
	type key struct {
		scenario string
		hogs     int
	}
	var order []key
	groups := map[key][]outcome{}
	for _, o := range all {
		k := key{o.scenario, o.hogs}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], o)
	}
	var legends []string
	for _, k := range order {
		group := groups[k]
		fmt.Fprintf(w, "\n%s, %d CPU hogs\n\n", k.scenario, k.hogs)
		var head, legend []string
		head = append(head, "run", "load", "wall")
		for _, o := range group {
			if o.err == nil {
				for _, c := range o.checks {
					head = append(head, c.Short)
					legend = append(legend, c.Short+": "+c.Text)
				}
				break
			}
		}
		spreads, calls := false, false
		for _, o := range group {
			spreads = spreads || o.hasSpread
			calls = calls || len(o.calls) > 0
		}
		head = append(head, "send lag p99")
		if spreads {
			head = append(head, "spread p99")
		}
		if calls {
			head = append(head, "calls vs sim (worst)")
		}
		head = append(head, "trustworthy", "held")
		var rows [][]string
		for i, o := range group {
			row := []string{strconv.Itoa(i + 1), fmt.Sprintf("%.1f", o.load), fmt.Sprintf("%.0f s", o.wall.Seconds())}
			if o.err != nil {
				row = append(row, "error: "+o.err.Error())
				rows = append(rows, row)
				continue
			}
			for _, c := range o.checks {
				mark := ""
				if !c.Holds {
					mark = " ✗"
				}
				row = append(row, c.Figure+mark)
			}
			trust := "–"
			if o.harness != nil {
				trust = map[bool]string{true: "yes", false: "no"}[o.harness.Trustworthy]
			}
			row = append(row, fmt.Sprintf("%.1f ms", o.worstLag))
			if spreads {
				row = append(row, orDash(o.hasSpread, fmt.Sprintf("%.1f ms", o.worstSpread)))
			}
			if calls {
				row = append(row, orDash(len(o.calls) > 0, fmt.Sprintf("±%.1f%%", 100*o.callsOff)))
			}
			row = append(row, trust, map[bool]string{true: "yes", false: "NO"}[o.held()])
			rows = append(rows, row)
		}
		printTable(w, head, rows, cfg.markdown)
		for _, l := range legend {
			if !slices.Contains(legends, l) {
				legends = append(legends, l)
			}
		}
	}
	fmt.Fprintln(w)
	for _, l := range legends {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, "  load: the one-minute load average before the run (its hogs not yet started); wall: the run's wall time;")
	fmt.Fprintln(w, "  send lag p99, spread p99: the worst cohort's (the self-check); calls vs sim: the largest |calls / reference − 1| over")
	if cfg.refRuns > 0 {
		fmt.Fprintf(w, "  the cohorts, the reference the simulator's mean over %d seeds; trustworthy: the self-check's verdict; ✗: the claim failed\n", cfg.refRuns)
	} else {
		fmt.Fprintln(w, "  the cohorts, the reference the simulator's run of the same seed; trustworthy: the self-check's verdict; ✗: the claim failed")
	}
	fmt.Fprintln(w)
	for _, k := range order {
		tally(w, cfg, k.scenario, k.hogs, groups[k])
	}
}

// tally writes one line for a scenario's runs with hogs CPU hogs: how
// often its headline held and the self-check trusted the run, how close
// the calls came to the reference, the load averages.
func tally(w io.Writer, cfg config, scenario string, hogs int, group []outcome) {
	held, trusted, loads := 0, 0, make([]float64, 0, len(group))
	withCalls, near, agree := 0, 0, 0
	for _, o := range group {
		if o.held() {
			held++
		}
		ok := o.harness != nil && o.harness.Trustworthy
		if ok {
			trusted++
		}
		loads = append(loads, o.load)
		if len(o.calls) > 0 {
			withCalls++
			in := o.callsOff <= cfg.callsWithin
			if in {
				near++
			}
			if in == ok {
				agree++
			}
		}
	}
	calls := ""
	if withCalls > 0 {
		calls = fmt.Sprintf("; every cohort's calls within %.0f%% of the reference in %d of %d; trustworthy exactly when they were in %d of %d",
			100*cfg.callsWithin, near, withCalls, agree, withCalls)
	}
	fmt.Fprintf(w, "%s, %d CPU hogs: headline held in %d of %d runs; trustworthy %d of %d%s; load average %s\n",
		scenario, hogs, held, len(group), trusted, len(group), calls, spread(loads))
}

// orDash returns text, or "–" when there is none.
func orDash(ok bool, text string) string {
	if !ok {
		return "–"
	}
	return text
}

func spread(v []float64) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	if len(v) == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f to %.1f", lo, hi)
}

func printTable(w io.Writer, head []string, rows [][]string, markdown bool) {
	if markdown {
		fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
		fmt.Fprintln(w, "|"+strings.Repeat("---|", len(head)))
		for _, r := range rows {
			fmt.Fprintln(w, "| "+strings.Join(r, " | ")+" |")
		}
		return
	}
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			if i < len(width) {
				width[i] = max(width[i], len([]rune(c)))
			}
		}
	}
	pr := func(cells []string) {
		for i, c := range cells {
			if i < len(width) {
				fmt.Fprintf(w, "%-*s  ", width[i], c)
			} else {
				fmt.Fprint(w, c)
			}
		}
		fmt.Fprintln(w)
	}
	pr(head)
	for _, r := range rows {
		pr(r)
	}
}

// loadAverage returns the one-minute load average (Linux), or NaN.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, err := strconv.ParseFloat(f, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// spin keeps one core busy for d, or until the process that started it is
// gone.
func spin(d time.Duration) {
	parent := os.Getppid()
	end := time.Now().Add(d)
	x := 1.0
	for time.Now().Before(end) && os.Getppid() == parent {
		for i := 0; i < 1_000_000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	if x < 0 {
		fmt.Println(x) // keeps the loop from being optimized away
	}
}

// headlined returns the built-in scenarios that have a headline to check.
func headlined() []string {
	all, err := scenarios.Builtins()
	if err != nil {
		return nil
	}
	var out []string
	for _, b := range all {
		if _, ok := scenarios.Headline(b.Name); ok {
			out = append(out, b.Name)
		}
	}
	return out
}
