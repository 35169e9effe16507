package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

// TestMisspeltCommandIsNamed: a typo of a command says which command was
// meant, in one line, instead of the whole usage; a word near no command
// still gets the usage.
func TestMisspeltCommandIsNamed(t *testing.T) {
	for arg, want := range map[string]string{"scenarios": `"scenario"`, "valdiate": `"validate"`, "proxi": `"proxy"`, "reprot": `"report"`} {
		code, _, stderr := runCLI(t, arg, "outage")
		if code != exitUsage || !strings.Contains(stderr, "did you mean "+want) || strings.Contains(stderr, "Exit codes") {
			t.Errorf("%s: exit %d, stderr %q; want 2, a did-you-mean of %s and no usage", arg, code, stderr, want)
		}
	}
	if code, out, stderr := runCLI(t, "help", "scenarios"); code != exitUsage || out != "" || !strings.Contains(stderr, `herdbench help: no command "scenarios" (did you mean "scenario"?)`) {
		t.Errorf("help scenarios: exit %d, stdout %q, stderr %q; want 2 and a did-you-mean", code, out, stderr)
	}
	if code, out, _ := runCLI(t, "help", "help"); code != exitOK || !strings.Contains(out, "Usage:") {
		t.Errorf("help help: exit %d, stdout %q; want the usage", code, out)
	}
	if code, _, stderr := runCLI(t, "frobnicate"); code != exitUsage || strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "Usage:") {
		t.Errorf("frobnicate: exit %d, stderr %q; want 2 and the usage", code, stderr)
	}
}

// TestSimConflictNamesWhatToDrop: --sim with a real-time-only setting says
// what to drop by name (it once ended "drop --sim, or drop it").
func TestSimConflictNamesWhatToDrop(t *testing.T) {
	dir := t.TempDir()
	file := writeScenario(t, "name: ext\nduration: 5s\ntarget:\n  url: http://127.0.0.1:9/\nworkload: {kind: closed, clients: 2}\nstrategies:\n  - {name: a, backoff: full}\n")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"scenario", file, "--sim", "--out", dir}, "drop --sim, or drop the external target (--target, or target.url from the file)"},
		{[]string{"scenario", "outage", "--sim", "--out", dir, "--metrics-addr", "127.0.0.1:0", "--ui", "127.0.0.1:0"}, "--metrics-addr, --ui need a real-time run: drop --sim, or drop --metrics-addr and --ui"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestCountsAreWrittenAsSpoken: validate's summary line and the external
// target's note count in words a reader would use ("1 strategy", "both
// cohorts"), not "1 strategies" and "all 2 cohorts".
func TestCountsAreWrittenAsSpoken(t *testing.T) {
	one := writeScenario(t, "name: one\nduration: 5s\nchaos:\n  - {name: down, kind: outage, mode: \"503\", at: 1s, for: 1s}\nworkload: {kind: closed, clients: 2}\nstrategies:\n  - {name: a, backoff: full}\n")
	if code, out, stderr := runCLI(t, "validate", one); code != exitOK || !strings.Contains(out, "ok: 1 strategy, 1 fault, 5s") {
		t.Errorf("validate: exit %d, stdout %q, stderr %q; want \"ok: 1 strategy, 1 fault, 5s\"", code, out, stderr)
	}
	if code, out, _ := runCLI(t, "validate", "outage"); code != exitOK || !strings.Contains(out, "ok: 4 strategies, 2 faults") {
		t.Errorf("validate outage: exit %d, stdout %q; want \"4 strategies, 2 faults\"", code, out)
	}
	server := writeScenario(t, "name: gate\nduration: 30s\nchaos:\n  - {name: down, kind: outage, mode: reset, at: 3s, for: 1s}\nthresholds:\n  - amplification <= 1.5\n")
	if code, out, _ := runCLI(t, "validate", server); code != exitOK || !strings.Contains(out, "ok for herdbench target and proxy: 1 fault, 1 threshold, 30s") ||
		!strings.Contains(out, `note: threshold "amplification <= 1.5" cannot judge a recording: it needs each attempt's number`) {
		t.Errorf("validate a server's scenario: exit %d, stdout %q; want \"1 fault, 1 threshold\" and the note on amplification", code, out)
	}
	ext := writeScenario(t, "name: ext\nduration: 5s\ntarget:\n  url: http://127.0.0.1:9/\nworkload: {kind: closed, clients: 2}\nstrategies:\n  - {name: a, backoff: full}\n  - {name: b, backoff: none}\n")
	op, err := scenarios.Open(ext, scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	externalNote(&b, op.Plans[0], &gameDayFlags{})
	if !strings.Contains(b.String(), "note: both cohorts send to this one service") {
		t.Errorf("external note: %q; want \"both cohorts\"", b.String())
	}
}

// TestRecordingWarnsOfThresholdsItCannotJudge: a proxy or target recording
// without --attempt-header cannot tell amplification (and none can tell
// request latency), so a gate on them fails whatever the clients do; the
// server says so when it starts, and not of the figures it can tell.
func TestRecordingWarnsOfThresholdsItCannotJudge(t *testing.T) {
	file := writeScenario(t, "name: gate\nduration: 10s\nthresholds:\n  - amplification <= 1.5\n  - latency.request.p99 < 2s\n  - herd_factor < 3\n")
	op, err := scenarios.Open(file, scenarios.Overrides{Server: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	warnUnjudgeable(&b, "proxy", op.Plans[0].Thresholds, false)
	for _, want := range []string{`threshold "amplification <= 1.5" cannot judge a recording: it needs each attempt's number, read with --attempt-header.`,
		`threshold "latency.request.p99 < 2s" cannot judge a recording: no recording can tell it, it is not on the wire.`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "herd_factor") {
		t.Errorf("a measurable threshold was warned of:\n%s", b.String())
	}
	b.Reset()
	warnUnjudgeable(&b, "proxy", op.Plans[0].Thresholds, true)
	if strings.Contains(b.String(), "amplification") || !strings.Contains(b.String(), "latency.request.p99") {
		t.Errorf("with attempt numbers: %q; want only the request latency warned of", b.String())
	}
}

// TestREADMECommandsNameEveryFlag: the README's synopsis of scenario,
// target and proxy, where a new user looks first, names every flag those
// commands take (it once left out --header, --hold and --protocol), but
// the ones it steers away from.
func TestREADMECommandsNameEveryFlag(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(readme), "\n## Commands\n")
	_, block, _ = strings.Cut(block, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	// Each command's lines: its own, then the indented ones under it.
	lines := map[string]string{}
	var cmd string
	for _, l := range strings.Split(block, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "herdbench" {
			cmd = f[1]
		}
		lines[cmd] += l + "\n"
	}
	lines["target"] += lines["proxy"]                 // "# both:" lines sit under proxy
	omitted := map[string]bool{"control-token": true} // visible in ps: the synopsis names --control-token-file
	for _, name := range []string{"scenario", "target", "proxy"} {
		flagsOf(name).VisitAll(func(f *pflag.Flag) {
			if !omitted[f.Name] && !regexp.MustCompile(`--`+regexp.QuoteMeta(f.Name)+`\b[^-]`).MatchString(lines[name]) {
				t.Errorf("README's Commands: herdbench %s lacks --%s", name, f.Name)
			}
		})
	}
}

// TestServerLogIsTimestamped: every line herdbench target and proxy log
// while they serve carries the time, the first ("serving ...") too, so a
// log on the big screen lines up with the faults.
func TestServerLogIsTimestamped(t *testing.T) {
	stamp := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d\d\d herdbench (target|proxy): `)
	for _, args := range [][]string{
		{"target", "--scenario", "outage", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--no-record"},
		{"proxy", "--upstream", "http://127.0.0.1:9", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--no-record"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var stderr syncBuffer
		done := make(chan int)
		go func() { done <- run(ctx, args, io.Discard, &stderr) }()
		stderr.waitFor(t, serveAddrRE)
		stderr.waitFor(t, controlAddrRE)
		cancel()
		<-done
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			if strings.Contains(line, "herdbench "+args[0]+": ") && !stamp.MatchString(line) {
				t.Errorf("%s: a line without its time: %q", args[0], line)
			}
		}
	}
}

// TestScenarioNotFoundSaysWhere: a scenario name that is neither a file nor
// a built-in is reported with the command (and for a server, the flag) it
// was given to, as every other message of those commands is.
func TestScenarioNotFoundSaysWhere(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "outgae"}, "herdbench validate: scenario not found"},
		{[]string{"scenario", "outgae", "--sim"}, "herdbench scenario: scenario not found"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:9/", "--scenario", "outgae", "--exit-after", "1s"}, "herdbench proxy: --scenario: scenario not found"},
		{[]string{"target", "--scenario", "outgae", "--exit-after", "1s"}, "herdbench target: --scenario: scenario not found"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.HasPrefix(stderr, c.want) || !strings.Contains(stderr, `did you mean "outage"`) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message starting %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRunNamesTheReportToOpen: a run ends by naming its results folder and
// then the file in it to open, report.html, as 'herdbench report' does; a
// new user was left to guess which of the folder's 17 files to open.
func TestRunNamesTheReportToOpen(t *testing.T) {
	out := t.TempDir()
	file := writeScenario(t, "name: tiny\nduration: 2s\nchaos:\n  - {name: down, kind: outage, mode: reset, at: 500ms, for: 500ms}\nworkload: {kind: closed, clients: 3}\nstrategies:\n  - {name: a, backoff: full}\n")
	code, stdout, stderr := runCLI(t, "scenario", file, "--sim", "--no-png", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^results: (.+)\nreport: (.+)$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("stdout lacks a results line followed by a report line:\n%s", stdout)
	}
	if m[2] != filepath.Join(m[1], "report.html") {
		t.Errorf("report: %q; want %q", m[2], filepath.Join(m[1], "report.html"))
	}
	if _, err := os.Stat(m[2]); err != nil {
		t.Errorf("the report named is not there: %v", err)
	}
}

// TestValidateSaysTheLoad: validate's summary says how many clients (or
// arrivals per second) each cohort runs, defaults filled in: a scenario
// without a workload was "ok: ..., closed workload" and ran 100 clients.
func TestValidateSaysTheLoad(t *testing.T) {
	for body, want := range map[string]string{
		"name: bare\nduration: 5s\nstrategies:\n  - {name: a, backoff: full}\n":                                         "ok: 1 strategy, 0 faults, 5s, closed workload of 100 clients\n",
		"name: one\nduration: 5s\nworkload: {kind: closed, clients: 1}\nstrategies:\n  - {name: a, backoff: full}\n":    "ok: 1 strategy, 0 faults, 5s, closed workload of 1 client\n",
		"name: open\nduration: 5s\nworkload: {kind: open, rate: 250}\nstrategies:\n  - {name: a, backoff: full}\n":      "ok: 1 strategy, 0 faults, 5s, open workload of 250 arrivals/s\n",
		"name: sw\nduration: 5s\nstrategies:\n  - {name: a, backoff: full}\nsweep:\n  workload.clients: [10, 20]\n":     "ok: 1 strategy, 0 faults, 5s, closed workload, a sweep of 2 points, each checked\n",
		"name: shot\nduration: 5s\nworkload: {kind: oneshot, clients: 30}\nstrategies:\n  - {name: a, backoff: full}\n": "ok: 1 strategy, 0 faults, 5s, oneshot workload of 30 clients\n",
	} {
		file := writeScenario(t, body)
		if code, out, stderr := runCLI(t, "validate", file); code != exitOK || !strings.HasSuffix(out, want) {
			t.Errorf("validate %q: exit %d, stdout %q, stderr %q; want it to end %q", body, code, out, stderr, want)
		}
	}
}

// TestPartialThresholdsSaySo: an interrupted run's thresholds line says
// they were checked on the part recorded; it once ended "thresholds: all
// 2 passed" under a run cut at 3.7 s of 10 s.
func TestPartialThresholdsSaySo(t *testing.T) {
	ended := 3.7
	for _, c := range []struct {
		label string
		s     results.Summary
		want  string
	}{
		{"", results.Summary{DurationS: 10}, ""},
		{"", results.Summary{DurationS: 10, Partial: true, EndedS: &ended}, "partial run, to 3.7s of 10s: "},
		{"", results.Summary{DurationS: 10, Partial: true}, "partial run: "},
		{"workload.clients=20", results.Summary{DurationS: 10}, "workload.clients=20: "},
		{"workload.clients=20", results.Summary{DurationS: 10, Partial: true, EndedS: &ended}, "workload.clients=20, partial run, to 3.7s of 10s: "},
	} {
		if got := thresholdsLead(c.label, &c.s); got != c.want {
			t.Errorf("thresholdsLead(%q, partial %v) = %q, want %q", c.label, c.s.Partial, got, c.want)
		}
	}
}
