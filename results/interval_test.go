package results_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestIntervalsAddUpToTheHistograms(t *testing.T) {
	const dur = 7*time.Second + 500*time.Millisecond
	rec := results.NewRecorder(dur, 3)
	want := resultstest.Record(rec, 3, dur, 20000, 7)
	ivs := rec.Intervals()
	if len(ivs) != 8 {
		t.Fatalf("%d intervals for a %s run, want 8 (one per started second)", len(ivs), dur)
	}
	for k, iv := range ivs {
		if got := iv.Attempt.TotalCount(); got != want.Attempts[k] {
			t.Errorf("second %d: %d attempt values, want %d", k, got, want.Attempts[k])
		}
		if got := iv.Request.TotalCount(); got != want.Requests[k] {
			t.Errorf("second %d: %d request values, want %d", k, got, want.Requests[k])
		}
	}
	gotA, gotR := resultstest.MergedIntervals(t, ivs)
	if !gotA.Equals(want.Attempt) {
		t.Errorf("merged attempt intervals differ from every attempt recorded: %d values vs %d", gotA.TotalCount(), want.Attempt.TotalCount())
	}
	if !gotR.Equals(want.Request) {
		t.Errorf("merged request intervals differ from every request recorded: %d values vs %d", gotR.TotalCount(), want.Request.TotalCount())
	}
	fullA, fullR := rec.Histograms()
	if !fullA.Equals(want.Attempt) || !fullR.Equals(want.Request) {
		t.Error("Histograms differ from every value recorded")
	}
	// Asking again moves nothing twice.
	if a2, _ := resultstest.MergedIntervals(t, rec.Intervals()); !a2.Equals(want.Attempt) {
		t.Error("a second call to Intervals changed the intervals")
	}
}

func TestIntervalsClampToTheRun(t *testing.T) {
	rec := results.NewRecorder(2*time.Second, 1)
	s := rec.Shard(0)
	s.Attempt(results.Attempt{Sent: -time.Second, Latency: time.Millisecond})
	s.Attempt(results.Attempt{Sent: time.Hour, Latency: time.Millisecond})
	ivs := rec.Intervals()
	if len(ivs) != 2 || ivs[0].Attempt.TotalCount() != 1 || ivs[1].Attempt.TotalCount() != 1 {
		t.Fatalf("got %d intervals; want 2 with one value each (before the start -> first, after the end -> last)", len(ivs))
	}
}

func TestIntervalsConcurrent(t *testing.T) {
	const dur = 3 * time.Second
	rec := results.NewRecorder(dur, 4)
	var wg sync.WaitGroup
	const workers, per = 8, 3000
	for w := range workers {
		wg.Go(func() {
			s := rec.Shard(w)
			for i := range per {
				sent := time.Duration(float64(dur) * float64(i) / per)
				s.Attempt(results.Attempt{Sent: sent, Latency: time.Duration(w+1) * time.Millisecond, Number: 1})
				s.Request(results.Request{Start: sent, End: sent + time.Millisecond, Succeeded: true})
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

// BenchmarkShardAttempt measures the recording hot path: one attempt into a
// shard's histograms (whole run and current second) and the timeline, at a
// sparse and a dense rate per shard (the shard moves its second's histograms
// aside once per second of elapsed time, so the sparse rate pays most per
// attempt for that).
func BenchmarkShardAttempt(b *testing.B) {
	for _, rate := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("%d_per_s", rate), func(b *testing.B) {
			rec := results.NewRecorder(time.Hour, 1)
			s := rec.Shard(0)
			step := time.Second / time.Duration(rate)
			wrap := int(time.Hour / step)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s.Attempt(results.Attempt{Sent: time.Duration(i%wrap) * step, Latency: time.Duration(i%5000) * time.Microsecond, Number: 1})
			}
		})
	}
}

// TestIntervalsAroundTheShortList: a shard keeps an interval's first values
// as a list and the rest in a dense histogram; either way, and after a
// Reset, each second holds exactly the values that ended in it.
func TestIntervalsAroundTheShortList(t *testing.T) {
	counts := []int{1, 63, 64, 65, 200, 0, 3}
	rec := results.NewRecorder(time.Duration(len(counts))*time.Second, 1)
	for round := range 2 {
		s := rec.Shard(0)
		want := make([][2]*hdrhistogram.Histogram, len(counts))
		for k, n := range counts {
			want[k] = [2]*hdrhistogram.Histogram{results.NewHistogram(), results.NewHistogram()}
			for i := range n {
				sent := time.Duration(k)*time.Second + time.Duration(i)*time.Millisecond
				lat := time.Duration(100+37*i+round) * time.Microsecond
				s.Attempt(results.Attempt{Sent: sent, Latency: lat, Number: 1})
				s.Request(results.Request{Start: sent, End: sent + 2*lat, Succeeded: true})
				_ = want[k][0].RecordValue(lat.Microseconds())
				_ = want[k][1].RecordValue((2 * lat).Microseconds())
			}
		}
		ivs := rec.Intervals()
		if len(ivs) != len(counts) {
			t.Fatalf("round %d: %d intervals, want %d", round, len(ivs), len(counts))
		}
		for k, iv := range ivs {
			a, r := resultstest.MergedIntervals(t, ivs[k:k+1])
			if !a.Equals(want[k][0]) || !r.Equals(want[k][1]) {
				t.Errorf("round %d, second %d (%d values): attempts %d (want %d), requests %d (want %d), or their values differ",
					round, k, counts[k], iv.Attempt.TotalCount(), want[k][0].TotalCount(), iv.Request.TotalCount(), want[k][1].TotalCount())
			}
		}
		rec.Reset()
	}
}
