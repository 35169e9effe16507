package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
)

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"scenario", "--help"}, {"validate", "-h"}, {"list", "--help"}, {"help", "scenario"}, {"version", "--help"}} {
		code, out, _ := runCLI(t, args...)
		if code != exitOK || !strings.Contains(out, "Usage") {
			t.Errorf("%v: code %d, stdout %q", args, code, out)
		}
	}
	code, out, _ := runCLI(t, "scenario", "--help")
	if code != exitOK {
		t.Errorf("scenario --help: exit %d, want 0", code)
	}
	for _, want := range []string{"--strategies", "--seed", "--duration", "--out", "--quiet", "Exit codes", "herdbench scenario outage"} {
		if !strings.Contains(out, want) {
			t.Errorf("scenario --help does not mention %s", want)
		}
	}
	if code, out, _ = runCLI(t, "--version"); code != exitOK || !strings.HasPrefix(out, "herdbench ") {
		t.Errorf("--version: %d %q", code, out)
	}
}

func TestUsageErrorsExit2(t *testing.T) {
	cases := [][]string{
		{},
		{"frobnicate"},
		{"scenario"},
		{"scenario", "a", "b"},
		{"scenario", "outage", "--bogus"},
		{"scenario", "outage", "--duration", "-3s"},
		{"scenario", "no-such-scenario"},
		{"scenario", "outage", "--strategies", "nope"},
		{"validate"},
		{"list", "extra"},
		{"version", "extra"},
		{"scenario", "outage", "--strategies", "no-jitter, no-jitter"},
		{"scenario", "outage", "--sim", "--clients", "10,10"},
		{"scenario", "outage", "--target", "127.0.0.1:9"},
		{"scenario", "outage", "--duration", "6s"},
		{"scenario", "outage", "--cohorts", "sideways"},
		{"scenario", "outage", "--cohorts", "apart", "--chaos-control", "http://127.0.0.1:9"},
		{"scenario", "outage", "--sim", "--clients", "-5"},
		{"scenario", "outage", "--sim", "--runs", "100000"},
		{"scenario", "outage", "--sim", "--duration", "25h"},
		{"scenario", "outage", "--slow-motion", "1001"},
		{"scenario", "outage", "--slow-motion", "-1"},
		{"scenario", "outage", "--slow-motion", "0"},
		{"scenario", "outage", "--sim", "--slow-motion", "4"},
		{"scenario", "grpc-outage", "--slow-motion", "4"},
		{"scenario", "outage", "--slow-motion", "4", "--chaos-control", "http://127.0.0.1:9"},
		{"target", "--exit-after", "-5s"},
		{"proxy", "--upstream", "http://127.0.0.1:9/", "--exit-after", "0s"},
		{"target", "--protocol", "http3", "--exit-after", "1s"},
		{"proxy", "--upstream", "http://127.0.0.1:9/", "--protocol", "spdy", "--exit-after", "1s"},
		{"proxy", "--upstream", "http://127.0.0.1:9/", "--upstream-protocol", "h2c", "--retry", "grpc", "--exit-after", "1s"},
		{"proxy", "--upstream", "http://127.0.0.1:9/", "--upstream-protocol", "h2", "--exit-after", "1s"},
		{"proxy", "--upstream", "https://127.0.0.1:9/", "--upstream-protocol", "h2c", "--exit-after", "1s"},
	}
	for _, args := range cases {
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || stderr == "" {
			t.Errorf("%v: code %d, stderr %q; want 2 and a message", args, code, stderr)
		}
	}
}

// Slow motion is refused, before anything runs, where it cannot slow the
// run's clock, saying why.
func TestSlowMotionRefusedSaysWhy(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"scenario", "grpc-outage", "--slow-motion", "8"}, "--slow-motion: slow motion (8×) slows only herdbench's own clients and target, and the scenario speaks gRPC"},
		{[]string{"scenario", "outage", "--sim", "--slow-motion", "8"}, "--sim is never late"},
		{[]string{"scenario", "outage", "--slow-motion", "5000"}, "--slow-motion 5000: live the scenario from 1 (real speed) to 1000 times slower"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestList(t *testing.T) {
	code, out, _ := runCLI(t, "list")
	if code != exitOK || !strings.Contains(out, "outage") {
		t.Errorf("list: %d %q", code, out)
	}
}

func TestValidate(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\nstrategies:\n  - name: a\n    backoff: jittery\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "validate", bad)
	if code != exitUsage || !strings.Contains(stderr, "bad.yaml:4:") || !strings.Contains(stderr, `unknown backoff "jittery"`) {
		t.Errorf("validate bad: %d %q", code, stderr)
	}
	code, out, _ := runCLI(t, "validate", "outage")
	if code != exitOK || !strings.Contains(out, "ok") {
		t.Errorf("validate outage: %d %q", code, out)
	}
	// A file on disk wins over the built-in of the same name.
	if err := os.WriteFile(filepath.Join(dir, "outage.yaml"), []byte("name: mine\nstrategies: [{name: x, backoff: full}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	code, out, _ = runCLI(t, "validate", "outage.yaml")
	if code != exitOK || !strings.Contains(out, "1 strategy,") {
		t.Errorf("a local outage.yaml should win over the built-in: %d %q", code, out)
	}
}

// TestValidateServerScenario: a scenario without strategies is valid for
// herdbench target and proxy (a game day's plan and the thresholds on
// their recording), and validate says so, and for which; with another
// problem it is invalid.
func TestValidateServerScenario(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		yaml string
		code int
		want string
	}{
		{"name: g\nchaos:\n  - {kind: outage, mode: \"503\", at: 2s, for: 3s}\nthresholds:\n  - herd_factor < 2\n", exitOK, "ok for herdbench target and proxy: 1 fault, 1 threshold,"},
		{"name: g\nchaos:\n  - {kind: brownout, capacity: 0.5, at: 2s, for: 3s}\n", exitOK, "ok for herdbench target (not proxy: "},
		{"name: g\nchaos:\n  - {kind: outage, mode: down, at: 2s, for: 3s}\n", exitUsage, `unknown outage mode "down"`},
	} {
		f := filepath.Join(dir, "g.yaml")
		if err := os.WriteFile(f, []byte(c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := runCLI(t, "validate", f)
		if code != c.code || !strings.Contains(out+stderr, c.want) {
			t.Errorf("validate %q: %d %q %q; want %d and %q", c.yaml, code, out, stderr, c.code, c.want)
		}
	}
}

// A short real run end to end through the CLI: results folder, its
// answer (the verdict, the table with the simulator's figures), exit 0.
func TestScenarioRunWritesResults(t *testing.T) {
	t.Parallel() // its own folders, ports and child processes
	if testing.Short() {
		t.Skip("runs a 1.5 s scenario")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tiny.yaml")
	if err := os.WriteFile(file, []byte(`name: tiny
duration: 1500ms
seed: 3
chaos:
  - {kind: outage, at: 500ms, for: 300ms}
workload: {kind: closed, clients: 5, think: 20ms}
strategies:
  - {name: full-jitter, backoff: full, base: 10ms, cap: 100ms}
  - {name: no-jitter, backoff: exponential, base: 10ms, cap: 100ms}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, "scenario", file, "--out", dir, "--quiet", "--strategies", "no-jitter", "--allow-untrustworthy")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	verdict := regexp.MustCompile(`(?m)^(Exact: |Holds |NOT TRUSTWORTHY: )`)
	if !strings.Contains(out, "no-jitter") || strings.Contains(out, "full-jitter") || !strings.Contains(out, "results:") ||
		!strings.Contains(out, "strategy (sim)") || !verdict.MatchString(out) || strings.Contains(out, "self-check:") {
		t.Errorf("output (want the verdict, the cohort with the simulator's figures beside it, and the self-check left to --explain):\n%s", out)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "tiny-*", "summary.json"))
	if len(matches) != 1 {
		t.Fatalf("summary.json files: %v", matches)
	}
	for _, f := range []string{"report.html", "attempts_100ms.png", "timeline.csv", "no-jitter.hlog"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(matches[0]), f)); err != nil {
			t.Errorf("the results folder lacks %s", f)
		}
	}
	data, _ := os.ReadFile(matches[0])
	for _, want := range []string{`"mode": "real"`, `"seed": 3`, `"strategy": "no-jitter"`, `"herd_factor"`, `"recovery_s"`, `"p999"`,
		`"harness": {`, `"trustworthy": `, `"limit_ms": 2,`, `"send_lag_ms": {`, `"target_drift_ms": {`, `"sim": {`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("summary.json lacks %s", want)
		}
	}
}

// A run whose self-check failed says so on stderr, with each reason and
// what to do; one that kept up says nothing.
func TestWarnHarness(t *testing.T) {
	var b strings.Builder
	s := &results.Summary{Harness: &results.Harness{Trustworthy: true}}
	warnHarness(&b, s, "these figures", false)
	warnHarness(&b, &results.Summary{Mode: "sim"}, "these figures", false)
	if b.Len() != 0 {
		t.Fatalf("a trustworthy or simulated run warned: %q", b.String())
	}
	s.Harness = &results.Harness{LimitMS: 10, Warnings: []string{"no-jitter: attempts were sent late, p99 23.4ms"}}
	warnHarness(&b, s, "these figures", false)
	for _, want := range []string{`warning: the machine could not keep up, so these figures are not trustworthy ("trustworthy": false in summary.json)`,
		"  - no-jitter: attempts were sent late, p99 23.4ms\n", "--sim"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("warning lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "crash") {
		t.Errorf("a run late in its sends, not in its crash, was told about crashes:\n%s", b.String())
	}
	// On a kernel that shares the cores by session first, nice does not
	// lift a run above other sessions' work: the warning says how to.
	defer func(f func() (bool, int)) { autogroup = f }(autogroup)
	for _, c := range []struct {
		on   bool
		nice int
		want bool
	}{{false, 0, false}, {true, 0, true}, {true, 5, true}, {true, -10, false}} {
		autogroup = func() (bool, int) { return c.on, c.nice }
		b.Reset()
		warnHarness(&b, s, "these figures", false)
		if got := strings.Contains(b.String(), "echo -10 > /proc/self/autogroup"); got != c.want {
			t.Errorf("autogroups %v, this one's nice %d: told how to run in a session of its own %v, want %v:\n%s", c.on, c.nice, got, c.want, b.String())
		}
	}
	// A crash learned over longer than the limit: what would tighten it.
	b.Reset()
	s.Runs = []results.Run{{Strategy: "no-jitter"}, {Strategy: "full-jitter"}}
	s.Harness = &results.Harness{LimitMS: 10, SpreadMS: &results.Lag{P50: 12, P99: 18.5, Max: 19}, Warnings: []string{"no-jitter: the clients learned of the crash at 4.50s over p99 18.5ms"}, CPU: results.CPU{Cores: 2}}
	warnHarness(&b, s, "these figures", false)
	// 18.5 ms against 10: twice as tight, so twice the cores or two shards.
	for _, want := range []string{"bench/stampede -crash", "more cores", "--shard", "--cohorts apart",
		"within 10ms, 2× tighter than here: about 4 cores (2× this machine's)", "2 shards on machines like this one (--shard 0/2 ... 1/2), or a 2× smaller crowd"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("a crash's spread warning lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "--slow-motion") {
		t.Errorf("a run slow motion cannot slow was told to use it:\n%s", b.String())
	}
	// One slow motion can slow is told the factor that would hold its
	// waves: 18.5 ms against 10, twice the run's (already 4×) is 8×.
	b.Reset()
	s.SlowMotion, s.DurationS = 4, 30
	warnHarness(&b, s, "these figures", true)
	if want := "--slow-motion 8 lives each second of the scenario 8 times longer, so the harness's spread is 8× smaller in the scenario's time (one run of it then lasts about 4m0s)"; !strings.Contains(b.String(), want) {
		t.Errorf("a crash's spread warning lacks %q:\n%s", want, b.String())
	}
	// Where the model's second opinion needs more than the waves' width
	// (a run of 16×, its figures holding only 128 times less late), the
	// advice says the model's factor, not the width's.
	b.Reset()
	s.Runs[0].LatenessNeeds = 16
	warnHarness(&b, s, "these figures", true)
	for _, want := range []string{"needs a harness 16× less late than here (the model's second opinion; its clients learning of a crash within 10ms, 2× tighter, holds only its waves): about 32 cores (16× this machine's)",
		"--shard 0/16 ... 15/16", "--slow-motion 64 lives each second"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("a run whose model needs 16× lacks %q:\n%s", want, b.String())
		}
	}
	s.Runs[0].LatenessNeeds = 0
	s.SlowMotion, s.DurationS = 0, 0
	// Cohorts that already ran apart (or a run of one) are not told to.
	for _, s := range []*results.Summary{{CohortsApart: true, Runs: s.Runs}, {Runs: s.Runs[:1]}} {
		b.Reset()
		s.Harness = &results.Harness{LimitMS: 10, SpreadMS: &results.Lag{P50: 12, P99: 18.5, Max: 19}, Warnings: []string{"no-jitter: the clients learned of the crash at 4.50s over p99 18.5ms"}}
		warnHarness(&b, s, "these figures", false)
		if !strings.Contains(b.String(), "--shard") || strings.Contains(b.String(), "--cohorts apart") {
			t.Errorf("cohorts apart %v, %d runs: warned %q; want the crash advice without --cohorts apart", s.CohortsApart, len(s.Runs), b.String())
		}
	}
}
