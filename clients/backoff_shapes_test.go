package clients

import (
	"testing"
	"time"
)

func TestGRPCAndEnvoyShapes(t *testing.T) {
	grpc := Backoff{Shape: GRPC, Base: 100 * time.Millisecond, Cap: time.Second, Multiplier: 2}
	envoy := Backoff{Shape: Envoy, Base: 25 * time.Millisecond, Cap: 250 * time.Millisecond}
	tests := []struct {
		b    Backoff
		n    int
		u    float64
		want time.Duration
	}{
		// gRPC A6: min(initial * mult^(n-1), max) * U(0.8, 1.2).
		{grpc, 1, 0, 80 * time.Millisecond},
		{grpc, 1, 0.5, 100 * time.Millisecond},
		{grpc, 2, 0.5, 200 * time.Millisecond},
		{grpc, 3, 1, 480 * time.Millisecond},
		{grpc, 5, 0.5, time.Second}, // 1.6 s capped at 1 s
		{grpc, 5, 1, 1200 * time.Millisecond},
		// Envoy: U(0, (2^n - 1) * 25ms), the wait capped at 250 ms.
		{envoy, 1, 0.5, 12500 * time.Microsecond},
		{envoy, 2, 1, 75 * time.Millisecond},
		{envoy, 3, 0.5, 87500 * time.Microsecond},
		{envoy, 4, 0.5, 187500 * time.Microsecond},
		{envoy, 4, 0.9, 250 * time.Millisecond},
		{envoy, 2000, 0, 0}, // the range overflows; u = 0 still waits 0
		{envoy, 2000, 0.5, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := tt.b.Next(tt.n, 0, tt.u); got != tt.want {
			t.Errorf("%s: Next(%d, 0, %v) = %s, want %s", tt.b.Shape, tt.n, tt.u, got, tt.want)
		}
	}
	for _, name := range []string{"grpc", "envoy"} {
		if s, ok := ParseShape(name); !ok || s.String() != name {
			t.Errorf("ParseShape(%q) = %v, %v", name, s, ok)
		}
	}
}

// Fibonacci waits what sethvargo/go-retry's NewFibonacci(1 s) waits
// before retries 1 to 6 (1, 2, 3, 5, 8, 13 s), then the cap.
func TestFibonacciShape(t *testing.T) {
	b := Backoff{Shape: Fibonacci, Base: time.Second, Cap: 20 * time.Second}
	for n, want := range []time.Duration{1, 2, 3, 5, 8, 13, 20, 20} {
		if got := b.Next(n+1, 0, 0.7); got != want*time.Second {
			t.Errorf("Next(%d) = %s, want %s", n+1, got, want*time.Second)
		}
	}
	if got := b.Next(1<<20, 0, 0); got != b.Cap {
		t.Errorf("Next(2^20) = %s, want the cap", got)
	}
}
