package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	junit "github.com/joshdk/go-junit"
)

// lateScenario has a 20 ms backoff base and a crash: its waves tolerate
// 2 ms of lateness (results.Limit).
const lateScenario = `name: late
duration: 1s
seed: 9
target: {concurrency: 4, queue: 20, queue_timeout: 500ms, service_time: 2ms}
chaos: [{kind: outage, at: 300ms, for: 200ms}]
workload: {kind: closed, clients: 10, think: exponential(30ms)}
strategies:
  - {name: exp, backoff: exponential, base: 20ms, cap: 200ms, max_attempts: 4, timeout: 500ms}
`

// A real run whose harness is late on purpose (every client pauses 5 ms
// before it sends), judged without a model (--no-sim-reference: by the
// self-check's limits), is not trustworthy: it exits 5, --json's summary
// says so, and --junit's report has a failed "verdict" case a JUnit
// reader reads; with --allow-untrustworthy it exits 0 and the case is
// skipped.
func TestUntrustworthyRunExitsFiveAndFailsItsJUnitCase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engine")
	}
	defer func(e func(context.Context, []*scenarios.Plan, engine.Options) ([]engine.Point, error)) { execute = e }(execute)
	execute = func(ctx context.Context, plans []*scenarios.Plan, o engine.Options) ([]engine.Point, error) {
		o.BeforeSend = func() { time.Sleep(5 * time.Millisecond) }
		return engine.Execute(ctx, plans, o)
	}
	scenario := writeScenario(t, lateScenario)
	for _, c := range []struct {
		allow  bool
		code   int
		status junit.Status
	}{{false, exitUntrustworthy, junit.StatusFailed}, {true, exitOK, junit.StatusSkipped}} {
		report := filepath.Join(t.TempDir(), "junit.xml")
		args := []string{"scenario", scenario, "--no-sim-reference", "--slow-motion", "1", "--json", "--junit", report, "--out", t.TempDir(), "-q", "--no-png"}
		if c.allow {
			args = append(args, "--allow-untrustworthy")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != c.code {
			t.Fatalf("allow %v: exit code %d, want %d\n%s", c.allow, code, c.code, stderr)
		}
		if !c.allow && (!strings.Contains(stderr, "NOT TRUSTWORTHY: exp: attempts were sent late") || !strings.Contains(stderr, "herdbench: the verdict is not trustworthy (exit code 5; --allow-untrustworthy: 0)")) {
			t.Errorf("the exit's line does not say the verdict:\n%s", stderr)
		}
		var s results.Summary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Verdict == nil || s.Verdict.Outcome != results.NotTrustworthy || s.Harness.Trustworthy {
			t.Fatalf("allow %v: --json's verdict %+v (%v), want not trustworthy", c.allow, s.Verdict, err)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		validateJUnit(t, data)
		suites, err := junit.Ingest(data)
		if err != nil || len(suites) != 1 {
			t.Fatalf("the JUnit reader: %v, %d suites", err, len(suites))
		}
		var v *junit.Test
		for i := range suites[0].Tests {
			if suites[0].Tests[i].Name == "verdict" {
				v = &suites[0].Tests[i]
			}
		}
		if v == nil || v.Status != c.status || !strings.Contains(v.Message, "NOT TRUSTWORTHY") {
			t.Errorf("allow %v: the verdict's case %+v, want %s", c.allow, v, c.status)
		}
	}
}

// --slow-motion auto, the default, calibrates before a real run of
// herdbench's own target and says what it chose, with the expected wall
// time; where slow motion cannot slow the run (gRPC) it says nothing of
// it.
func TestSlowMotionAutoSaysItsChoice(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engine")
	}
	code, _, stderr := runCLI(t, "scenario", writeScenario(t, lateScenario), "--out", t.TempDir(), "--no-png", "--allow-untrustworthy")
	if code != exitOK {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	for _, want := range []string{"slow motion auto: measuring how late this machine's harness is at a crash", "slow motion auto: ", "--slow-motion 1 for real speed", "Expected wall time: about "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	sr, code, done := planScenario([]string{"grpc-outage", "--out", t.TempDir()}, os.Stdout, os.Stderr)
	if done || code != exitOK || sr.autoSlowable() {
		t.Errorf("grpc-outage: planned %v (code %d), auto slowable %v; want it planned, and not slowable", !done, code, sr != nil && sr.autoSlowable())
	}
}
