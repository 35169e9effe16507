package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/report"
	"github.com/herdbench/herdbench/scenarios"
)

// escapeScenario is a game day's scenario (no strategies) whose name
// would put its recordings' results folders two levels above --out.
const escapeScenario = "../../scenarios/testdata/bad/server-name-escape.yaml"

// nested returns an --out two levels below a fresh folder, and that
// folder: what a name that climbs out of --out would write into.
func nested(t *testing.T) (out, top string) {
	top = t.TempDir()
	out = filepath.Join(top, "a", "b")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return out, top
}

// wroteOutside fails the test if anything but the folders "a/b" of
// nested is in top.
func wroteOutside(t *testing.T, top string) {
	t.Helper()
	_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(top, p); err == nil && rel != "." && rel != "a" && !strings.HasPrefix(rel, filepath.Join("a", "b")) {
			t.Errorf("written outside --out: %s", p)
		}
		return nil
	})
}

// TestFolderNamesRefusedByEveryCommand: a scenario named ../../herd-escape
// is refused, with its line and field, by validate and by each command
// that would write a results folder from it (scenario, target, proxy),
// and nothing is written anywhere.
func TestFolderNamesRefusedByEveryCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "validate", escapeScenario)
	if code != exitUsage || strings.Contains(stdout, "ok for") || !strings.Contains(stderr, "server-name-escape.yaml:1: name:") {
		t.Errorf("validate: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"target", "--scenario", escapeScenario, "--exit-after", "1s", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0"},
		{"proxy", "--scenario", escapeScenario, "--exit-after", "1s", "--upstream", "http://127.0.0.1:9/", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0"},
		{"scenario", "../../scenarios/testdata/bad/name-dot.yaml", "--sim"},
	} {
		out, top := nested(t)
		code, _, stderr := runCLI(t, append(args, "--out", out, "-q")...)
		if code != exitUsage || !strings.Contains(stderr, ":1: name:") || !strings.Contains(stderr, `starts with "."`) {
			t.Errorf("%s: exit %d, want %d and the name's line\n%s", args[0], code, exitUsage, stderr)
		}
		wroteOutside(t, top)
	}
}

// TestFolderPathStaysInOut: where a results folder's path is built (the
// end of every run, sweep, recording and merge), a name that climbs out
// of --out is refused again, for a plan that was never validated: nothing
// is written outside --out.
func TestFolderPathStaysInOut(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	output := func() folder.Output {
		return folder.Output{Summary: &results.Summary{Scenario: "../../herd-escape", Started: t0, DurationS: 1}}
	}
	for _, sweep := range []bool{false, true} {
		out, top := nested(t)
		e := &ending{points: []engine.Point{{Plan: &scenarios.Plan{Name: "../../herd-escape"}, Output: output()}}, sweep: sweep}
		if dir, err := e.save(&scenarioFlags{out: out, noPNG: true}); !errors.Is(err, folder.ErrFolderName) {
			t.Errorf("sweep %v: saved into %q (%v); want ErrFolderName", sweep, dir, err)
		}
		wroteOutside(t, top)
	}

	// A recording (herdbench target and proxy): POST /control/results
	// and the end of a window write through the recorder.
	out, top := nested(t)
	f := &recordFlags{out: out, noPNG: true}
	r := newRecorder("target", "", &scenarios.Plan{Name: "../../herd-escape"}, f, io.Discard, func(string, ...any) {})
	if dir, err := r.save(output()); !errors.Is(err, folder.ErrFolderName) {
		t.Errorf("a recording: saved into %q (%v); want ErrFolderName", dir, err)
	}
	wroteOutside(t, top)

	// An overlay's folder is named from its labels, which may be
	// folder names: it stays one folder beside the first run's.
	if name := overlayName([]string{"../..", "/etc"}); !strings.HasPrefix(name, "overlay-") || strings.ContainsRune(name, '/') || folder.NameProblem(name) != "" {
		t.Errorf("overlayName = %q", name)
	}
	if name := overlayName([]string{strings.Repeat("x", 300), "y"}); len(name) > folder.MaxNameBytes {
		t.Errorf("overlayName is %d bytes, more than %d", len(name), folder.MaxNameBytes)
	}
	if err := report.WriteFiles(out, []report.File{{Name: "../../escape.html", Data: []byte("x")}}); !errors.Is(err, folder.ErrFolderName) {
		t.Errorf("report.WriteFiles of ../../escape.html: %v", err)
	}
	wroteOutside(t, top)
}
