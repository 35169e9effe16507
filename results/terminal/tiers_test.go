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
