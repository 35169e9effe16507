package clients

import (
	"math"
	"time"
)

// Envoy draws min(cap, U(0, (multiplier^n - 1) * base)): Envoy's router.
var Envoy = RegisterShape(ShapeKind{Name: "envoy", Summary: "min(cap, U(0, (multiplier^n − 1)·base)): Envoy's router",
	Next: func(b Backoff, n int, _ time.Duration, u float64) time.Duration {
		w := u * float64(b.Base) * (math.Pow(b.multiplier(), float64(n)) - 1)
		switch {
		case math.IsNaN(w): // u = 0 times an overflowed range
			return 0
		case w >= float64(b.Cap):
			return b.Cap
		}
		return time.Duration(w)
	}})
