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
	if lines := strings.Split(buf.String(), "\n"); !strings.Contains(lines[0], "failed after fault") || !strings.Contains(lines[1], "216.0") {
		t.Errorf("table with faults:\n%s", buf.String())
	}
}
