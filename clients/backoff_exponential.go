package clients

import "time"

// The exponential shapes, with v(n) = min(cap, base * multiplier^n) (Ceiling):
// Exponential draws v(n)·(1−F) + U(0, v(n)·F) with F = Jitter, 0 (the
// default) for no jitter, the stampede; Full and Equal are Exponential with
// a jitter share of 1 and 0.5, by name: they draw exactly what Exponential
// with that Jitter draws.
var (
	Exponential = RegisterShape(ShapeKind{Name: "exponential", Summary: "v(n)·(1−F) + U(0, v(n)·F), F = jitter (0: none, the stampede)",
		Next: func(b Backoff, n int, _ time.Duration, u float64) time.Duration {
			return jittered(b.Ceiling(n), b.Jitter, u)
		},
		Share: func(b Backoff) float64 { return b.Jitter }})
	Full = RegisterShape(ShapeKind{Name: "full", Summary: "U(0, v(n)): full jitter, F = 1",
		Next:  func(b Backoff, n int, _ time.Duration, u float64) time.Duration { return jittered(b.Ceiling(n), 1, u) },
		Share: func(Backoff) float64 { return 1 }})
	Equal = RegisterShape(ShapeKind{Name: "equal", Summary: "v(n)/2 + U(0, v(n)/2): equal jitter, F = 0.5",
		Next: func(b Backoff, n int, _ time.Duration, u float64) time.Duration {
			return jittered(b.Ceiling(n), 0.5, u)
		},
		Share: func(Backoff) float64 { return 0.5 }})
)
