package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// TestShardFlagsRefused: what a shard cannot run is refused before any
// traffic, with exit 2 and what to change.
func TestShardFlagsRefused(t *testing.T) {
	t0 := time.Now().Add(time.Hour).UTC().Truncate(time.Second).Format("2006-01-02T15:04:05.000Z")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/3", "--target", "http://127.0.0.1:9/"}, "--shard needs --start-at"},
		{[]string{"--shard", "3/3", "--start-at", t0}, "the index counts from 0"},
		{[]string{"--shard", "half", "--start-at", t0}, "is not K/N"},
		{[]string{"--shard", "0/3", "--start-at", "tomorrow", "--target", "http://127.0.0.1:9/"}, "is not an RFC 3339 time"},
		{[]string{"--shard", "0/3", "--start-at", "2026-12-01T10:30:00.0005Z", "--target", "http://127.0.0.1:9/"}, "fraction of a millisecond"},
		{[]string{"--shard", "0/3", "--start-at", t0, "--sim"}, "real-time runs"},
		{[]string{"--shard", "0/3", "--start-at", t0, "--runs", "3", "--target", "http://127.0.0.1:9/"}, "give --runs 1"},
		{[]string{"--shard", "0/3", "--start-at", t0}, "external service"},
		{[]string{"--shard", "0/3", "--start-at", t0, "--cohorts", "apart", "--target", "http://127.0.0.1:9/"}, "--cohorts apart"},
	} {
		code, _, stderr := runCLI(t, append([]string{"scenario", "outage"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestStartAtMoreThanADayAheadRefused: a --start-at more than a day ahead
// (a mistyped year) is refused before anything starts, saying how far
// ahead it is, rather than waiting there silently (TestShardFlagsRefused:
// the command exits 2 with the message); 23 hours ahead is taken.
func TestStartAtMoreThanADayAheadRefused(t *testing.T) {
	at := func(d time.Duration) string {
		return time.Now().Add(d).UTC().Truncate(time.Second).Format("2006-01-02T15:04:05.000Z")
	}
	for _, c := range []struct {
		ahead time.Duration
		want  string // in the refusal; "" for none
	}{
		{36*365*24*time.Hour + 48*time.Hour, "is 36 years ahead"},
		{3*24*time.Hour + time.Hour, "is 3 days ahead"},
		{25 * time.Hour, "is 24h"},
		{23 * time.Hour, ""},
		{time.Minute, ""},
	} {
		s := shardFlags{shard: "0/3", startAt: at(c.ahead)}
		msg := s.check(&scenarioFlags{}, pflag.NewFlagSet("scenario", pflag.ContinueOnError))
		switch {
		case c.want == "" && (msg != "" || s.t0.IsZero()):
			t.Errorf("--start-at %s ahead: %q, t0 %s; want it taken", c.ahead, msg, s.t0)
		case c.want != "" && (!strings.Contains(msg, c.want) || !strings.Contains(msg, "at most 24h0m0s ahead")):
			t.Errorf("--start-at %s ahead: %q; want a refusal with %q", c.ahead, msg, c.want)
		}
	}
}

// TestLateShardExits4: a shard whose T0 has passed exits 4, sending
// nothing and writing nothing.
func TestLateShardExits4(t *testing.T) {
	out := t.TempDir()
	past := time.Now().Add(-time.Minute).UTC().Truncate(time.Second).Format("2006-01-02T15:04:05.000Z")
	code, _, stderr := runCLI(t, "scenario", "outage", "--shard", "1/2", "--start-at", past, "--target", "http://127.0.0.1:9/", "--out", out, "-q")
	if code != exitLate || !strings.Contains(stderr, "already") || !strings.Contains(stderr, "nothing was sent") {
		t.Fatalf("exit %d, stderr %q; want %d", code, stderr, exitLate)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a late shard wrote %d entries into --out", len(entries))
	}
}

// shardFolders writes a simulated run's n shards into one folder, as the
// shards of a real run do, and returns the folder.
func shardFolders(t *testing.T, yaml string, n int) string {
	t.Helper()
	p := scenariotest.Plan(t, yaml, scenarios.Overrides{})
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	for k := range n {
		points, err := engine.Execute(context.Background(), []*scenarios.Plan{p}, engine.Options{Version: "test", Mode: engine.Mode{Sim: true, Timelines: true}, Shard: engine.Shard{Part: clients.Part{Index: k, Of: n}}})
		if err != nil {
			t.Fatal(err)
		}
		o := points[0].Output
		o.Summary.Started, o.Summary.Shard.StartAt = t0, t0
		if err := folder.Write(filepath.Join(dir, folder.DirName(p.Name, t0)+o.Summary.Shard.FolderSuffix()), o); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const mergeable = `
name: mergeable
duration: 3s
seed: 2
target: {concurrency: 10000, queue: 0, service_time: 2ms}
chaos:
  - {name: down, kind: outage, mode: "503", at: 1s, for: 500ms}
workload: {kind: closed, clients: 40, think: exponential(100ms)}
strategies:
  - {name: no-jitter, backoff: exponential, base: 50ms, cap: 1s, max_attempts: 4, timeout: 500ms}
thresholds:
  - %s
`

// TestMergeCommand: herdbench merge of the folder the shards wrote into
// writes the merged results folder, its report included, and checks the
// thresholds the shards deferred (exit 3 when one fails); a missing shard
// is refused with exit 2 and nothing written.
func TestMergeCommand(t *testing.T) {
	for _, c := range []struct {
		threshold string
		code      int
	}{{"amplification <= 10", exitOK}, {"amplification < 1", exitThresholds}} {
		dir := shardFolders(t, fmt.Sprintf(mergeable, c.threshold), 3)
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "merge", dir, "--out", out, "--no-png")
		if code != c.code {
			t.Fatalf("%s: exit %d, want %d\n%s\n%s", c.threshold, code, c.code, stdout, stderr)
		}
		merged := filepath.Join(out, "mergeable-20261201T103000Z")
		s := readJSON(t, filepath.Join(merged, "summary.json"))
		if s.Merged == nil || s.Merged.Of != 3 || len(s.Thresholds) != 1 || s.Runs[0].Requests == 0 {
			t.Errorf("merged summary: %+v", s)
		}
		if _, err := os.Stat(filepath.Join(merged, "report.html")); err != nil {
			t.Errorf("no report: %v", err)
		}
		if !strings.Contains(stdout, "results: "+merged) || !strings.Contains(stderr, "3 shards of mergeable") {
			t.Errorf("stdout %q\nstderr %q", stdout, stderr)
		}
	}
	dir := shardFolders(t, fmt.Sprintf(mergeable, "amplification <= 10"), 3)
	entries, _ := os.ReadDir(dir)
	out := t.TempDir()
	code, _, stderr := runCLI(t, "merge", filepath.Join(dir, entries[0].Name()), filepath.Join(dir, entries[2].Name()), "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "shard(s) 1 of 3 missing") || !strings.Contains(stderr, "Nothing was written") {
		t.Errorf("a missing shard: exit %d, %q", code, stderr)
	}
	if e, _ := os.ReadDir(out); len(e) != 0 {
		t.Errorf("a refused merge wrote %d entries", len(e))
	}
}

// TestK8sCommand: herdbench k8s prints the manifest for the scenario's
// shards, checked as a shard compiles it: a scenario a shard would refuse
// is refused here, with exit 2.
func TestK8sCommand(t *testing.T) {
	code, stdout, stderr := runCLI(t, "k8s", "outage", "--shards", "4", "--target", "http://proxy.staging:8090/", "--seed", "9")
	if code != exitOK || !strings.Contains(stdout, "completionMode: Indexed") || !strings.Contains(stdout, "$(JOB_COMPLETION_INDEX)/4") ||
		!strings.Contains(stdout, `- "9"`) || !strings.Contains(stderr, "apply within 2m0s") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"k8s", "outage", "--target", "http://p:8090/"}, "--shards 0"},
		{[]string{"k8s", "outage", "--shards", "3"}, "--target URL is required"},
		{[]string{"k8s", "metastable", "--shards", "3", "--target", "http://p:8090/"}, "write scope: shard"},
		{[]string{"k8s", "outage", "--shards", "3", "--target", "http://p:8090/", "--lead", "1s"}, "--lead 1s"},
	} {
		code, _, stderr := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestK8sRefusesHostileValues: a value that would add YAML documents (a
// line break), break the header's shell line (a quote) or run something
// ($(), backticks, ;) is refused with exit 2 and a message that names the
// flag, says what is wrong and gives a good value; nothing is printed on
// stdout. A URL with a quote or a $ is a URL: it is accepted, and the
// manifest is still its three documents.
func TestK8sRefusesHostileValues(t *testing.T) {
	base := []string{"k8s", "outage", "--shards", "2", "--target", "http://p:8090/"}
	for _, flag := range []string{"--image", "--results-claim", "--token-secret", "--cpu", "--memory", "--target", "--chaos-control"} {
		for _, v := range []string{
			"x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: stolen}",
			"x\r\nkind: Pod", "a'b", "$(id)", "`id`", "a;id", "a b", "ünï", strings.Repeat("x", 5000) + "\n",
		} {
			code, stdout, stderr := runCLI(t, append(append([]string{}, base...), flag, v)...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, "herdbench k8s: "+flag+" ") || !strings.Contains(stderr, "give e.g.") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s %q: exit %d, stdout %d bytes, stderr %q; want 2, nothing, and one line naming %s with an example",
					flag, v, code, len(stdout), stderr, flag)
			}
		}
	}
	// The typed flags are read by pflag, which refuses what is not a
	// number or a duration, quoting it.
	for _, flag := range []string{"--shards", "--lead", "--seed"} {
		for _, v := range []string{"2\nkind: Pod", "2;id", "$(id)", "2 s"} {
			code, stdout, stderr := runCLI(t, append(append([]string{}, base...), flag, v)...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, strconv.Quote(v)) || !strings.Contains(stderr, flag) {
				t.Errorf("%s %q: exit %d, stdout %d bytes, stderr %q; want 2, nothing, and the value quoted", flag, v, code, len(stdout), stderr)
			}
		}
	}
	for _, target := range []string{"http://p:8090/it's", "http://p:8090/$(HERDBENCH_CONTROL_TOKEN)"} {
		code, stdout, stderr := runCLI(t, "k8s", "outage", "--shards", "2", "--target", target, "--chaos-control", "http://p:8091")
		docs := 0
		for dec := yaml.NewDecoder(strings.NewReader(stdout)); ; docs++ {
			var v any
			if err := dec.Decode(&v); err != nil {
				break
			}
		}
		if code != exitOK || docs != 3 || strings.Contains(stdout, "/$(HERDBENCH") {
			t.Errorf("--target %q: exit %d, %d documents, stderr %q; want 0, 3, and $ escaped from Kubernetes' expansion", target, code, docs, stderr)
		}
	}
}
