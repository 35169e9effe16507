package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	junit "github.com/joshdk/go-junit"
)

// validateJUnit checks data against the JUnit report schema CI systems
// read (testdata/junit.xsd) with xmllint (Debian's libxml2-utils). CI
// installs it; elsewhere the test skips the schema check without it.
func validateJUnit(t *testing.T, data []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint not found: CI installs libxml2-utils to check --junit's report against the JUnit schema")
		}
		t.Log("xmllint not found (apt-get install libxml2-utils): the schema check is skipped")
		return
	}
	file := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", "testdata/junit.xsd", file).CombinedOutput()
	if err != nil {
		t.Fatalf("the JUnit report does not validate against testdata/junit.xsd: %v\n%s\n%s", err, out, data)
	}
}

func ptr(v float64) *float64 { return &v }

func TestJUnitReport(t *testing.T) {
	ended := 2.5
	s := &results.Summary{Scenario: "outage", Mode: "real", Seed: 7, Version: "v1.2.3", DurationS: 15,
		Started: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC),
		Thresholds: []results.ThresholdResult{
			{Cohort: "no-jitter", Expression: "herd_factor < 5", Metric: "herd_factor", Value: ptr(46.5), Pass: false},
			{Cohort: "no-jitter", Expression: "recovery_s <= 5s", Metric: "recovery_s", Value: nil, Pass: false, Repetitions: 5, FailedRepetitions: 2},
			{Cohort: "full-jitter", Expression: "herd_factor < 5", Metric: "herd_factor", Value: ptr(2.8), Pass: true},
			{Cohort: "full-jitter", Expression: `success_ratio >= 99% & <x>`, Metric: "success_ratio", Value: ptr(0.999), Pass: true},
		}}
	interrupted := &results.Summary{Scenario: "outage", Mode: "sim", Seed: 7, DurationS: 15, EndedS: &ended, Partial: true,
		Started: s.Started, Point: []results.Setting{{Field: "workload.clients", Value: "100"}}}
	data, err := encodeJUnit([]*results.Summary{s, interrupted}, func(x *results.Summary) string { return results.PointLabel(x.Point) }, false)
	if err != nil {
		t.Fatal(err)
	}
	validateJUnit(t, data)
	var got junitSuites
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Tests != 6 || got.Failures != 2 || got.Errors != 1 || len(got.Suites) != 2 || got.Time != "17.500" {
		t.Fatalf("totals: tests %d failures %d errors %d suites %d time %s; want 6, 2, 1, 2, 17.500", got.Tests, got.Failures, got.Errors, len(got.Suites), got.Time)
	}
	first := got.Suites[0]
	if last := first.Cases[len(first.Cases)-1]; last.Name != "run completed" || last.Error != nil || last.Failure != nil || last.Time != "15.000" {
		t.Errorf("a complete run's last case: %+v", last)
	}
	if first.Name != "herdbench scenario outage" || first.Tests != 5 || first.Failures != 2 || first.Timestamp != "2026-12-01T10:00:00" {
		t.Errorf("first suite: %+v", first)
	}
	c := first.Cases[0]
	if c.ClassName != "herdbench.outage.no-jitter" || c.Name != "herd_factor < 5" || c.Failure == nil ||
		c.Failure.Message != "herd_factor was 46.5; the threshold is herd_factor < 5 for cohort no-jitter" {
		t.Errorf("a failed threshold's case: %+v %+v", c, c.Failure)
	}
	if f := first.Cases[1].Failure; f == nil || !strings.Contains(f.Message, "was null") || !strings.Contains(f.Message, "failed in 2 of 5 repetitions") {
		t.Errorf("a null figure's failure: %+v", f)
	}
	if first.Cases[2].Failure != nil || first.Cases[3].Name != `success_ratio >= 99% & <x>` {
		t.Errorf("passing cases: %+v %+v", first.Cases[2], first.Cases[3])
	}
	second := got.Suites[1]
	if second.Name != "herdbench scenario outage [workload.clients=100]" || second.Errors != 1 || second.Time != "2.500" ||
		len(second.Cases) != 1 || second.Cases[0].Error == nil || second.Cases[0].Error.Type != "interrupted" {
		t.Errorf("an interrupted point's suite: %+v", second)
	}
}

// A real run's verdict is a test case of its own, "verdict", as a real
// JUnit reader (github.com/joshdk/go-junit, which CI dashboards' readers
// resemble) reads it: failed when not trustworthy, its message the
// verdict's sentence and its body the figures that decided it; skipped
// with --allow-untrustworthy; passed with the same in its output when
// trustworthy. The suite's properties say the outcome.
func TestJUnitVerdictAsAJUnitReaderReadsIt(t *testing.T) {
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	untrusted := &results.Summary{Scenario: "outage", Mode: "real", Seed: 1, DurationS: 15, Started: started,
		Verdict: &results.Verdict{Outcome: results.NotTrustworthy, SlowMotion: 4,
			Sentence: "NOT TRUSTWORTHY: no-jitter's failed after fault is 257 against the simulator's 443, outside its band; run it with --slow-motion 4 (about 4m0s).",
			Figures: []results.VerdictFigure{
				{Cohort: "no-jitter", Name: "failed_after_fault", Real: ptr(257), Sim: ptr(443), Late: ptr(280)},
				{Cohort: "no-jitter", Name: "herd_factor", Real: ptr(54.2), Sim: ptr(122.9), ResolutionMS: 100},
			}}}
	holds := &results.Summary{Scenario: "outage", Mode: "real", Seed: 1, DurationS: 15, Started: started,
		Verdict: &results.Verdict{Outcome: results.Holds, ResolutionMS: 50, Sentence: "Holds at 50 ms: every headline figure is within its band of the simulator's.",
			Figures: []results.VerdictFigure{{Cohort: "no-jitter", Name: "herd_factor", Real: ptr(115.7), Sim: ptr(127.8), Within: true, ResolutionMS: 50}}}}
	for _, c := range []struct {
		name   string
		s      *results.Summary
		allow  bool
		status junit.Status
	}{
		{"not trustworthy", untrusted, false, junit.StatusFailed},
		{"not trustworthy, allowed", untrusted, true, junit.StatusSkipped},
		{"holds", holds, false, junit.StatusPassed},
	} {
		data, err := encodeJUnit([]*results.Summary{c.s}, func(*results.Summary) string { return "" }, c.allow)
		if err != nil {
			t.Fatal(err)
		}
		validateJUnit(t, data)
		suites, err := junit.Ingest(data)
		if err != nil {
			t.Fatalf("%s: the JUnit reader refuses the report: %v\n%s", c.name, err, data)
		}
		if len(suites) != 1 || suites[0].Properties["verdict"] != string(c.s.Verdict.Outcome) {
			t.Fatalf("%s: suites %+v, want one whose properties say the verdict", c.name, suites)
		}
		var v *junit.Test
		for i := range suites[0].Tests {
			if suites[0].Tests[i].Name == "verdict" {
				v = &suites[0].Tests[i]
			}
		}
		if v == nil || v.Status != c.status || v.Classname != "herdbench.outage" {
			t.Fatalf("%s: the verdict's case %+v, want status %s", c.name, v, c.status)
		}
		suites[0].Aggregate()
		if want := map[junit.Status]int{junit.StatusFailed: 1}[c.status]; suites[0].Totals.Failed != want {
			t.Errorf("%s: %d failed, want %d", c.name, suites[0].Totals.Failed, want)
		}
		switch c.status {
		case junit.StatusFailed:
			e, _ := v.Error.(junit.Error)
			if e.Message != c.s.Verdict.Sentence || e.Type != "not_trustworthy" ||
				!strings.Contains(e.Body, "no-jitter failed_after_fault: 257, the simulator's 443, with this run's lateness 280: DISAGREES") ||
				!strings.Contains(e.Body, "no-jitter herd_factor at 100 ms: 54.2, the simulator's 122.9: DISAGREES") {
				t.Errorf("%s: the failure %+v, want the sentence and every figure that decided it", c.name, v.Error)
			}
		case junit.StatusSkipped:
			if !strings.Contains(v.Message, "--allow-untrustworthy") {
				t.Errorf("%s: skipped with %q, want it to say why", c.name, v.Message)
			}
		case junit.StatusPassed:
			if !strings.Contains(v.SystemOut, "Holds at 50 ms") || !strings.Contains(v.SystemOut, "herd_factor at 50 ms: 115.7, the simulator's 127.8: agrees") {
				t.Errorf("%s: the case's output %q, want the sentence and the figures", c.name, v.SystemOut)
			}
		}
	}
}

// A gated run in virtual time with --junit and --json: the report names
// every threshold with its value, stdout is summary.json's bytes alone,
// and the exit code is still 3.
func TestJUnitAndJSONFromARun(t *testing.T) {
	scenario := writeScenario(t, `name: gated
duration: 2s
seed: 1
workload:
  clients: 5
  think: 20ms
strategies:
  - name: plain
    backoff: full
    thresholds:
      - requests < 1
thresholds:
  - attempts >= 1
`)
	out := t.TempDir()
	junit := filepath.Join(t.TempDir(), "report.xml")
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"scenario", scenario, "--sim", "--out", out, "-q", "--no-png", "--junit", junit, "--json"}, &stdout, &stderr)
	if code != exitThresholds {
		t.Fatalf("exit code %d, want %d\nstderr:\n%s", code, exitThresholds, stderr.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "*", "summary.json"))
	if len(dirs) != 1 {
		t.Fatalf("results folders: %v", dirs)
	}
	want, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(stdout.String()), want) {
		t.Errorf("--json's stdout is not summary.json's bytes:\n%s\nwant:\n%s", stdout.String(), want)
	}
	if !strings.Contains(stderr.String(), "thresholds: 1 of 2 FAILED") || !strings.Contains(stderr.String(), "results: ") {
		t.Errorf("with --json the tables go to stderr:\n%s", stderr.String())
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
	if got.Tests != 3 || got.Failures != 1 || got.Suites[0].Cases[1].Failure == nil ||
		!strings.HasPrefix(got.Suites[0].Cases[1].Failure.Message, "requests was ") {
		t.Errorf("JUnit report:\n%s", data)
	}
}

func TestJSONOfASweepIsAnArray(t *testing.T) {
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"scenario", "aws-contention", "--sim", "--clients", "10,20", "--out", t.TempDir(), "-q", "--json", "--strategies", "full"}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit code %d\n%s", code, stderr.String())
	}
	var points []results.Summary
	if err := json.Unmarshal([]byte(stdout.String()), &points); err != nil {
		t.Fatalf("--json of a sweep: %v\n%s", err, stdout.String())
	}
	if len(points) != 2 || results.PointLabel(points[0].Point) != "workload.clients=10" || results.PointLabel(points[1].Point) != "workload.clients=20" {
		t.Errorf("points: %+v", points)
	}
}

func TestJUnitPathCheckedBeforeTheRun(t *testing.T) {
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"scenario", "outage", "--sim", "--out", t.TempDir(), "-q", "--junit", "/nonexistent-folder/report.xml"}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "--junit") || !strings.Contains(stderr.String(), "Nothing ran") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr.String())
	}
}

func TestPrintWritesTheBuiltinsYAML(t *testing.T) {
	var stdout, stderr syncBuffer
	if code := run(context.Background(), []string{"scenario", "outage", "--print"}, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	op, err := scenarios.Open("outage", scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(stdout.String()), op.Source) {
		t.Errorf("--print wrote something else than the built-in's file")
	}
	// What it prints is a scenario that runs as it is.
	file := filepath.Join(t.TempDir(), "outage.yaml")
	if err := os.WriteFile(file, []byte(stdout.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var o2, e2 syncBuffer
	if code := run(context.Background(), []string{"validate", file}, &o2, &e2); code != exitOK {
		t.Errorf("the printed scenario does not validate: %s", e2.String())
	}
	var o3, e3 syncBuffer
	if code := run(context.Background(), []string{"scenario", "outage", "--print", "--sim"}, &o3, &e3); code != exitUsage || !strings.Contains(e3.String(), "--sim") {
		t.Errorf("--print with a flag that changes the run: exit %d, %s", code, e3.String())
	}
}

func TestBuiltinUsedForAMissingFileIsSaid(t *testing.T) {
	t.Chdir(t.TempDir())
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"scenario", "outage.yaml", "--sim", "--clients", "20", "--no-png", "--strategies", "full-jitter"}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "there is no file outage.yaml here, so the built-in scenario outage runs (to edit it: herdbench scenario outage --print > outage.yaml)") {
		t.Errorf("stderr does not say the built-in ran:\n%s", stderr.String())
	}
	// A file of that name is run, and nothing is said.
	builtin, err := scenarios.Open("outage", scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("outage.yaml", builtin.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	op, err := scenarios.Open("outage.yaml", scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if note := builtinNote("outage.yaml", op); note != "" {
		t.Errorf("a file on disk: note %q", note)
	}
}

// herdbench target and proxy say so too, in their log, when --scenario
// names a file that is not there and a built-in of that name serves.
func TestServerSaysTheBuiltinServes(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, role := range []string{"target", "proxy"} {
		var stdout, stderr syncBuffer
		args := []string{role, "--scenario", "outage.yaml", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--no-record", "--exit-after", "50ms"}
		if role == "proxy" {
			args = append(args, "--upstream", "http://127.0.0.1:9")
		}
		if code := run(context.Background(), args, &stdout, &stderr); code != exitOK {
			t.Fatalf("%s: exit %d: %s", role, code, stderr.String())
		}
		if want := " herdbench " + role + ": there is no file outage.yaml here, so the built-in scenario outage runs (to edit it: herdbench scenario outage --print > outage.yaml)\n"; !strings.Contains(stderr.String(), want) {
			t.Errorf("%s does not say the built-in serves:\n%s", role, stderr.String())
		}
	}
}
