package terminal

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/golden"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestRenderTiers(t *testing.T) {
	c := resultstest.ChainFixture()
	s := &results.Summary{Faults: []results.FaultWindow{{Name: "f", AtS: 1, ForS: 1}}, Runs: []results.Run{results.Summarize(c, results.Window{FirstStart: time.Second, LastEnd: 2 * time.Second})}}
	var b bytes.Buffer
	if err := RenderTiers(&b, s); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/tiers.golden", b.Bytes())
	lines := results.Explain(s)
	if last := lines[len(lines)-1]; !strings.Contains(last, "amplification at the bottom tier (service)") || !strings.Contains(last, "every-tier 6.00") {
		t.Errorf("explain: %q", last)
	}
	b.Reset()
	if err := RenderTiers(&b, &results.Summary{Runs: []results.Run{{Strategy: "x"}}}); err != nil || b.Len() != 0 {
		t.Errorf("a single target's tiers table: %q", b.String())
	}
}

// In brief, the tiers table leaves out its peak, attempts and herd factor
// columns, in that order, while it is wider than asked.
func TestRenderTiersBrief(t *testing.T) {
	c := resultstest.ChainFixture()
	s := &results.Summary{Faults: []results.FaultWindow{{Name: "f", AtS: 1, ForS: 1}}, Runs: []results.Run{results.Summarize(c, results.Window{FirstStart: time.Second, LastEnd: 2 * time.Second})}}
	var full, brief bytes.Buffer
	if err := RenderTiers(&full, s); err != nil {
		t.Fatal(err)
	}
	if err := RenderTiersBrief(&brief, s, 100); err != nil {
		t.Fatal(err)
	}
	_, fullTable, _ := strings.Cut(full.String(), "\n") // the line above the table is prose
	_, table, _ := strings.Cut(brief.String(), "\n")
	if widest(fullTable) <= 100 || widest(table) > 100 || strings.Contains(table, "peak/s") || !strings.Contains(table, "amplif.") || !strings.Contains(table, "recovery") {
		t.Errorf("in brief at 100 columns, want no wider table, peak/s left out, amplif. and recovery kept:\n%s", brief.String())
	}
}
