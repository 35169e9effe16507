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

func TestSummarizeFixture(t *testing.T) {
	_, s := resultstest.Fixture()
	nj, fj := s.Runs[0], s.Runs[1]
	if nj.Attempts != 200 || nj.Requests != 200 || nj.Succeeded != 100 || nj.Failed != 100 {
		t.Errorf("no-jitter totals: %+v", nj)
	}
	if nj.Outcomes["reset"] != 100 || fj.Outcomes["http_5xx"] != 50 {
		t.Errorf("outcomes: %v / %v", nj.Outcomes, fj.Outcomes)
	}
	// The waves' second-2 wave failed, after the fault's end at 2 s.
	if nj.FailedAfterFault != 50 || fj.FailedAfterFault != 0 {
		t.Errorf("failed after fault: %d / %d", nj.FailedAfterFault, fj.FailedAfterFault)
	}
	if nj.PeakAttemptsPerS != 50 || nj.HerdFactor < 10*fj.HerdFactor {
		t.Errorf("peak %d, herd %.2f vs %.2f", nj.PeakAttemptsPerS, nj.HerdFactor, fj.HerdFactor)
	}
	// The only failing window after the fault is the one starting at 2 s,
	// which holds the failed wave; from 2.01 s on every window succeeds.
	if fj.RecoveryS == nil || *fj.RecoveryS != 0 || nj.RecoveryS == nil || *nj.RecoveryS != 0.01 {
		t.Errorf("recovery: %s / %s", recoveryText(nj.RecoveryS), recoveryText(fj.RecoveryS))
	}
	// Half a bucket's worth of attempts every other bucket: var/mean = 0.5.
	if fj.HerdFactor != 0.5 {
		t.Errorf("full-jitter herd factor %v, want 0.5", fj.HerdFactor)
	}
}

func TestRenderGolden(t *testing.T) {
	cohorts, s := resultstest.Fixture()
	var b bytes.Buffer
	if err := RenderTable(&b, s); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table.golden", b.Bytes())

	b.Reset()
	tls := []results.Timeline{cohorts[0].Rec.Timeline(results.Bucket), cohorts[1].Rec.Timeline(results.Bucket)}
	if err := RenderSparklines(&b, s, tls, 40); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/sparklines.golden", b.Bytes())

	golden.Check(t, "testdata/explain.golden", []byte(strings.Join(results.Explain(s), "\n")+"\n"))

	// Without faults there is nothing to fail after or recover from.
	calm := *s
	calm.Faults = nil
	b.Reset()
	if err := RenderTable(&b, &calm); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table-nofaults.golden", b.Bytes())

	if PartialNotice(s) != "" {
		t.Error("a complete run has a partial notice")
	}
	stopped := *s
	stopped.Partial, stopped.EndedS = true, new(float64)
	*stopped.EndedS = 2.5
	if n := PartialNotice(&stopped); !strings.Contains(n, "at 2.5s of 4s") {
		t.Errorf("partial notice %q", n)
	}
}

// BenchmarkRecordAttempt records attempts into one shard of a real-time
// recorder, as one swarm client group does: send times move forward at
// 10,000 attempts a second (time going back would send every record down
// the rare late path), with mixed outcomes and attempt numbers. The unshared
// case is the simulator's recorder.
func BenchmarkRecordAttempt(b *testing.B) {
	for _, unshared := range []bool{false, true} {
		b.Run(map[bool]string{false: "shared", true: "unshared"}[unshared], func(b *testing.B) {
			r := results.NewRecorder(time.Hour, 8)
			if unshared {
				r = results.NewRecorder(time.Hour, 1).Unshared()
			}
			sh := r.Shard(3)
			step := time.Second / 10000
			wrap := int(time.Hour / step)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sh.Attempt(results.Attempt{Sent: time.Duration(i%wrap) * step, Latency: time.Duration(i%5000) * time.Microsecond, Number: 1 + i%4, Outcome: results.Outcome(i % 3)})
			}
		})
	}
}

// The terminal explains the (sim) rows and the wasted work when it shows
// them, and says nothing of them otherwise.
func TestExplainSimRowsAndWastedWork(t *testing.T) {
	_, s := resultstest.Fixture()
	has := func(s *results.Summary, prefix string) bool {
		for _, l := range results.Explain(s) {
			if strings.HasPrefix(l, prefix) {
				return true
			}
		}
		return false
	}
	if has(s, "(sim") || has(s, "wasted work") {
		t.Errorf("a run without (sim) rows or policies table explains them:\n%s", strings.Join(results.Explain(s), "\n"))
	}
	s.Runs[0].Sim, s.Runs[1].WastedWork = results.Values{"requests": 0}, 37
	if !has(s, "(sim): ") || !has(s, "wasted work: ") || !strings.Contains(strings.Join(results.Explain(s), "\n"), "full-jitter 37.") {
		t.Errorf("the (sim) rows and the wasted work unexplained:\n%s", strings.Join(results.Explain(s), "\n"))
	}
	s.Repetitions = 3
	if !has(s, "(sim mean): ") {
		t.Errorf("with repetitions, the (sim mean) rows unexplained:\n%s", strings.Join(results.Explain(s), "\n"))
	}
}

// The table prints the simulator's figures on a row under the cohort's
// own, "(sim mean)" when they are means over repetitions.
func TestTableShowsTheSimulatorsRow(t *testing.T) {
	rec := 3.91
	s := &results.Summary{Faults: []results.FaultWindow{{Name: "crash", AtS: 1, ForS: 1}}, Runs: []results.Run{{
		Strategy: "no-jitter", Requests: 4195, SuccessRatio: new(0.967), Attempts: 6356, Amplification: 1.515, HerdFactor: 50.9, FailedAfterFault: 403,
		Sim: results.Values{"requests": 4086, "success_ratio": 0.959, "unfinished": 0, "attempts": 6263, "amplification": 1.533, "peak_attempts_per_s": 934, "herd_factor": 135.671, "failed_after_fault": 443, "recovery_s": rec},
	}}}
	var b strings.Builder
	if err := RenderTable(&b, s); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 3 || !strings.Contains(lines[1], "no-jitter") ||
		strings.Join(strings.Fields(lines[2]), " ") != "(sim) 4086 95.9% 0 6263 1.53 934 135.7 443 3.91s" {
		t.Fatalf("table:\n%s", b.String())
	}
	s.Repetitions = 3
	b.Reset()
	_ = RenderTable(&b, s)
	if !strings.Contains(b.String(), "(sim mean)") {
		t.Errorf("with repetitions the row should say it holds means:\n%s", b.String())
	}
	// With the model's second opinion, its row comes right under (sim).
	s.Repetitions = 0
	s.Runs[0].SimLate = results.Values{"requests": 4300, "success_ratio": 0.96, "unfinished": 0, "attempts": 6470, "amplification": 1.5, "peak_attempts_per_s": 930, "herd_factor": 33.5, "failed_after_fault": 350, "recovery_s": 3.99}
	b.Reset()
	_ = RenderTable(&b, s)
	lines = strings.Split(b.String(), "\n")
	if len(lines) < 4 || strings.Join(strings.Fields(lines[3]), " ") != "(sim, late) 4300 96.0% 0 6470 1.50 930 33.5 350 3.99s" {
		t.Errorf("table with the second opinion:\n%s", b.String())
	}
	if !strings.Contains(strings.Join(results.Explain(s), "\n"), "(sim, late): ") {
		t.Errorf("the (sim, late) row unexplained:\n%s", strings.Join(results.Explain(s), "\n"))
	}
}

// TestTableColumns: the table has one column per metric placed in it
// (Metric.Table), each at its own place.
func TestTableColumns(t *testing.T) {
	places := map[int]bool{}
	for _, m := range results.Metrics() {
		if m.Table != nil {
			places[m.Table.At] = true
		}
	}
	if len(tableColumns()) != len(places) {
		t.Errorf("%d table columns, %d places in the metric table", len(tableColumns()), len(places))
	}
}
