package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// gateScenario is a small simulated scenario whose figures vary from
// repetition to repetition (a 30% error rate draws differently per seed)
// and grow with the clients.
const gateScenario = `name: gates
duration: 2s
seed: 11
target: {concurrency: 8, service_time: exponential(5ms)}
chaos:
  - {kind: error-rate, rate: 0.3, at: 500ms, for: 1s}
workload: {kind: closed, clients: 20, think: exponential(50ms)}
strategies:
  - {name: full, backoff: full, base: 10ms, cap: 200ms}
`

// readJSON reads a summary file.
func readJSON(t *testing.T, path string) results.Summary {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s results.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// A sweep checks its thresholds at every point: the one that fails makes
// the command exit 3, and each point's summary records its checks.
func TestSweepChecksThresholdsAtEveryPoint(t *testing.T) {
	file := writeScenario(t, gateScenario+"thresholds:\n  - requests < 1000\n")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "scenario", file, "--sim", "--clients", "1,200", "--out", out, "-q")
	if code != exitThresholds {
		t.Fatalf("exit %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "gates-*"))
	if len(dirs) != 1 {
		t.Fatalf("results folders: %v", dirs)
	}
	for _, c := range []struct {
		clients int
		pass    bool
	}{{1, true}, {200, false}} {
		s := readJSON(t, filepath.Join(dirs[0], folder.PointFileNames([][]results.Setting{{{Field: "workload.clients", Value: fmt.Sprint(c.clients)}}})[0]))
		if len(s.Thresholds) != 1 || s.Thresholds[0].Pass != c.pass || s.Thresholds[0].Value == nil {
			t.Errorf("%d clients: thresholds %+v, want one that passes: %v", c.clients, s.Thresholds, c.pass)
		}
	}
	for _, want := range []string{"workload.clients=1: thresholds: all 1 passed", "workload.clients=200: thresholds: 1 of 1 FAILED"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "1 of 2 threshold checks failed over the 2 points of the sweep (exit code 3)") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// With --runs K a threshold holds only if it holds in every repetition,
// not only in the first; mean(...) compares the mean over them.
func TestThresholdsSeeEveryRepetition(t *testing.T) {
	const reps = 5
	file := writeScenario(t, gateScenario)
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "scenario", file, "--sim", "--runs", fmt.Sprint(reps), "--out", out, "-q", "--no-png"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	st := readSummary(t, out).Runs[0].Stats["attempts"]
	if st.N != reps || st.Min == st.Max {
		t.Fatalf("attempts over the repetitions: %+v; the test needs them to differ", st)
	}
	first := *st.Values[0]
	// A bound the first repetition meets and another one does not.
	gate := fmt.Sprintf("attempts <= %g", first)
	if first == st.Max {
		gate = fmt.Sprintf("attempts >= %g", first)
	}
	mean := fmt.Sprintf("mean(attempts) <= %g", math.Ceil(st.Mean))
	file = writeScenario(t, gateScenario+"thresholds:\n  - "+gate+"\n  - "+mean+"\n")
	out = t.TempDir()
	code, stdout, stderr := runCLI(t, "scenario", file, "--sim", "--runs", fmt.Sprint(reps), "--out", out, "-q", "--no-png", "--explain")
	if code != exitThresholds {
		t.Fatalf("%s over %d repetitions whose first passes: exit %d, want 3\n%s\n%s", gate, reps, code, stdout, stderr)
	}
	th := readSummary(t, out).Thresholds
	if len(th) != 2 || th[0].Pass || th[0].Repetitions != reps || th[0].FailedRepetitions < 1 || !th[1].Pass || th[1].Value == nil || *th[1].Value != st.Mean {
		t.Errorf("summary.json thresholds: %+v", th)
	}
	if !strings.Contains(stdout, fmt.Sprintf("(worst of %d)", reps)) || !strings.Contains(stdout, fmt.Sprintf("(mean of %d)", reps)) {
		t.Errorf("the thresholds table does not say what it compared:\n%s", stdout)
	}
}

// A sweep's scenario.yaml records the sweep and the repetitions: rerunning
// it repeats the sweep, figure for figure.
func TestSweepScenarioReruns(t *testing.T) {
	t.Parallel() // its own folders, ports and child processes
	file := writeScenario(t, gateScenario)
	out := t.TempDir()
	if code, _, stderr := runCLI(t, "scenario", file, "--sim", "--clients", "5,10", "--runs", "2", "--out", out, "-q"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "gates-*"))
	if len(dirs) != 1 {
		t.Fatalf("results folders: %v", dirs)
	}
	resolved, err := os.ReadFile(filepath.Join(dirs[0], "scenario.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resolved), "runs: 2\nsweep:\n    workload.clients: [5, 10]\n") {
		t.Errorf("scenario.yaml does not record the sweep:\n%s", resolved)
	}
	again := t.TempDir()
	if code, _, stderr := runCLI(t, "scenario", filepath.Join(dirs[0], "scenario.yaml"), "--sim", "--out", again, "-q"); code != exitOK {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	rerun, _ := filepath.Glob(filepath.Join(again, "gates-*", "sweep.csv"))
	if len(rerun) != 1 {
		t.Fatalf("the rerun wrote no sweep: %v", rerun)
	}
	a, _ := os.ReadFile(filepath.Join(dirs[0], "sweep.csv"))
	b, _ := os.ReadFile(rerun[0])
	if string(a) != string(b) {
		t.Errorf("the rerun's sweep.csv differs:\n%s\nwant:\n%s", b, a)
	}
	// --clients with one count on the command line replaces the file's
	// sweep: a single run.
	single := t.TempDir()
	if code, _, stderr := runCLI(t, "scenario", filepath.Join(dirs[0], "scenario.yaml"), "--sim", "--clients", "7", "--runs", "1", "--out", single, "-q", "--no-png"); code != exitOK {
		t.Fatalf("one count: exit %d: %s", code, stderr)
	}
	if s := readSummary(t, single); s.Clients != 7 || s.Repetitions != 0 {
		t.Errorf("one count over a file's sweep: clients %d, repetitions %d", s.Clients, s.Repetitions)
	}
}

// A sweep ends as a run does (one end-of-run path): an interrupted point
// is said partial on stdout and stderr, a cohort that never succeeded is
// warned about at the point where it did not, and the exit code is 130.
func TestSweepEndsLikeARun(t *testing.T) {
	defer func(e func(context.Context, []*scenarios.Plan, engine.Options) ([]engine.Point, error)) { execute = e }(execute)
	execute = func(ctx context.Context, plans []*scenarios.Plan, o engine.Options) ([]engine.Point, error) {
		points, err := engine.Execute(ctx, plans, o)
		if err != nil {
			return points, err
		}
		last := points[len(points)-1].Output.Summary
		ended := 1.5
		last.Partial, last.EndedS = true, &ended
		r := &last.Runs[0]
		r.Outcomes["http_5xx"] += r.Outcomes["ok"]
		r.Outcomes["ok"] = 0
		return points, nil
	}
	for _, sweep := range []bool{false, true} {
		clients := "20"
		if sweep {
			clients = "1,20"
		}
		code, stdout, stderr := runCLI(t, "scenario", writeScenario(t, gateScenario), "--sim", "--clients", clients, "--out", t.TempDir(), "-q", "--no-png")
		at := ""
		if sweep {
			at = " at workload.clients=20"
		}
		if code != exitSignal || !strings.Contains(stdout, "PARTIAL: the run was interrupted at 1.5s of 2s") ||
			!strings.Contains(stderr, "herdbench scenario: interrupted; the results cover what was recorded and are marked partial\n") || !strings.Contains(stderr, "attempts"+at+" succeeded (most were http_5xx") {
			t.Errorf("sweep %v: exit %d, want 130, a partial notice and a warning of no success%s\nstdout:\n%s\nstderr:\n%s", sweep, code, at, stdout, stderr)
		}
		if n := strings.Count(stderr, "succeeded (most were"); n != 1 {
			t.Errorf("sweep %v: %d warnings of no success, want 1 (the point without one):\n%s", sweep, n, stderr)
		}
	}
}

// The partial-results line names its command, as every other interrupt
// line does ("herdbench report: interrupted; ..."); a merge's says that a
// shard was interrupted, not the merge (which writes nothing then).
func TestInterruptedLineNamesItsCommand(t *testing.T) {
	for command, want := range map[string]string{
		"scenario": "herdbench scenario: interrupted; the results cover what was recorded and are marked partial",
		"merge":    "herdbench merge: a shard was interrupted; the merged results end where it stopped and are marked partial",
	} {
		if got := interruptedLine(command); got != want {
			t.Errorf("%s: %q, want %q", command, got, want)
		}
	}
}

// --set sweeps any field: two of them run every combination, and the
// folder holds sweep.csv with a column for each, a summary per point named
// by its values, and a report with the figures against each field and the
// heat maps over both; the sweep's scenario.yaml reruns it.
func TestSetSweepsAnyField(t *testing.T) {
	file := writeScenario(t, gateScenario)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "scenario", file, "--sim", "--set", "target.concurrency=2,8", "--set", "strategies[full].cap=50ms,200ms,1s", "--set", "target.queue=20", "--out", out, "-q", "--no-png")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "gates-*"))
	if len(dirs) != 1 {
		t.Fatalf("results folders: %v", dirs)
	}
	csv, err := os.ReadFile(filepath.Join(dirs[0], "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "target.concurrency,strategies[full].cap,clients,strategy,runs,") || !strings.HasPrefix(lines[6], "8,1s,20,full,1,") {
		t.Fatalf("sweep.csv:\n%s", csv)
	}
	s := readJSON(t, filepath.Join(dirs[0], "summary-concurrency-8_cap-200ms.json"))
	if results.PointLabel(s.Point) != "target.concurrency=8, strategies[full].cap=200ms" {
		t.Errorf("the point's summary: point %v", s.Point)
	}
	html, err := os.ReadFile(filepath.Join(dirs[0], "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`id="sweep_1"`, `id="sweep_2"`, `id="heatmap_recovery_s"`, "6 points, every combination of target.concurrency (2 values) × strategies[full].cap (3 values)"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	resolved, _ := os.ReadFile(filepath.Join(dirs[0], "scenario.yaml"))
	for _, want := range []string{"queue: 20\n", "sweep:\n    target.concurrency: [2, 8]\n    strategies[full].cap: [50ms, 200ms, 1s]\n"} {
		if !strings.Contains(string(resolved), want) {
			t.Errorf("scenario.yaml lacks %q:\n%s", want, resolved)
		}
	}
	if code, stdout, _ := runCLI(t, "validate", filepath.Join(dirs[0], "scenario.yaml")); code != exitOK || !strings.Contains(stdout, "a sweep of 6 points, each checked") {
		t.Errorf("validate the sweep's scenario: exit %d: %s", code, stdout)
	}
}

// A value that is wrong at some points is refused before anything runs,
// naming those points; so are a path that names no field, and --clients
// beside --set workload.clients.
func TestSetRefusedBeforeTheRun(t *testing.T) {
	file := writeScenario(t, gateScenario)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "strategies[full].cap=50ms,1ms", "--set", "workload.clients=5,10"}, "strategies[0].cap: at strategies[full].cap=1ms: cap 1ms is below base 10ms"},
		{[]string{"--set", "workload.clietns=5,10"}, `workload.clietns: --set: unknown field "clietns" (did you mean "clients"?)`},
		{[]string{"--set", "chaos[2].for=1s,2s"}, "chaos has 1 item, numbered from 0: there is no [2]"},
		{[]string{"--set", "workload.clients"}, "--set \"workload.clients\": write PATH=VALUE or PATH=V1,V2,..."},
		{[]string{"--clients", "5,10", "--set", "workload.clients=7"}, "--clients is --set workload.clients: give the count of clients once"},
		{[]string{"--set", "duration=1s,2s", "--duration", "3s"}, "--set duration: --duration sets the run's length too; give it once"},
	} {
		out := t.TempDir()
		code, _, stderr := runCLI(t, append([]string{"scenario", file, "--sim", "--out", out, "-q"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.args, code, c.want, stderr)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%v: something was written", c.args)
		}
	}
}

// cancelOn is a progress writer that cancels the run when it sees a line.
type cancelOn struct {
	mu     sync.Mutex
	b      strings.Builder
	line   string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.line) {
		w.cancel()
	}
	return len(p), nil
}

// Ctrl-C in the middle of a real-time sweep keeps the points that
// finished: the first point's summary whole, the second's (the one it
// cut) marked partial and left out of sweep.csv, none for the third, a
// report of what finished, and exit 130.
func TestInterruptedSweepKeepsFinishedPoints(t *testing.T) {
	t.Parallel() // its own folders, ports and child processes
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	file := writeScenario(t, gateScenario)
	out := t.TempDir()
	stderr := &cancelOn{line: "run 2 of 3", cancel: cancel} // the second point has begun
	var stdout strings.Builder
	code := run(ctx, []string{"scenario", file, "--set", "workload.clients=2,3,4", "--no-sim-reference", "--no-png", "--out", out, "--allow-untrustworthy"}, &stdout, stderr)
	if code != exitSignal {
		t.Fatalf("exit %d, want %d:\n%s", code, exitSignal, stderr.b.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "gates-*"))
	if len(dirs) != 1 {
		t.Fatalf("results folders: %v", dirs)
	}
	if s := readJSON(t, filepath.Join(dirs[0], "summary-clients-2.json")); s.Partial || len(s.Runs) != 1 || s.Runs[0].Requests == 0 {
		t.Errorf("the finished point: partial %v, runs %+v", s.Partial, s.Runs)
	}
	if s := readJSON(t, filepath.Join(dirs[0], "summary-clients-3.json")); !s.Partial {
		t.Error("the point the interrupt cut is not marked partial")
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "summary-clients-4.json")); !os.IsNotExist(err) {
		t.Errorf("a point that never began has a summary: %v", err)
	}
	csv, err := os.ReadFile(filepath.Join(dirs[0], "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "2,") {
		t.Errorf("sweep.csv, want the finished point alone:\n%s", csv)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "report.html")); err != nil {
		t.Errorf("no report of the finished point: %v", err)
	}
}
