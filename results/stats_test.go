package results

import (
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func f(v float64) *float64 { return &v }

func TestStatOf(t *testing.T) {
	for _, c := range []struct {
		values []*float64
		want   Stat
	}{
		{nil, Stat{}},
		{[]*float64{f(3)}, Stat{N: 1, Mean: 3, Min: 3, Max: 3}},
		{[]*float64{f(2), f(4), f(4), f(4), f(5), f(5), f(7), f(9)}, Stat{N: 8, Mean: 5, SD: 2.13809, Min: 2, Max: 9}},
		{[]*float64{f(1), nil, f(3)}, Stat{N: 2, Mean: 2, SD: 1.414214, Min: 1, Max: 3}},
	} {
		got := StatOf(c.values)
		got.Values = nil
		got.SD = round(got.SD, 5)
		c.want.SD = round(c.want.SD, 5)
		if got.N != c.want.N || got.Mean != c.want.Mean || got.SD != c.want.SD || got.Min != c.want.Min || got.Max != c.want.Max {
			t.Errorf("StatOf(%d values) = %+v, want %+v", len(c.values), got, c.want)
		}
	}
}

// TestPercentilesMax: the one-pass percentiles give exactly what the
// histogram's own quantile and Max give.
func TestPercentilesMax(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	h := hdrhistogram.New(histMin, histMax, histSigF)
	for i := 0; i < 5000; i++ {
		_ = h.RecordValue(int64(r.ExpFloat64() * 50000))
	}
	p := PercentilesOf(h)
	ms := func(us int64) float64 { return round(float64(us)/1000, 3) }
	if p.P50 != ms(h.ValueAtQuantile(50)) || p.P999 != ms(h.ValueAtQuantile(99.9)) || p.Max != ms(h.Max()) {
		t.Fatalf("%+v", p)
	}
}

// TestRecorderResetAndEnd: SetEnd cuts the timelines at the end; Reset
// empties everything for the next run.
func TestRecorderResetAndEnd(t *testing.T) {
	r := NewRecorder(10*time.Second, 1)
	s := r.Shard(0)
	s.Started(0)
	s.Attempt(Attempt{Sent: 1234 * time.Millisecond, Latency: time.Millisecond, Number: 1, Outcome: OK})
	s.Request(Request{Start: 0, End: 1235 * time.Millisecond, Succeeded: true})
	r.Call(1234 * time.Millisecond)
	r.SetEnd(1235 * time.Millisecond)
	if rows := len(r.Timeline(Bucket).Rows); rows != 124 {
		t.Fatalf("%d rows after SetEnd(1.235s), want 124", rows)
	}
	if r.LastEnd() != 1235*time.Millisecond || r.Calls() != 1 {
		t.Fatalf("last end %s, calls %d", r.LastEnd(), r.Calls())
	}
	run := Summarize(Cohort{Strategy: "x", Rec: r, OCC: true, OneShot: true}, Window{})
	if *run.CompletionS != 1.235 || *run.Calls != 1 || *run.PeakCallsPer10ms != 1 {
		t.Fatalf("%+v", run)
	}
	r.Reset()
	tl := r.Timeline(Bucket)
	if len(tl.Rows) != 1000 || r.Live() != (Live{}) || r.Calls() != 0 || r.LastEnd() != 0 {
		t.Fatalf("after Reset: %d rows, %+v", len(tl.Rows), r.Live())
	}
	for _, row := range tl.Rows {
		if row != ([NumSeries]int64{}) {
			t.Fatal("a count survived Reset")
		}
	}
	if a, q := r.Histograms(); a.TotalCount() != 0 || q.TotalCount() != 0 {
		t.Fatal("histograms survived Reset")
	}
}
