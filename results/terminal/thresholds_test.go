package terminal

import (
	"bytes"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/internal/golden"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestRenderThresholdsGolden(t *testing.T) {
	ths := append(resultstest.Thresholds(t, "", "amplification <= 1.5", "recovery_s <= 5s", "latency.request.p99 < 2s", "success_ratio >= 99%"),
		resultstest.Thresholds(t, "full-jitter", "herd_factor < 3")...)
	var b bytes.Buffer
	if err := RenderThresholds(&b, results.CheckThresholds(resultstest.ThresholdSummary(), ths, nil)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/thresholds.golden", b.Bytes())
}

func TestRenderThresholdsOverRepetitions(t *testing.T) {
	reps := [][]results.Run{{{Strategy: "a", Amplification: 1.2}, {Strategy: "a", Amplification: 1.9}}}
	s := &results.Summary{Runs: []results.Run{reps[0][0]}}
	var b bytes.Buffer
	if err := RenderThresholds(&b, results.CheckThresholds(s, resultstest.Thresholds(t, "", "amplification <= 1.5", "mean(amplification) <= 1.6"), reps)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"thresholds: 1 of 2 FAILED", "1.9 (worst of 2)  FAIL in 1 of 2", "1.55 (mean of 2)  pass"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, b.String())
		}
	}
}
