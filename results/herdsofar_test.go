package results

import (
	"testing"
	"time"
)

// TestHerdSoFar: a recorder's herd factor so far is the herd factor of
// the timeline's attempts up to that instant, whole seconds only.
func TestHerdSoFar(t *testing.T) {
	r := NewRecorder(5*time.Second, 2)
	sh := r.Shard(0)
	for i := 0; i < 500; i++ {
		at := time.Duration(i) * Bucket
		n := 1
		if i%25 == 0 {
			n = 40 // a wave every 250 ms
		}
		for range n {
			sh.Attempt(Attempt{Sent: at, Latency: time.Millisecond, Number: 1, Outcome: Outcome(i % int(NumOutcomes))})
		}
	}
	attempts := r.Timeline(Bucket).Attempts()
	for _, c := range []struct {
		upto    time.Duration
		buckets int
	}{{900 * time.Millisecond, 0}, {time.Second, 100}, {2500 * time.Millisecond, 250}, {10 * time.Second, 500}} {
		want := 0.0
		if c.buckets > 0 {
			want = HerdFactor(attempts[:c.buckets], 0)
		}
		if got := r.HerdSoFar(c.upto); got != want {
			t.Errorf("HerdSoFar(%s) = %v, want %v", c.upto, got, want)
		}
	}
	if got := r.HerdSoFar(5 * time.Second); got < 5 {
		t.Errorf("HerdSoFar of waves = %v, want far above 1", got)
	}
	if n := testing.AllocsPerRun(10, func() { r.HerdSoFar(5 * time.Second) }); n > 1 { // the pool's handle
		t.Errorf("HerdSoFar allocates %v times", n)
	}
}
