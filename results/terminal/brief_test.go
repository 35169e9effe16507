package terminal

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/herdbench/herdbench/internal/golden"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

// The brief table: a row per cohort, the headline columns, the
// simulator's figure in brackets beside each of the run's it has; a run
// without the simulator's figures (virtual time) has none.
func TestRenderBriefGolden(t *testing.T) {
	_, s := resultstest.Fixture()
	var b bytes.Buffer
	if err := RenderBrief(&b, s, 120); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "(") {
		t.Errorf("a run without the simulator's figures has brackets:\n%s", b.String())
	}
	real := *s
	real.Runs = append([]results.Run(nil), s.Runs...)
	for i := range real.Runs {
		real.Runs[i].Sim = results.SimFigures(s.Runs[len(s.Runs)-1-i])
	}
	delete(real.Runs[1].Sim, "recovery_s") // never recovered, in the model
	b.Reset()
	if err := RenderBrief(&b, &real, 120); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/brief.golden", b.Bytes())
	for _, want := range []string{"strategy (sim)", "49.5 (0.5)", "0.00s (never)", "req p99"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the brief table lacks %q:\n%s", want, b.String())
		}
	}
	// Narrower, it leaves columns out, the waves' figures last.
	b.Reset()
	if err := RenderBrief(&b, &real, 80); err != nil {
		t.Fatal(err)
	}
	if widest(b.String()) > 80 || strings.Contains(b.String(), "req p99") || strings.Contains(b.String(), "peak/s") || !strings.Contains(b.String(), "herd factor") {
		t.Errorf("at 80 columns, want the latency and the peak left out, the herd factor kept, and no line wider:\n%s", b.String())
	}
}

// The verdict is its sentence, wrapped; a run without one (virtual time)
// writes nothing.
func TestRenderVerdict(t *testing.T) {
	var b bytes.Buffer
	if err := RenderVerdict(&b, &results.Summary{}, "", 40); err != nil || b.Len() != 0 {
		t.Fatalf("no verdict: %q, %v; want nothing", b.String(), err)
	}
	s := &results.Summary{Verdict: &results.Verdict{Outcome: results.NotTrustworthy,
		Sentence: "NOT TRUSTWORTHY: no-jitter: attempts were sent late, p99 51.5ms after their scheduled time."}}
	if err := RenderVerdict(&b, s, "workload.clients=20: ", 40); err != nil {
		t.Fatal(err)
	}
	want := "workload.clients=20: NOT TRUSTWORTHY:\nno-jitter: attempts were sent late, p99\n51.5ms after their scheduled time.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if utf8.RuneCountInString(l) > 40 {
			t.Errorf("a line wider than 40 columns: %q", l)
		}
	}
}

// The thresholds in brief: one line when all passed; the failures alone
// otherwise.
func TestRenderThresholdsBrief(t *testing.T) {
	ths := resultstest.Thresholds(t, "", "amplification <= 1.5", "success_ratio >= 99%")
	var b bytes.Buffer
	easy := resultstest.Thresholds(t, "", "amplification <= 5")
	if err := RenderThresholdsBrief(&b, results.CheckThresholds(resultstest.ThresholdSummary(), easy, nil)); err != nil {
		t.Fatal(err)
	}
	if b.String() != "thresholds: all 2 passed\n" {
		t.Errorf("all passed: %q", b.String())
	}
	b.Reset()
	if err := RenderThresholdsBrief(&b, results.CheckThresholds(resultstest.ThresholdSummary(), ths, nil)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/thresholds-brief.golden", b.Bytes())
	if strings.Contains(b.String(), "pass") {
		t.Errorf("a passed check in brief:\n%s", b.String())
	}
	if err := RenderThresholdsBrief(&b, nil); err != nil || !strings.HasSuffix(b.String(), "FAIL\n") {
		t.Errorf("no thresholds wrote something: %q, %v", b.String(), err)
	}
}

// The faults' names go on the sparklines' head line where they fit.
func TestSparklinesNameTheFaultsAbove(t *testing.T) {
	cohorts, s := resultstest.Fixture()
	tls := []results.Timeline{cohorts[0].Rec.Timeline(results.Bucket), cohorts[1].Rec.Timeline(results.Bucket)}
	var b bytes.Buffer
	if err := RenderSparklines(&b, s, tls, 80); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[0], "; faults ▀: crash 1–2s") || !strings.HasPrefix(lines[3], "faults ") {
		t.Errorf("want a head line naming the fault, two cohorts and the faults' row:\n%s", b.String())
	}
}
