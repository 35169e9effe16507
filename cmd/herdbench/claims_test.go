package main

import (
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A claim comparing cohorts, or points of a sweep, gates a run like any
// threshold: exit 3 when one fails, a JUnit case for each, its failure
// saying what it read.
func TestClaimsGateARun(t *testing.T) {
	scenario := writeScenario(t, `name: claims
duration: 2s
seed: 1
workload:
  clients: 5
  think: 20ms
chaos:
  - {name: crash, kind: outage, mode: refuse, at: 500ms, for: 500ms}
strategies:
  - {name: plain, backoff: exponential, base: 10ms, max_attempts: 4}
  - {name: jittered, backoff: full, base: 10ms, max_attempts: 4}
sweep:
  strategies[plain].base: [10ms, 20ms]
thresholds:
  - attempts[plain] >= 0.5 * attempts[jittered]
  - attempts[plain] >= 100 * attempts[jittered]
  - requests[plain, base=20ms] / requests[plain, base=10ms] >= 100
`)
	junit := filepath.Join(t.TempDir(), "report.xml")
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"scenario", scenario, "--sim", "--out", t.TempDir(), "-q", "--no-png", "--junit", junit}, &stdout, &stderr)
	if code != exitThresholds {
		t.Fatalf("exit code %d, want %d\nstderr:\n%s", code, exitThresholds, stderr.String())
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	validateJUnit(t, data)
	var got junitSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	// Two points: each checks the two comparisons of cohorts; the
	// comparison of points is checked at base=20ms alone.
	if got.Tests != 2*3+1 || got.Failures != 2+1 {
		t.Fatalf("tests %d, failures %d; want 7 and 3:\n%s", got.Tests, got.Failures, data)
	}
	last := got.Suites[1].Cases[2]
	if last.Name != "requests[plain, base=20ms] / requests[plain, base=10ms] >= 100" || last.Failure == nil ||
		!strings.Contains(last.Failure.Message, "it read requests[plain, base=20ms] ") || !strings.Contains(last.Failure.Message, "against 100") {
		t.Errorf("the comparison of points: %+v %+v", last, last.Failure)
	}
	if c := got.Suites[0].Cases[1]; c.ClassName != "herdbench.claims.plain" || c.Failure == nil || !strings.Contains(c.Failure.Message, "attempts[jittered]") {
		t.Errorf("a failed comparison of cohorts: %+v %+v", c, c.Failure)
	}
}
