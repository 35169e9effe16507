package live

import (
	"testing"

	"github.com/herdbench/herdbench/results"
)

// BenchmarkStep is one tick with ten viewers reading: two cohorts'
// snapshot, the frame's deltas, one encoding, the fan-out.
func BenchmarkStep(b *testing.B) {
	recs := []*results.Recorder{results.NewRecorder(60e9, 8), results.NewRecorder(60e9, 8)}
	var n int64
	s := New(Options{Source: func() Sample {
		n++
		recs[0].Shard(int(n)).Attempt(results.Attempt{Sent: 1e9, Number: 1})
		return Sample{Run: 1, Elapsed: 1e9, Duration: 60e9, Running: true,
			Cohorts: []Cohort{{Name: "no-jitter", Live: recs[0].Live()}, {Name: "full-jitter", Live: recs[1].Live()}}}
	}, Access: local})
	var vs []*viewer
	for range 10 {
		v, _, _, _ := s.subscribe("")
		vs = append(vs, v)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.step()
		for _, v := range vs {
			<-v.ch
		}
		if len(s.hist) >= History-1 {
			s.hist = s.hist[:0]
		}
	}
}
