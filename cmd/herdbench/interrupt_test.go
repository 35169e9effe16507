package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMStopsSimulatedRun runs herdbench as a child process on a
// two-hour simulated run (tens of seconds of work per cohort) and sends it
// SIGTERM once its cohort runs are under way: it exits 130 with a complete
// results folder (summary.json marked partial with the virtual time it
// reached, far before two hours; both timelines; a .hlog per cohort;
// report.html), and nothing hidden left behind.
func TestSIGTERMStopsSimulatedRun(t *testing.T) {
	t.Parallel() // its own folders, ports and child processes
	if testing.Short() {
		t.Skip("starts a child process")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	args, _ := json.Marshal([]string{"scenario", "outage", "--sim", "--duration", "2h", "--strategies", "no-jitter,full-jitter", "--seed", "3", "--out", out, "--no-png"})
	child := exec.Command(self, "-test.run=^$")
	child.Env = append(os.Environ(), "HERDBENCH_TEST_ARGS="+string(args))
	stderr, err := child.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	lines := bufio.NewScanner(stderr)
	var said strings.Builder
	for lines.Scan() && !strings.Contains(lines.Text(), "virtual time") {
		said.WriteString(lines.Text() + "\n")
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	rest := make(chan string)
	go func() { b, _ := io.ReadAll(stderr); rest <- string(b) }()
	time.Sleep(300 * time.Millisecond) // into the cohort runs, far from their end
	sent := time.Now()
	if err := child.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	werr := child.Wait()
	t.Logf("the child exited %s after SIGTERM", time.Since(sent).Round(time.Millisecond))
	said.WriteString(<-rest)
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.ExitCode() != exitSignal {
		t.Fatalf("exit: %v; want code %d\nstderr:\n%s", werr, exitSignal, said.String())
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || strings.HasPrefix(entries[0].Name(), ".") {
		t.Fatalf("results: %v, want one results folder and nothing hidden\nstderr:\n%s", entries, said.String())
	}
	dir := filepath.Join(out, entries[0].Name())
	for _, f := range []string{"summary.json", "timeline.csv", "timeline_1s.csv", "scenario.yaml", "report.html", "no-jitter.hlog", "full-jitter.hlog"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(said.String(), "the simulation stopped; writing 2 cohorts' timelines, logs and report, to ") {
		t.Errorf("stderr does not say what is being written after the interrupt:\n%s", said.String())
	}
	s := readSummary(t, out)
	if !s.Partial || s.EndedS == nil || *s.EndedS >= 7200 || len(s.Runs) != 2 {
		t.Errorf("summary: partial %v, ended_s %v, %d runs; want partial, cut before 7200 s, both cohorts", s.Partial, s.EndedS, len(s.Runs))
	}
}
