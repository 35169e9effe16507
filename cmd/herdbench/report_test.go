package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// savedRun writes a small results folder as a run would.
func savedRun(t *testing.T, dir string) string {
	t.Helper()
	const dur = 3 * time.Second
	s := &results.Summary{Scenario: "tiny", Mode: "real", Seed: 1, Version: "test",
		Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), DurationS: dur.Seconds(), Workload: "closed",
		Faults: []results.FaultWindow{{Name: "crash", Kind: "outage", AtS: 1, ForS: 0.5}}}
	out := folder.Output{Summary: s, Scenario: []byte("name: tiny\n")}
	for _, name := range []string{"no-jitter", "full-jitter"} {
		rec := results.NewRecorder(dur, 1)
		sh := rec.Shard(0)
		for i := range 300 {
			at := time.Duration(i) * 10 * time.Millisecond
			sh.Started(at)
			sh.Attempt(results.Attempt{Sent: at, Latency: 5 * time.Millisecond, Number: 1 + i%3, Outcome: results.OK})
			sh.Request(results.Request{Start: at, End: at + 5*time.Millisecond, Succeeded: true})
		}
		c := results.Cohort{Strategy: name, Rec: rec}
		s.Runs = append(s.Runs, results.Summarize(c, results.Window{FirstStart: time.Second, LastEnd: 1500 * time.Millisecond}))
		out.Cohorts = append(out.Cohorts, c)
	}
	if err := folder.Write(dir, out); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportRerendersInPlace(t *testing.T) {
	dir := savedRun(t, filepath.Join(t.TempDir(), "tiny-20260301T120000Z"))
	// A low --dpi keeps the test fast: rasterizing is slow under -race.
	code, out, errs := runCLI(t, "report", dir, "--dpi", "20")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := "report: " + filepath.Join(dir, "report.html") + "\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	for _, f := range []string{"report.html", "attempts_100ms.png", "latency_request.png", "no-jitter.hlog", "full-jitter.hlog"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the folder lacks %s: %v", f, err)
		}
	}
}

func TestReportOverlay(t *testing.T) {
	root := t.TempDir()
	a := savedRun(t, filepath.Join(root, "tiny-20260301T120000Z"))
	b := savedRun(t, filepath.Join(root, "tiny-20260301T130000Z"))
	out := filepath.Join(root, "cmp")
	code, _, errs := runCLI(t, "report", a, b, "--label", "before,after", "--out", out, "--no-png")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no-jitter (before)", "no-jitter (after)", "full-jitter (after)", "tiny: before vs after"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the overlay lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "attempts_1s.png")); err == nil {
		t.Error("--no-png wrote PNGs")
	}
	// Without --out and --label: a folder beside the first, named by what
	// tells the runs apart.
	code, stdout, errs := runCLI(t, "report", a, b, "--no-png")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := filepath.Join(root, "overlay-20260301T120000Z-vs-20260301T130000Z", "report.html"); !strings.Contains(stdout, want) {
		t.Errorf("stdout %q, want the report at %s", stdout, want)
	}
}

// TestReportOverlayOfOneRunsFolders: the swarm's and the proxy's folders of
// one run share their name; the overlay labels them by where they are
// ("swarm", "proxy"), in the page and in its folder's name, not "run 1".
func TestReportOverlayOfOneRunsFolders(t *testing.T) {
	root := t.TempDir()
	a := savedRun(t, filepath.Join(root, "swarm", "tiny-20260301T120000Z"))
	b := savedRun(t, filepath.Join(root, "proxy", "tiny-20260301T120000Z"))
	code, stdout, errs := runCLI(t, "report", a, b, "--no-png")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := filepath.Join(root, "swarm", "overlay-swarm-vs-proxy", "report.html")
	if !strings.Contains(stdout, want) {
		t.Fatalf("stdout %q, want the report at %s", stdout, want)
	}
	html, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"no-jitter (swarm)", "full-jitter (proxy)", "tiny: swarm vs proxy"} {
		if !bytes.Contains(html, []byte(label)) {
			t.Errorf("the overlay lacks %q", label)
		}
	}
	if bytes.Contains(html, []byte("run 1")) {
		t.Error(`the overlay still labels a run "run 1"`)
	}
}

func TestReportUsage(t *testing.T) {
	dir := savedRun(t, filepath.Join(t.TempDir(), "run"))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report"}, exitUsage, "name at least one results folder"},
		{[]string{"report", dir, dir, "--label", "only-one"}, exitUsage, "--label has 1 names for 2 folders"},
		{[]string{"report", "--bogus", dir}, exitUsage, "unknown flag: --bogus"},
		{[]string{"report", "--dpi", "0", dir}, exitUsage, "--dpi 0: give a resolution between 10 and 1200"},
		{[]string{"report", filepath.Join(dir, "missing")}, exitUsage, "missing: no such folder; name a results folder"},
		{[]string{"report", t.TempDir()}, exitUsage, "no summary.json here"},
		{[]string{"report", filepath.Join(dir, "summary.json")}, exitUsage, "is a file, not a folder"},
		{[]string{"report", dir, filepath.Join(dir, "missing")}, exitUsage, "missing: no such folder"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	code, out, _ := runCLI(t, "report", "--help")
	if code != exitOK || !strings.Contains(out, "Usage: herdbench report DIR...") || !strings.Contains(out, "--label") {
		t.Errorf("--help: exit %d, stdout %q", code, out)
	}
}

func TestDefaultLabels(t *testing.T) {
	for _, tc := range []struct{ dirs, want []string }{
		{[]string{"runs/outage-20260301T120000Z"}, []string{"outage-20260301T120000Z"}},
		{[]string{"runs/outage-20260301T120000Z", "runs/outage-20260301T130000Z"}, []string{"20260301T120000Z", "20260301T130000Z"}},
		{[]string{"a/outage-x", "b/storm-x"}, []string{"outage-x", "storm-x"}},
		{[]string{"a/run", "b/run/"}, []string{"a", "b"}},
		// One run's folders from the swarm and from the proxy that recorded
		// it: the same name, told apart by where they are.
		{[]string{"swarm/gd-20261202T062519Z", "proxy/gd-20261202T062519Z"}, []string{"swarm", "proxy"}},
		{[]string{"/tmp/x/before/runs/outage-1", "/tmp/x/after/runs/outage-1"}, []string{"before", "after"}},
		{[]string{"runs/outage-1", "runs/outage-1/"}, []string{"outage-1 #1", "outage-1 #2"}},
		{[]string{"x/outage-1", "y/outage"}, []string{"outage-1", "outage"}},
	} {
		if got := defaultLabels(tc.dirs); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("defaultLabels(%q) = %q, want %q", tc.dirs, got, tc.want)
		}
	}
}

// The first Ctrl-C stops herdbench report, as it stops a run: nothing is
// written (the folder's report stays as it was) and the exit code is 130.
func TestReportStopsOnFirstInterrupt(t *testing.T) {
	dir := savedRun(t, filepath.Join(t.TempDir(), "tiny-20260301T120000Z"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the first Ctrl-C, as interruptible delivers it
	var out, errb bytes.Buffer
	code := run(ctx, []string{"report", dir, "--no-png"}, &out, &errb)
	if code != exitSignal || !strings.Contains(errb.String(), "interrupted; nothing was written") {
		t.Errorf("exit %d, stderr %q; want 130 and a note", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); !os.IsNotExist(err) {
		t.Errorf("report.html was written after the interrupt: %v", err)
	}
}

// A hostile folder is refused with a message and exit 1, not a hang or a
// crash.
func TestReportRefusesHostileFolder(t *testing.T) {
	dir := savedRun(t, filepath.Join(t.TempDir(), "tiny-20260301T120000Z"))
	if err := os.Remove(filepath.Join(dir, "scenario.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "scenario.yaml"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	code, _, errs := runCLI(t, "report", dir, "--no-png")
	if code != exitFailed || !strings.Contains(errs, "scenario.yaml is a named pipe (FIFO), not a regular file; a results folder holds only the files herdbench wrote") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}
