package clients

import "time"

// Decorrelated draws min(cap, U(base, 3*prev)), prev starting at base
// (AWS's "decorrelated jitter"): it grows from its previous wait, so it
// comes back down.
var Decorrelated = RegisterShape(ShapeKind{Name: "decorrelated", Summary: "min(cap, U(base, 3·prev)), prev starting at base",
	Next: func(b Backoff, _ int, prev time.Duration, u float64) time.Duration {
		if prev <= 0 {
			prev = b.Base
		}
		hi := 3 * float64(prev)
		w := float64(b.Base) + u*(hi-float64(b.Base))
		return min(b.Cap, time.Duration(w))
	}})
