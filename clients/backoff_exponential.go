package clients

import "time"

// The exponential shapes, with v(n) = min(cap, base * multiplier^n) (Ceiling):
// Exponential draws v(n)·(1−F) + U(0, v(n)·F) with F = Jitter, 0 (the
// default) for no jitter, the stampede; Full and Equal are Exponential with
// a jitter share of 1 and 0.5, by name: they draw exactly what Exponential
// with that Jitter draws.
var (
	Exponential = RegisterShape(ShapeKind{Name: "exponential", Summary: "v(n)·(1−F) + U(0, v(n)·F), F = jitter (0: none, the stampede)",
		Next: exponentialNext, Share: func(b Backoff) float64 { return b.Jitter }})
	Full = RegisterShape(ShapeKind{Name: "full", Summary: "U(0, v(n)): full jitter, F = 1",
		Next: exponentialNext, Share: func(Backoff) float64 { return 1 }})
	Equal = RegisterShape(ShapeKind{Name: "equal", Summary: "v(n)/2 + U(0, v(n)/2): equal jitter, F = 0.5",
		Next: exponentialNext, Share: func(Backoff) float64 { return 0.5 }})
)

// exponentialNext is the exponential shapes' wait: the ceiling v(n) with
// the shape's jitter share of it drawn at random.
func exponentialNext(b Backoff, n int, _ time.Duration, u float64) time.Duration {
	f, _ := b.JitterShare()
	return jittered(b.Ceiling(n), f, u)
}
