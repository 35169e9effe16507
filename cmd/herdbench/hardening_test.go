package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results/report"
	"github.com/herdbench/herdbench/scenarios"
)

// Inputs that validated and then crashed, filled the memory or failed
// after the whole run are refused before it, with exit code 2 and a
// message that says what to change. Nothing runs: no results folder.
func TestRefusedBeforeTheRun(t *testing.T) {
	file := writeScenario(t, gateScenario)
	notAFolder := filepath.Join(t.TempDir(), "results.txt")
	if err := os.WriteFile(notAFolder, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	long := writeScenario(t, strings.Replace(gateScenario, "duration: 2s", "duration: 24h", 1))
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"--out names a file", []string{file, "--sim", "--out", notAFolder}, "is a file, not a folder"},
		{"--out cannot be created", []string{file, "--sim", "--out", "/proc/self/herdbench-runs"}, "--out: cannot create"},
		{"clients beyond the limit", []string{file, "--sim", "--clients", "9223372036854775807"}, "--clients 9223372036854775807: each client count must be from 1 to 10000000"},
		{"too many sweep points", []string{file, "--sim", "--clients", strings.Repeat("1,", 1000) + "2"}, "--clients lists 1001 counts"},
		{"runs beyond the limit", []string{file, "--sim", "--runs", "1000000000"}, "--runs 1000000000: run each cohort from 1 to 10000"},
		{"duration beyond a day", []string{file, "--sim", "--duration", "1000h"}, "--duration 1000h0m0s: a run lasts more than 0s and at most 24h"},
		{"bad --max-memory", []string{file, "--sim", "--max-memory", "lots"}, `--max-memory: "lots" is not a size`},
		{"more memory than allowed", []string{long, "--sim", "--max-memory", "1GiB"}, "needs more memory than allowed: about"},
		{"a sweep of an open workload", []string{writeScenario(t, "name: o\nworkload: {kind: open, rate: 10}\nstrategies: [{name: a, backoff: full}]\n"), "--sim", "--clients", "5,10"}, "workload.clients: --clients: an open workload has arrivals, not clients to count or sweep"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"scenario"}, c.args...)
			if !containsFlag(c.args, "--out") {
				args = append(args, "--out", out)
			}
			code, _, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", code, stderr, c.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("a refused run wrote %d entries into --out", len(entries))
			}
		})
	}
}

func containsFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == flag {
			return true
		}
	}
	return false
}

// --max-memory's default is half of what the machine has, and 0 turns the
// limit off.
func TestMemoryLimitFlag(t *testing.T) {
	limit, text, err := memoryLimit("")
	if err != nil || limit == 0 || !strings.Contains(text, "default --max-memory") {
		t.Errorf("default: %d, %q, %v", limit, text, err)
	}
	if limit, _, err := memoryLimit("0"); err != nil || limit != 0 {
		t.Errorf("0: %d, %v", limit, err)
	}
	if limit, text, err := memoryLimit("512MiB"); err != nil || limit != 512<<20 || text != "--max-memory 512 MiB" {
		t.Errorf("512MiB: %d, %q, %v", limit, text, err)
	}
}

// A panic is an internal error: exit code 1 (not Go's crash code 2), the
// panic and its stack, and how to report it.
func TestPanicIsAnInternalError(t *testing.T) {
	defer func(e func(context.Context, []*scenarios.Plan, engine.Options) ([]engine.Point, error)) { execute = e }(execute)
	execute = func(context.Context, []*scenarios.Plan, engine.Options) ([]engine.Point, error) {
		var m map[string]int
		//lint:ignore SA5000 the test needs a real runtime panic, and a nil map gives one
		m["boom"]++
		return nil, nil
	}
	code, _, stderr := runCLI(t, "scenario", writeScenario(t, gateScenario), "--sim", "--out", t.TempDir(), "-q")
	if code != exitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"herdbench: internal error: assignment to entry in nil map", "This is a bug in herdbench", "Please report it", "TestPanicIsAnInternalError"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// A panic in one of a run's goroutines stops the run; what it recorded is
// written, marked partial, and the command exits 1 naming the folder.
func TestRunPanicWritesWhatWasRecorded(t *testing.T) {
	defer func(e func(context.Context, []*scenarios.Plan, engine.Options) ([]engine.Point, error)) { execute = e }(execute)
	execute = func(ctx context.Context, plans []*scenarios.Plan, o engine.Options) ([]engine.Point, error) {
		points, err := engine.Execute(ctx, plans, o)
		if err != nil {
			return points, err
		}
		points[0].Output.Summary.Partial = true
		return points, &engine.PanicError{Value: "a client's goroutine failed", Stack: []byte("goroutine 7 [running]:")}
	}
	out := t.TempDir()
	code, _, stderr := runCLI(t, "scenario", writeScenario(t, gateScenario), "--sim", "--out", out, "-q", "--no-png")
	if code != exitFailed {
		t.Errorf("exit %d, want 1", code)
	}
	s := readSummary(t, out)
	if !s.Partial {
		t.Error("the results are not marked partial")
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "gates-*"))
	if len(dirs) != 1 || !strings.Contains(stderr, "The results recorded until then are in "+dirs[0]) || !strings.Contains(stderr, "goroutine 7 [running]") {
		t.Errorf("stderr does not name the results folder %v or show the stack:\n%s", dirs, stderr)
	}
}

// While the report is drawn, the results folder is not there yet: a run
// killed (or Ctrl-C'd twice) then leaves no folder without report.html.
func TestResultsFolderAppearsComplete(t *testing.T) {
	defer func(r func(string, report.Options) error) { renderReport = r }(renderReport)
	out := t.TempDir()
	drawn := false
	renderReport = func(dir string, o report.Options) error {
		drawn = true
		entries, err := os.ReadDir(out)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				t.Errorf("%s is visible while its report is drawn", e.Name())
			}
		}
		return report.RenderDir(dir, o)
	}
	if code, _, stderr := runCLI(t, "scenario", writeScenario(t, gateScenario), "--sim", "--out", out, "-q", "--no-png"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !drawn {
		t.Fatal("no report drawn")
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "gates-*", "report.html"))
	entries, _ := os.ReadDir(out)
	if len(dirs) != 1 || len(entries) != 1 {
		t.Errorf("after the run: %d folders with report.html, %d entries in all (hidden ones left?)", len(dirs), len(entries))
	}
	// A report that fails to draw leaves the data in place, complete,
	// and exits 1: 'herdbench report DIR' can draw it again.
	renderReport = func(string, report.Options) error { return errors.New("drawing failed") }
	out = t.TempDir()
	code, _, stderr := runCLI(t, "scenario", writeScenario(t, gateScenario), "--sim", "--out", out, "-q", "--no-png")
	if code != exitFailed || !strings.Contains(stderr, "drawing failed") {
		t.Errorf("a failed report: exit %d, stderr %s", code, stderr)
	}
	if s := readSummary(t, out); len(s.Runs) != 1 {
		t.Errorf("the data of a run whose report failed: %+v", s)
	}
}

// A simulation interrupted before its cohorts' timelines were complete
// writes its figures, marked partial, says why there is no report, and
// exits 130, not 1.
func TestInterruptedSimulationWritesItsFigures(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before the first cohort run ends
	out := t.TempDir()
	var stdout, stderr strings.Builder
	code := run(ctx, []string{"scenario", writeScenario(t, gateScenario), "--sim", "--out", out, "-q", "--no-png"}, &stdout, &stderr)
	if code != exitSignal || !strings.Contains(stderr.String(), "no report: the simulation was interrupted") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if s := readSummary(t, out); !s.Partial {
		t.Error("the figures are not marked partial")
	}
}
