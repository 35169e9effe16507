package results

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// recorded is what record fed a recorder: the values ending in each second,
// and reference histograms of all of them, built apart from the recorder.
type recorded struct {
	attempts, requests []int64
	attempt, request   *hdrhistogram.Histogram
}

// record feeds rec n attempts and requests from a fixed stream, spread over
// the run and across shards, some recorded late (after the shard moved on to
// a later second).
func record(rec *Recorder, dur time.Duration, n int, seed uint64) recorded {
	rng := rand.New(rand.NewPCG(seed, 1))
	secs := int((dur + time.Second - 1) / time.Second)
	want := recorded{attempts: make([]int64, secs), requests: make([]int64, secs), attempt: newHist(), request: newHist()}
	type late struct {
		shard int
		a     Attempt
	}
	var held []late
	for i := range n {
		// Time advances through the run, as in both engines.
		sent := time.Duration(float64(dur) * float64(i) / float64(n))
		lat := time.Duration(rng.ExpFloat64() * float64(20*time.Millisecond))
		a := Attempt{Sent: sent, Latency: lat, Number: 1 + rng.IntN(4), Outcome: Outcome(rng.IntN(int(NumOutcomes)))}
		end := min(int((sent+lat)/time.Second), secs-1)
		want.attempts[end]++
		_ = want.attempt.RecordValue(micros(lat))
		shard := rng.IntN(len(rec.shards))
		if rng.IntN(50) == 0 {
			held = append(held, late{shard, a}) // recorded a while later
		} else {
			rec.Shard(shard).Attempt(a)
		}
		if rng.IntN(3) == 0 {
			start := max(0, sent-time.Duration(rng.IntN(int(time.Second))))
			rec.Shard(shard).Request(Request{Start: start, End: sent + lat, Succeeded: a.Outcome == OK})
			want.requests[end]++
			_ = want.request.RecordValue(micros(sent + lat - start))
		}
		if len(held) > 0 && i%97 == 0 {
			for _, h := range held {
				rec.Shard(h.shard).Attempt(h.a)
			}
			held = held[:0]
		}
	}
	for _, h := range held {
		rec.Shard(h.shard).Attempt(h.a)
	}
	return want
}

func mergedIntervals(t *testing.T, ivs []Interval) (attempt, request *hdrhistogram.Histogram) {
	t.Helper()
	attempt, request = newHist(), newHist()
	for _, iv := range ivs {
		if d := iv.Attempt.MergeInto(attempt); d != 0 {
			t.Fatalf("merging attempt intervals dropped %d values", d)
		}
		if d := iv.Request.MergeInto(request); d != 0 {
			t.Fatalf("merging request intervals dropped %d values", d)
		}
	}
	return attempt, request
}

func TestIntervalsAddUpToTheHistograms(t *testing.T) {
	const dur = 7*time.Second + 500*time.Millisecond
	rec := NewRecorder(dur, 3)
	want := record(rec, dur, 20000, 7)
	ivs := rec.Intervals()
	if len(ivs) != 8 {
		t.Fatalf("%d intervals for a %s run, want 8 (one per started second)", len(ivs), dur)
	}
	for k, iv := range ivs {
		if got := iv.Attempt.TotalCount(); got != want.attempts[k] {
			t.Errorf("second %d: %d attempt values, want %d", k, got, want.attempts[k])
		}
		if got := iv.Request.TotalCount(); got != want.requests[k] {
			t.Errorf("second %d: %d request values, want %d", k, got, want.requests[k])
		}
	}
	gotA, gotR := mergedIntervals(t, ivs)
	if !gotA.Equals(want.attempt) {
		t.Errorf("merged attempt intervals differ from every attempt recorded: %d values vs %d", gotA.TotalCount(), want.attempt.TotalCount())
	}
	if !gotR.Equals(want.request) {
		t.Errorf("merged request intervals differ from every request recorded: %d values vs %d", gotR.TotalCount(), want.request.TotalCount())
	}
	fullA, fullR := rec.Histograms()
	if !fullA.Equals(want.attempt) || !fullR.Equals(want.request) {
		t.Error("Histograms differ from every value recorded")
	}
	// Asking again moves nothing twice.
	if a2, _ := mergedIntervals(t, rec.Intervals()); !a2.Equals(want.attempt) {
		t.Error("a second call to Intervals changed the intervals")
	}
}

func TestIntervalsClampToTheRun(t *testing.T) {
	rec := NewRecorder(2*time.Second, 1)
	s := rec.Shard(0)
	s.Attempt(Attempt{Sent: -time.Second, Latency: time.Millisecond})
	s.Attempt(Attempt{Sent: time.Hour, Latency: time.Millisecond})
	ivs := rec.Intervals()
	if len(ivs) != 2 || ivs[0].Attempt.TotalCount() != 1 || ivs[1].Attempt.TotalCount() != 1 {
		t.Fatalf("got %d intervals; want 2 with one value each (before the start -> first, after the end -> last)", len(ivs))
	}
}

func TestIntervalsConcurrent(t *testing.T) {
	const dur = 3 * time.Second
	rec := NewRecorder(dur, 4)
	var wg sync.WaitGroup
	const workers, per = 8, 3000
	for w := range workers {
		wg.Go(func() {
			s := rec.Shard(w)
			for i := range per {
				sent := time.Duration(float64(dur) * float64(i) / per)
				s.Attempt(Attempt{Sent: sent, Latency: time.Duration(w+1) * time.Millisecond, Number: 1})
				s.Request(Request{Start: sent, End: sent + time.Millisecond, Succeeded: true})
			}
		})
	}
	wg.Wait()
	var a, r int64
	for _, iv := range rec.Intervals() {
		a += iv.Attempt.TotalCount()
		r += iv.Request.TotalCount()
	}
	if a != workers*per || r != workers*per {
		t.Fatalf("intervals hold %d attempts and %d requests, want %d each", a, r, workers*per)
	}
}

func TestHistogramLogRoundTrip(t *testing.T) {
	const dur = 5 * time.Second
	rec := NewRecorder(dur, 2)
	want := record(rec, dur, 5000, 3)
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

	got := map[string]*hdrhistogram.Histogram{TagAttempt: newHist(), TagRequest: newHist()}
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
	fullA, fullR := want.attempt, want.request
	if !got[TagAttempt].Equals(fullA) || !got[TagRequest].Equals(fullR) {
		t.Error("the histograms read back from the log differ from the values recorded")
	}
	if a, b := PercentilesOf(got[TagAttempt]), PercentilesOf(fullA); a != b {
		t.Errorf("attempt percentiles from the log %+v, from the recorder %+v", a, b)
	}
	if a, b := PercentilesOf(got[TagRequest]), PercentilesOf(fullR); a != b {
		t.Errorf("request percentiles from the log %+v, from the recorder %+v", a, b)
	}
}

func TestScanHistogramLogErrors(t *testing.T) {
	start := time.Unix(1772366400, 0)
	stop := errors.New("stop")
	rec := NewRecorder(2*time.Second, 1)
	rec.Shard(0).Attempt(Attempt{Sent: 0, Latency: time.Millisecond})
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

// BenchmarkShardAttempt measures the recording hot path: one attempt into a
// shard's histograms (whole run and current second) and the timeline, at a
// sparse and a dense rate per shard (the shard moves its second's histograms
// aside once per second of elapsed time, so the sparse rate pays most per
// attempt for that).
func BenchmarkShardAttempt(b *testing.B) {
	for _, rate := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("%d_per_s", rate), func(b *testing.B) {
			rec := NewRecorder(time.Hour, 1)
			s := rec.Shard(0)
			step := time.Second / time.Duration(rate)
			wrap := int(time.Hour / step)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s.Attempt(Attempt{Sent: time.Duration(i%wrap) * step, Latency: time.Duration(i%5000) * time.Microsecond, Number: 1})
			}
		})
	}
}
