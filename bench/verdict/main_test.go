package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

func ptr(v float64) *float64 { return &v }

// A run is within its bands when every figure its verdict read is: the
// finer figures it read coarser do not count; the model with lateness is
// counted against the real figures beside the simulator.
func TestJudgedReadsTheBands(t *testing.T) {
	s := &results.Summary{
		Harness: &results.Harness{Warnings: []string{"no-jitter: attempts were sent late"}},
		Runs:    []results.Run{{Strategy: "no-jitter", Sim: results.Values{"attempts": 7600}}},
		Verdict: &results.Verdict{Outcome: results.Holds, ResolutionMS: 50, Figures: []results.VerdictFigure{
			{Cohort: "no-jitter", Name: "herd_factor", Real: ptr(35.4), Sim: ptr(135.7), Late: ptr(27.5), ResolutionMS: 10, Finer: true},
			{Cohort: "no-jitter", Name: "herd_factor", Real: ptr(115.7), Sim: ptr(127.8), Late: ptr(110), ResolutionMS: 50, Within: true},
			// 30 against none: within half a percent of 7,600 attempts.
			{Cohort: "no-jitter", Name: "failed_after_fault", Real: ptr(30), Sim: ptr(0), Late: ptr(80)},
		}}}
	var rec record
	judged(&rec, s)
	if !rec.InBand || rec.Outcome != "holds" || rec.ResolutionMS != 50 || !rec.Limits {
		t.Errorf("%+v: want within its bands, holds at 50 ms, flagged by the limits", rec)
	}
	if rec.LateCompared != 2 || rec.LateAgrees != 1 || rec.SimAgrees != 2 {
		t.Errorf("the model with lateness: %d of %d agree (the simulator %d), want 1 of 2 (2)", rec.LateAgrees, rec.LateCompared, rec.SimAgrees)
	}
	s.Verdict.Figures[2].Real = ptr(60)
	rec = record{}
	judged(&rec, s)
	if rec.InBand {
		t.Errorf("60 failures after the fault against none is outside: %+v", rec)
	}
}

// The page counts the runs in the confusion table, by band and outcome,
// and says the two rates the targets are about.
func TestPageCountsTheConfusion(t *testing.T) {
	held := true
	cp := &corpus{Config: config{Rounds: 1, Hogs: 2, Slow: "2", Main: 1}, Commands: []string{"go run ./bench/verdict"}, Machine: "a machine",
		Runs: []record{
			{Scenario: "outage", Outcome: "holds", InBand: true, Load: [3]float64{1.5}},
			{Scenario: "outage", Outcome: "not_trustworthy", InBand: true, Hogs: 2, Load: [3]float64{3}},
			{Scenario: "outage", Outcome: "not_trustworthy", Hogs: 2, Slow: "2", Limits: true},
			{Scenario: "metastable", Err: "interrupted"},
		},
		Main: []record{{Scenario: "outage", Outcome: "exact", InBand: true, WallS: 130, ExpectedS: 126, SlowMotion: 2, Headline: &held}},
	}
	path := filepath.Join(t.TempDir(), "page.md")
	if err := writePage(path, "runs.json", cp); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"| within their bands | 1 | 1 | 1 | 3 |",
		"| outside their bands | 0 | 0 | 1 | 1 |",
		"Within their bands, flagged: 1 of 3 (33%). Outside, marked exact or holds: 0 of 1 (0%).",
		"| (none: the default) | as the machine is | 1 | 1 | 0 | 0 | 1 | 130 / 130 / 130 s | 126 / 126 / 126 s | 2× |",
		"load average (1 min) before the runs: 0.0 to 3.0",
		"## Every run\n\nEvery run's scenario, conditions, load, wall time, exit code, verdict and sentence",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
}

// The first corpora named no folders: they are numbered as the runs ran,
// a sweep's points one run, a condition skipped one too, the main job's
// after the corpus's.
func TestAssignFoldersNumbersTheRunsAsTheyRan(t *testing.T) {
	cp := &corpus{Runs: []record{
		{Scenario: "outage"}, {Scenario: "outage", Hogs: 2},
		{Scenario: "jitter-range", Point: "jitter=0"}, {Scenario: "jitter-range", Point: "jitter=1"},
		{Scenario: "jitter-range", Point: "jitter=0", Hogs: 2}, {Scenario: "jitter-range", Point: "jitter=1", Hogs: 2},
		{Scenario: "grpc-outage", Slow: "2", Err: "skipped: slow motion cannot slow this scenario"},
		{Scenario: "outage", Folder: "corpus-042"},
	}, Main: []record{{Scenario: "outage"}, {Scenario: "outage", Hogs: 2}}}
	n := assignFolders(cp)
	var got []string
	for _, r := range append(cp.Runs, cp.Main...) {
		got = append(got, r.Folder)
	}
	want := []string{"corpus-001", "corpus-002", "corpus-003", "corpus-003", "corpus-004", "corpus-004", "corpus-005", "corpus-042", "main-007", "main-008"}
	if n != 8 || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("folders %v (%d runs), want %v (8)", got, n, want)
	}
}

// A real run's results folder, judged again, gives its verdict back: its
// folder found, its scenario.yaml compiled with its seed, its timeline
// read.
func TestRejudgeReadsAResultsFolder(t *testing.T) {
	p := scenariotest.Plan(t, `name: tiny
duration: 3s
seed: 5
target: {concurrency: 4, queue: 20, queue_timeout: 200ms, service_time: 2ms}
chaos: [{kind: outage, at: 1s, for: 500ms}]
workload: {kind: closed, clients: 20, think: exponential(30ms)}
strategies:
  - {name: exp, backoff: exponential, base: 20ms, cap: 200ms, max_attempts: 4, timeout: 500ms}
  - {name: full, backoff: full, base: 20ms, cap: 200ms, max_attempts: 4, timeout: 500ms}
`, scenarios.Overrides{})
	var pt engine.Point
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		var n2 atomic.Int64
		points, err := engine.Execute(context.Background(), []*scenarios.Plan{p}, engine.Options{Mode: engine.Mode{Timelines: true},
			Network: engine.Network{Listen: n.Listen, Dial: n.Dial}, BeforeSend: func() { time.Sleep(time.Duration(n2.Add(1)%4) * time.Millisecond) }})
		if err != nil {
			t.Fatal(err)
		}
		pt = points[0]
	})
	keep := t.TempDir()
	if err := folder.Write(filepath.Join(keep, "corpus-001", "tiny-20261207T000000Z"), pt.Output); err != nil {
		t.Fatal(err)
	}
	rec := record{Scenario: "tiny", Folder: "corpus-001", Outcome: "was"}
	if err := rejudge(context.Background(), &rec, filepath.Join(keep, rec.Folder)); err != nil {
		t.Fatal(err)
	}
	if v := pt.Output.Summary.Verdict; rec.Outcome != string(v.Outcome) || rec.Before != "was" || rec.Rejudged != "yes" {
		t.Errorf("judged again %+v; want %s (%s), before was", rec, v.Outcome, v.Sentence)
	}
}
