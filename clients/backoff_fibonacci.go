package clients

import (
	"math"
	"time"
)

// Fibonacci waits base·F(n+1) after n failed attempts, F the Fibonacci
// numbers (1, 1, 2, 3, 5, ...): base, 2·base, 3·base, 5·base, 8·base, ...,
// capped, with no jitter. It is sethvargo/go-retry's NewFibonacci
// (backoff_fibonacci.go: each wait the sum of the two before, starting
// from 0 and base).
var Fibonacci = RegisterShape(ShapeKind{Name: "fibonacci", Summary: "min(cap, base·F(n+1)): base, 2·base, 3·base, 5·base, ... (Fibonacci), no jitter",
	Next: func(b Backoff, n int, _ time.Duration, _ float64) time.Duration {
		prev, cur := 0.0, 1.0 // F(0), F(1)
		for i := 0; i < n; i++ {
			prev, cur = cur, prev+cur
			if cur*float64(b.Base) >= float64(b.Cap) {
				return b.Cap
			}
		}
		v := cur * float64(b.Base)
		if v >= float64(b.Cap) || math.IsInf(v, 0) {
			return b.Cap
		}
		return time.Duration(v)
	}})
