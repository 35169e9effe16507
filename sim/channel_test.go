package sim

import (
	"testing"
	"time"

	"google.golang.org/grpc/backoff"
)

// TestChannelBackoffIsGRPCGos: the channel's connection backoff is
// grpc-go's default (backoff.DefaultConfig) computed as
// internal/backoff's Exponential.Backoff computes it: the base delay
// exactly after the first failed attempt, then ×1.6 per attempt, capped,
// times 1 ± 20%.
func TestChannelBackoffIsGRPCGos(t *testing.T) {
	d := backoff.DefaultConfig
	if d.BaseDelay != ChannelBaseDelay || d.Multiplier != ChannelMultiplier || d.Jitter != ChannelJitter || d.MaxDelay != ChannelMaxDelay {
		t.Fatalf("grpc-go's default connection backoff is %+v; the model's is %s ×%v ±%v up to %s", d, ChannelBaseDelay, ChannelMultiplier, ChannelJitter, ChannelMaxDelay)
	}
	for _, c := range []struct {
		retries int
		u       float64
		want    time.Duration
	}{
		{0, 0, time.Second}, {0, 0.99, time.Second}, // no jitter on the first
		{1, 0.5, 1600 * time.Millisecond}, {1, 0, 1280 * time.Millisecond}, {1, 1, 1920 * time.Millisecond},
		{2, 0.5, 2560 * time.Millisecond}, {3, 0.5, 4096 * time.Millisecond},
		{30, 0.5, 120 * time.Second}, {30, 1, 144 * time.Second},
	} {
		if got := ChannelBackoff(c.retries, c.u); (got - c.want).Abs() > time.Microsecond {
			t.Errorf("ChannelBackoff(%d, %v) = %s, want %s", c.retries, c.u, got, c.want)
		}
	}
}
