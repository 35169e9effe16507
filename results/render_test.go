package results

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// fixture records two cohorts: one in synchronized waves, one spread out,
// with deterministic values.
func fixture() ([]Cohort, *Summary) {
	const dur = 4 * time.Second
	waves, spread := NewRecorder(dur, 2), NewRecorder(dur, 2)
	for i := 0; i < 200; i++ {
		at := time.Duration(i) * 20 * time.Millisecond
		o := OK
		if at >= time.Second && at < 2*time.Second {
			o = HTTP5xx
		}
		spread.Shard(i).Started(at)
		spread.Shard(i).Attempt(Attempt{Sent: at, Latency: time.Duration(1+i%7) * time.Millisecond, Number: 1 + i%3, Outcome: o})
		spread.Shard(i).Request(Request{Start: at, End: at + 5*time.Millisecond, Succeeded: o == OK})
		wat := time.Duration(i/50) * time.Second // 50 attempts at each whole second
		wo := OK
		if wat == time.Second || wat == 2*time.Second {
			wo = Reset
		}
		waves.Shard(i).Started(wat)
		waves.Shard(i).Attempt(Attempt{Sent: wat, Latency: time.Duration(1+i%11) * time.Millisecond, Number: 1 + i/50, Outcome: wo})
		waves.Shard(i).Request(Request{Start: wat, End: wat + 30*time.Millisecond, Succeeded: wo == OK})
	}
	cohorts := []Cohort{{Strategy: "no-jitter", Rec: waves}, {Strategy: "full-jitter", Rec: spread}}
	s := &Summary{
		Scenario: "fixture", Mode: "real", Seed: 1, Version: "test",
		Started:   time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		DurationS: 4, Workload: "closed",
		Faults: []FaultWindow{{Name: "crash", Kind: "outage", AtS: 1, ForS: 1}},
	}
	w := Window{FirstStart: time.Second, LastEnd: 2 * time.Second}
	for _, c := range cohorts {
		s.Runs = append(s.Runs, Summarize(c, w))
	}
	return cohorts, s
}

func TestSummarizeFixture(t *testing.T) {
	_, s := fixture()
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
	cohorts, s := fixture()
	var b bytes.Buffer
	if err := RenderTable(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "table.golden", b.Bytes())

	b.Reset()
	tls := []Timeline{cohorts[0].Rec.Timeline(Bucket), cohorts[1].Rec.Timeline(Bucket)}
	if err := RenderSparklines(&b, s, tls, 40); err != nil {
		t.Fatal(err)
	}
	golden(t, "sparklines.golden", b.Bytes())

	golden(t, "explain.golden", []byte(strings.Join(Explain(s), "\n")+"\n"))

	// Without faults there is nothing to fail after or recover from.
	calm := *s
	calm.Faults = nil
	b.Reset()
	if err := RenderTable(&b, &calm); err != nil {
		t.Fatal(err)
	}
	golden(t, "table-nofaults.golden", b.Bytes())

	if PartialNotice(s) != "" {
		t.Error("a complete run has a partial notice")
	}
	stopped := *s
	stopped.Partial, stopped.EndedS = true, new(float64)
	*stopped.EndedS = 2.5
	if n := PartialNotice(&stopped); !strings.Contains(n, "at 2.5s of 4s") {
		t.Errorf("partial notice %q", n)
	}

	summary, err := EncodeSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "summary.json.golden", summary)

	coarse := []Timeline{cohorts[0].Rec.Timeline(time.Second), cohorts[1].Rec.Timeline(time.Second)}
	csv, err := EncodeTimeline([]string{"no-jitter", "full-jitter"}, coarse)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "timeline_1s.csv.golden", csv)
}

func TestWriteIsCompleteAndAtomic(t *testing.T) {
	cohorts, s := fixture()
	dir := filepath.Join(t.TempDir(), DirName("fixture", s.Started))
	if err := Write(dir, Output{Summary: s, Cohorts: cohorts, Scenario: []byte("name: fixture\n")}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "full-jitter.hlog no-jitter.hlog scenario.yaml summary.json timeline.csv timeline_1s.csv" {
		t.Errorf("files: %s (no temporary file may remain)", got)
	}
	if !strings.HasSuffix(dir, "fixture-20261130T120000Z") {
		t.Errorf("folder name %s", dir)
	}
	// Writing into a folder that cannot be created fails loudly.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(blocker, "sub"), Output{Summary: s, Cohorts: cohorts}); err == nil {
		t.Error("Write into a path under a file succeeded")
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
			r := NewRecorder(time.Hour, 8)
			if unshared {
				r = NewRecorder(time.Hour, 1).Unshared()
			}
			sh := r.Shard(3)
			step := time.Second / 10000
			wrap := int(time.Hour / step)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sh.Attempt(Attempt{Sent: time.Duration(i%wrap) * step, Latency: time.Duration(i%5000) * time.Microsecond, Number: 1 + i%4, Outcome: Outcome(i % 3)})
			}
		})
	}
}

// The terminal explains the (sim) rows and the wasted work when it shows
// them, and says nothing of them otherwise.
func TestExplainSimRowsAndWastedWork(t *testing.T) {
	_, s := fixture()
	has := func(s *Summary, prefix string) bool {
		for _, l := range Explain(s) {
			if strings.HasPrefix(l, prefix) {
				return true
			}
		}
		return false
	}
	if has(s, "(sim") || has(s, "wasted work") {
		t.Errorf("a run without (sim) rows or policies table explains them:\n%s", strings.Join(Explain(s), "\n"))
	}
	s.Runs[0].Sim, s.Runs[1].WastedWork = Values{"requests": 0}, 37
	if !has(s, "(sim): ") || !has(s, "wasted work: ") || !strings.Contains(strings.Join(Explain(s), "\n"), "full-jitter 37.") {
		t.Errorf("the (sim) rows and the wasted work unexplained:\n%s", strings.Join(Explain(s), "\n"))
	}
	s.Repetitions = 3
	if !has(s, "(sim mean): ") {
		t.Errorf("with repetitions, the (sim mean) rows unexplained:\n%s", strings.Join(Explain(s), "\n"))
	}
}
