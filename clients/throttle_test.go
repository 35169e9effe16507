package clients

import (
	"math"
	"testing"
	"time"
)

func TestThrottleProbability(t *testing.T) {
	tests := []struct {
		k                 float64
		requests, accepts int
		want              float64
	}{
		{2, 0, 0, 0},
		{2, 100, 100, 0},           // all accepted
		{2, 100, 50, 0},            // exactly K times fewer accepts: still 0
		{2, 100, 30, 40.0 / 101},   // (100 - 60) / 101
		{2, 100, 0, 100.0 / 101},   // nothing accepted
		{1.1, 100, 50, 45.0 / 101}, // a lower K throttles sooner
		{2, 1, 0, 0.5},
	}
	for _, tt := range tests {
		th := NewSREThrottle(SREThrottleConfig{K: tt.k, Window: 2 * time.Minute})
		for i := range tt.requests {
			th.Allow(0, 1) // u = 1 is never refused; it only counts the request
			if i < tt.accepts {
				th.Record(0, true)
			}
		}
		if got := th.Probability(0); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("K=%v requests=%d accepts=%d: p = %v, want %v", tt.k, tt.requests, tt.accepts, got, tt.want)
		}
	}
}

func TestThrottleAllow(t *testing.T) {
	th := NewSREThrottle(*defaultSpec(t, Throttles, "sre").(*SREThrottleConfig))
	for range 3 {
		th.Allow(0, 1)
	}
	// requests 3, accepts 0: p = 3/4.
	if th.Allow(0, 0.7499) {
		t.Fatal("u below p allowed")
	}
	// The refusal counted as a request: 4 requests, p = 4/5.
	if got := th.Probability(0); got != 0.8 {
		t.Fatalf("p = %v after a refusal, want 0.8: local rejections count as requests", got)
	}
	if !th.Allow(0, 0.8) {
		t.Fatal("u = p refused")
	}
	// After the 2-minute window the counts are gone.
	if got := th.Probability(2*time.Minute + time.Second); got != 0 {
		t.Fatalf("p = %v a window later, want 0", got)
	}
	d := defaultSpec(t, Throttles, "sre").(*SREThrottleConfig)
	if d.K != 2 || d.Window != 2*time.Minute {
		t.Fatalf("the sre throttle's defaults = %+v; want the SRE book's K = 2 over 2 minutes", d)
	}
}
