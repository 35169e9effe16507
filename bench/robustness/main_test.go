package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// The report counts the runs whose every claim held, per scenario and
// condition, and prints one table each, with a legend once.
func TestReport(t *testing.T) {
	claims := func(ok ...bool) []scenarios.Claim {
		var cs []scenarios.Claim
		for i, h := range ok {
			cs = append(cs, scenarios.Claim{Text: "claim " + string(rune('a'+i)), Short: "c" + string(rune('a'+i)), Figure: "1.00×", Holds: h})
		}
		return cs
	}
	trusted := &results.Harness{Trustworthy: true}
	all := []outcome{
		{scenario: "outage", load: 0.5, wall: 62 * time.Second, checks: claims(true, true), harness: trusted, worstLag: 6.6},
		{scenario: "outage", hogs: 2, load: 0.7, wall: 62 * time.Second, checks: claims(true, false), harness: &results.Harness{}, worstLag: 14},
		{scenario: "outage", load: 1.5, wall: 62 * time.Second, checks: claims(true, true), harness: trusted},
		{scenario: "outage", hogs: 2, load: 0.9, err: errors.New("interrupted")},
	}
	var b strings.Builder
	report(&b, config{scenarios: []string{"outage"}, runs: 2, hogRuns: 2, hogs: 2, markdown: true}, all, time.Minute)
	out := b.String()
	for _, want := range []string{
		"| run | load | wall | ca | cb | send lag p99 | trustworthy | held |",
		"| 1 | 0.5 | 62 s | 1.00× | 1.00× | 6.6 ms | yes | yes |",
		"| 1 | 0.7 | 62 s | 1.00× | 1.00× ✗ | 14.0 ms | no | NO |",
		"| 2 | 0.9 | 0 s | error: interrupted |",
		"  ca: claim a\n  cb: claim b\n",
		"outage, 0 CPU hogs: headline held in 2 of 2 runs; trustworthy 2 of 2; load average 0.5 to 1.5",
		"outage, 2 CPU hogs: headline held in 0 of 2 runs; trustworthy 0 of 2; load average 0.7 to 0.9",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| spread p99 |") || strings.Contains(out, "| calls vs sim (worst) |") || strings.Contains(out, "calls within") {
		t.Errorf("columns for figures no run has:\n%s", out)
	}

	// An OCC scenario's runs say how close each cohort's calls came to
	// the simulator's, and whether the self-check agreed.
	aws := []outcome{
		{scenario: "aws-contention", load: 0.4, checks: claims(true), harness: trusted, worstLag: 30, calls: []string{"exponential 668 (+3.6%)"}, callsOff: 0.036},
		{scenario: "aws-contention", load: 0.5, checks: claims(true), harness: &results.Harness{}, worstLag: 90, calls: []string{"exponential 500 (-22.5%)"}, callsOff: 0.225},
		{scenario: "aws-contention", load: 0.6, checks: claims(true), harness: &results.Harness{}, worstLag: 40, calls: []string{"exponential 650 (+0.8%)"}, callsOff: 0.008, worstSpread: 3, hasSpread: true},
	}
	b.Reset()
	report(&b, config{scenarios: []string{"aws-contention"}, runs: 3, callsWithin: 0.15, markdown: true}, aws, time.Minute)
	out = b.String()
	for _, want := range []string{
		"| run | load | wall | ca | send lag p99 | spread p99 | calls vs sim (worst) | trustworthy | held |",
		"| 1 | 0.4 | 0 s | 1.00× | 30.0 ms | – | ±3.6% | yes | yes |",
		"| 2 | 0.5 | 0 s | 1.00× | 90.0 ms | – | ±22.5% | no | yes |",
		"| 3 | 0.6 | 0 s | 1.00× | 40.0 ms | 3.0 ms | ±0.8% | no | yes |",
		"aws-contention, 0 CPU hogs: headline held in 3 of 3 runs; trustworthy 1 of 3; every cohort's calls within 15% of the reference in 2 of 3; trustworthy exactly when they were in 2 of 3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "  ca: claim a") != 1 {
		t.Errorf("the legend is not printed once:\n%s", out)
	}
}

// A sweep's folder gives every point's summary, so a sweep's headline
// (jitter-range) is checked over all of its points.
func TestReadSummariesOfASweep(t *testing.T) {
	dir := t.TempDir()
	var points []*results.Summary
	for _, f := range []string{"0", "0.5", "1"} {
		points = append(points, &results.Summary{Scenario: "jitter-range", Point: []results.Setting{{Field: "strategies[jittered].jitter", Value: f}}})
	}
	if err := folder.WriteSweep(dir, points, []byte("name: jitter-range\n")); err != nil {
		t.Fatal(err)
	}
	got, err := readSummaries(dir)
	if err != nil || len(got) != 3 {
		t.Fatalf("%d summaries, %v; want the 3 points", len(got), err)
	}
	if _, err := readSummaries(t.TempDir()); err == nil {
		t.Error("a folder without a summary read")
	}
}
