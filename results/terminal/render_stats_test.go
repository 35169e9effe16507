package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestStatsTableOfASweep(t *testing.T) {
	var buf bytes.Buffer
	s := func(v string, herd float64) *results.Summary {
		return &results.Summary{Point: resultstest.Point("strategies[0].jitter", v), Runs: []results.Run{{Strategy: "j", Requests: 10, Attempts: 12, HerdFactor: herd}}}
	}
	if err := RenderStatsTable(&buf, []*results.Summary{s("0", 135.7), s("1", 2.7)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	head, last := strings.Fields(lines[0]), strings.Fields(lines[2])
	if head[0] != "strategies[0].jitter" || head[1] != "strategy" || !strings.Contains(lines[1], "135.7") || last[0] != "1" || last[1] != "j" {
		t.Errorf("table:\n%s", buf.String())
	}
	if strings.Contains(lines[0], "failed after fault") {
		t.Errorf("a run without faults shows failed after fault:\n%s", buf.String())
	}

	// With faults, the attempts that failed after them have a column.
	buf.Reset()
	faulty := func(v string, failed int64) *results.Summary {
		return &results.Summary{Point: resultstest.Point("strategies[0].jitter", v), Faults: []results.FaultWindow{{Name: "crash"}},
			Runs: []results.Run{{Strategy: "j", Requests: 10, Attempts: 12, FailedAfterFault: failed}}}
	}
	if err := RenderStatsTable(&buf, []*results.Summary{faulty("0.1", 216), faulty("1", 0)}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(buf.String(), "\n"); !strings.Contains(lines[0], "failed after fault") || !strings.Contains(lines[1], " 216 ") || strings.Contains(lines[1], "216.0") {
		t.Errorf("table with faults:\n%s", buf.String())
	}
	// A point of one run shows its counts as counts ("12", not "12.0");
	// of several, means and deviations.
	if lines := strings.Split(buf.String(), "\n"); !strings.Contains(lines[1], " 12 ") || strings.Contains(lines[1], "12.0") {
		t.Errorf("a point of one run:\n%s", buf.String())
	}
	buf.Reset()
	two := faulty("1", 3)
	two.Repetitions = 2
	two.Runs[0].Stats = map[string]results.Stat{"attempts": {N: 2, Mean: 12.5, SD: 0.7}}
	if err := RenderStatsTable(&buf, []*results.Summary{two}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "12.5 ± 0.7") {
		t.Errorf("a point of two runs:\n%s", buf.String())
	}
}

// In brief, the repetitions table leaves out its latency, attempts and
// success columns, in that order, while it is wider than asked; the
// waves' figures stay.
func TestStatsBriefFitsItsWidth(t *testing.T) {
	stat := func(mean, sd float64) results.Stat { return results.Stat{N: 3, Mean: mean, SD: sd} }
	s := &results.Summary{Repetitions: 3, Faults: []results.FaultWindow{{Name: "crash"}}, Runs: []results.Run{{Strategy: "no-jitter", Stats: map[string]results.Stat{
		"attempts": stat(6156.7, 92.1), "amplification": stat(1.56, 0.02), "success_ratio": stat(1, 0), "herd_factor": stat(149.3, 13),
		"failed_after_fault": stat(470.7, 26.6), "recovery_s": stat(3.91, 0), "latency_ms.request.p50": stat(7.9, 0.04), "latency_ms.request.p99": stat(7400, 18.8)}}}}
	var full, brief bytes.Buffer
	if err := RenderStatsTable(&full, []*results.Summary{s}); err != nil {
		t.Fatal(err)
	}
	if err := RenderStatsBrief(&brief, []*results.Summary{s}, 100); err != nil {
		t.Fatal(err)
	}
	if widest(full.String()) <= 100 {
		t.Fatalf("the full table is %d columns: the test shows nothing\n%s", widest(full.String()), full.String())
	}
	if widest(brief.String()) > 100 || strings.Contains(brief.String(), "req p50") || !strings.Contains(brief.String(), "149.3 ± 13.0") || !strings.Contains(brief.String(), "amplif.") {
		t.Errorf("in brief at 100 columns, want no line wider, req p50 left out, the herd factor and amplification kept:\n%s", brief.String())
	}
}
