package results

import (
	"testing"
	"time"
)

// A split at t keeps the latencies of the records that ended at or after
// t, exactly, whichever way the recorder records: per second or for the
// whole run, shared or unshared, and in a copy of what it recorded so
// far (Upto); Reset removes it.
func TestSplitAtEveryRecordingMode(t *testing.T) {
	modes := map[string]func() *Recorder{
		"shared, per second":      func() *Recorder { return NewRecorder(5*time.Second, 2) },
		"shared, whole run":       func() *Recorder { return NewRecorder(5*time.Second, 2).WithoutIntervals() },
		"unshared, per second":    func() *Recorder { return NewRecorder(5*time.Second, 1).Unshared() },
		"unshared, whole run":     func() *Recorder { return NewRecorder(5*time.Second, 1).WithoutIntervals().Unshared() },
		"upto of a shared one":    func() *Recorder { return NewRecorder(5*time.Second, 2) },
		"upto of a whole-run one": func() *Recorder { return NewRecorder(5*time.Second, 2).WithoutIntervals() },
	}
	for name, mk := range modes {
		t.Run(name, func(t *testing.T) {
			r := mk().SplitAt(2500 * time.Millisecond)
			// Attempts of 100 ms sent every 100 ms: those sent at 2.4 s on
			// end at 2.5 s or later; requests of 10 ms likewise.
			for i := range 40 {
				sent := time.Duration(i) * 100 * time.Millisecond
				s := r.Shard(i)
				s.Attempt(Attempt{Sent: sent, Latency: 100 * time.Millisecond, Number: 1, Outcome: OK})
				s.Request(Request{Start: sent + 90*time.Millisecond, End: sent + 100*time.Millisecond, Succeeded: true})
			}
			if len(name) > 4 && name[:4] == "upto" {
				r = r.Upto(4 * time.Second)
			}
			a, q, ok := r.After()
			if !ok {
				t.Fatal("no split")
			}
			if a.TotalCount() != 16 || q.TotalCount() != 16 {
				t.Errorf("after the split: %d attempts, %d requests; want the 16 that ended at 2.5 s or later", a.TotalCount(), q.TotalCount())
			}
			if ah, _ := r.Histograms(); ah.TotalCount() != 40 && ah.TotalCount() != 39 {
				t.Errorf("the whole run's histogram holds %d, the split must not take from it", ah.TotalCount())
			}
			r.Reset()
			if _, _, ok := r.After(); ok {
				t.Error("a split after Reset")
			}
		})
	}
	if _, _, ok := NewRecorder(time.Second, 1).After(); ok {
		t.Error("a split without SplitAt")
	}
}
