package folder

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestHistogramLogRoundTrip(t *testing.T) {
	const dur = 5 * time.Second
	rec := results.NewRecorder(dur, 2)
	want := resultstest.Record(rec, 2, dur, 5000, 3)
	start := time.Date(2026, 3, 1, 12, 0, 0, 123_000_000, time.UTC)
	ivs := rec.Intervals()
	data, err := EncodeHistogramLog("no-jitter", start, ivs)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"#[StartTime: 1772366400.123 (seconds since epoch), 2026-03-01T12:00:00.123Z]\n",
		"#[BaseTime: 1772366400.123 (seconds since epoch)]\n",
		"Tag=attempt,0.000000,1.000000,",
		"Tag=request,4.000000,1.000000,",
	} {
		if !bytes.Contains(data, []byte(line)) {
			t.Errorf("log lacks %q", line)
		}
	}

	got := map[string]*hdrhistogram.Histogram{TagAttempt: results.NewHistogram(), TagRequest: results.NewHistogram()}
	var seen []string
	err = ScanHistogramLog(bytes.NewReader(data), start, func(li LoggedInterval) error {
		seen = append(seen, li.Tag+"@"+string(rune('0'+li.Index)))
		written := ivs[li.Index].Attempt
		if li.Tag == TagRequest {
			written = ivs[li.Index].Request
		}
		if li.Hist.TotalCount() != written.TotalCount() {
			t.Errorf("%s interval %d: %d values read back, %d written", li.Tag, li.Index, li.Hist.TotalCount(), written.TotalCount())
		}
		got[li.Tag].Merge(li.Hist)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if order := "attempt@0 request@0 attempt@1 request@1 attempt@2 request@2 attempt@3 request@3 attempt@4 request@4"; strings.Join(seen, " ") != order {
		t.Errorf("intervals read back: %s\nwant %s", strings.Join(seen, " "), order)
	}
	fullA, fullR := want.Attempt, want.Request
	if !got[TagAttempt].Equals(fullA) || !got[TagRequest].Equals(fullR) {
		t.Error("the histograms read back from the log differ from the values recorded")
	}
	if a, b := results.PercentilesOf(got[TagAttempt]), results.PercentilesOf(fullA); a != b {
		t.Errorf("attempt percentiles from the log %+v, from the recorder %+v", a, b)
	}
	if a, b := results.PercentilesOf(got[TagRequest]), results.PercentilesOf(fullR); a != b {
		t.Errorf("request percentiles from the log %+v, from the recorder %+v", a, b)
	}
}

func TestScanHistogramLogErrors(t *testing.T) {
	start := time.Unix(1772366400, 0)
	stop := errors.New("stop")
	rec := results.NewRecorder(2*time.Second, 1)
	rec.Shard(0).Attempt(results.Attempt{Sent: 0, Latency: time.Millisecond})
	data, err := EncodeHistogramLog("x", start, rec.Intervals())
	if err != nil {
		t.Fatal(err)
	}
	if err := ScanHistogramLog(bytes.NewReader(data), start, func(LoggedInterval) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("an error from fn: got %v, want it returned", err)
	}
	bad := []byte("#[BaseTime: 1772366400.000 (seconds since epoch)]\n0.000,1.000,0.001,HISTnotbase64\n")
	if err := ScanHistogramLog(bytes.NewReader(bad), start, func(LoggedInterval) error { return nil }); !errors.Is(err, ErrHistogramLog) {
		t.Errorf("a corrupt interval: got %v, want ErrHistogramLog", err)
	}
}

func TestHlogNames(t *testing.T) {
	got := HlogNames([]string{"no-jitter", "full jitter", "full_jitter", "a/b", "..", "", "é"})
	want := []string{"no-jitter.hlog", "full_jitter.hlog", "full_jitter-2.hlog", "a_b.hlog", "cohort.hlog", "cohort-2.hlog", "_.hlog"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("HlogNames = %q\nwant %q", got, want)
	}
}

// TestUpstreamLatency: upstream times have their own histogram, per
// second in the .hlog (Tag=upstream) and as latency_ms.upstream; a
// recorder that received none writes neither.
func TestUpstreamLatency(t *testing.T) {
	rec := results.NewRecorder(3*time.Second, 2)
	for i := range 100 {
		rec.Shard(i).Attempt(results.Attempt{Sent: time.Duration(i) * 20 * time.Millisecond, Latency: 30 * time.Millisecond, Number: 1, Outcome: results.OK, Upstream: 20 * time.Millisecond})
	}
	rec.Shard(0).Attempt(results.Attempt{Sent: 2500 * time.Millisecond, Latency: time.Millisecond, Number: 1, Outcome: results.HTTP5xx}) // answered by a fault: not forwarded
	run := results.Summarize(results.Cohort{Strategy: "a", Rec: rec}, results.Window{})
	if u := run.LatencyMS.Upstream; u == nil || u.P50 < 19.9 || u.P50 > 20.1 || run.LatencyMS.Attempt.P50 < 29.9 {
		t.Fatalf("latency_ms: %+v upstream %+v", run.LatencyMS, run.LatencyMS.Upstream)
	}
	log, err := EncodeHistogramLog("a", time.Unix(1000, 0), rec.Intervals())
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	err = ScanHistogramLog(bytes.NewReader(log), time.Unix(1000, 0), func(li LoggedInterval) error {
		if li.Tag == TagUpstream {
			n += li.Hist.TotalCount()
		}
		return nil
	})
	if err != nil || n != 100 {
		t.Errorf("the log's upstream intervals hold %d values (err %v), want 100", n, err)
	}
	plain := results.NewRecorder(time.Second, 1)
	plain.Shard(0).Attempt(results.Attempt{Sent: 0, Latency: time.Millisecond, Number: 1})
	if r := results.Summarize(results.Cohort{Strategy: "b", Rec: plain}, results.Window{}); r.LatencyMS.Upstream != nil {
		t.Errorf("a swarm's run has upstream latency %+v", r.LatencyMS.Upstream)
	}
	log, _ = EncodeHistogramLog("b", time.Unix(1000, 0), plain.Intervals())
	if bytes.Contains(log, []byte("Tag="+TagUpstream)) {
		t.Errorf("a swarm's .hlog has upstream intervals")
	}
}
