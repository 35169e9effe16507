package clients

import (
	"fmt"
	"math"
	"time"
)

// Shape is the shape of a backoff.
type Shape uint8

// Backoff shapes, with v(n) = min(cap, base * multiplier^n). Full and
// Equal are Exponential with a jitter share of 1 and 0.5, by name: they
// draw exactly what Exponential with that Jitter draws.
const (
	None         Shape = iota // 0: retry at once
	Constant                  // base
	Exponential               // v(n)·(1−F) + U(0, v(n)·F), F = Jitter: 0 (the default) is no jitter, the stampede
	Full                      // U(0, v(n)): full jitter, F = 1
	Equal                     // v(n)/2 + U(0, v(n)/2): equal jitter, F = 0.5
	Decorrelated              // min(cap, U(base, 3*prev)), prev starting at base
	GRPC                      // v(n-1) * U(0.8, 1.2): gRFC A6 (revised 2024) and grpc-go's stream.go, the first retry after about base
	Envoy                     // min(cap, U(0, (multiplier^n - 1) * base)): Envoy's router
)

var shapeNames = [...]string{None: "none", Constant: "constant", Exponential: "exponential", Full: "full", Equal: "equal", Decorrelated: "decorrelated", GRPC: "grpc", Envoy: "envoy"}

// String returns the shape's name as written in scenarios.
func (s Shape) String() string {
	if int(s) < len(shapeNames) {
		return shapeNames[s]
	}
	return fmt.Sprintf("Shape(%d)", uint8(s))
}

// ParseShape reads a shape name.
func ParseShape(name string) (Shape, bool) {
	for i, n := range shapeNames {
		if n == name {
			return Shape(i), true
		}
	}
	return 0, false
}

// ShapeNames lists the valid shape names.
func ShapeNames() []string { return shapeNames[:] }

// Backoff is an immutable backoff policy.
type Backoff struct {
	Shape      Shape
	Base       time.Duration
	Cap        time.Duration
	Multiplier float64 // growth per failed attempt; 2 when zero
	// Jitter is Exponential's jitter share F, from 0 to 1: the part of
	// the ceiling v(n) that is drawn at random. The wait is
	// v(n)·(1−F) + U(0, v(n)·F): 0 waits v(n) exactly (every client that
	// failed together retries together), 1 draws from the whole range
	// [0, v(n)] (full jitter), 0.5 from its upper half (equal jitter).
	// Other shapes ignore it; Full and Equal have their own share
	// (JitterShare).
	Jitter float64
}

// JitterShare returns the jitter share F of an exponential shape: Jitter
// for Exponential, 1 for Full, 0.5 for Equal. ok is false for the other
// shapes, which draw their waits otherwise.
func (b Backoff) JitterShare() (f float64, ok bool) {
	switch b.Shape {
	case Exponential:
		return b.Jitter, true
	case Full:
		return 1, true
	case Equal:
		return 0.5, true
	}
	return 0, false
}

// jittered returns t·(1−f) + u·(t·f): the ceiling t with a share f of it
// drawn at random. The explicit conversions round each product on its own
// (no fused multiply-add), so Full and Equal draw, bit for bit, what their
// own formulas U(0, t) and t/2 + U(0, t/2) drew.
func jittered(t time.Duration, f, u float64) time.Duration {
	if f == 0 {
		return t
	}
	v := float64(t)
	fixed := float64(v * (1 - f))
	drawn := float64(u * float64(v*f))
	return time.Duration(fixed + drawn)
}

// Ceiling returns v(n) = min(cap, base * multiplier^n), the exponential
// ceiling after n failed attempts.
func (b Backoff) Ceiling(n int) time.Duration {
	m := b.Multiplier
	if m == 0 {
		m = 2
	}
	var v float64
	if m == 2 {
		v = math.Ldexp(float64(b.Base), n) // the same value as Pow, without its cost
	} else {
		v = float64(b.Base) * math.Pow(m, float64(n))
	}
	if c := float64(b.Cap); v > c || math.IsInf(v, 0) || math.IsNaN(v) {
		return b.Cap
	}
	return time.Duration(v)
}

// Next returns the wait before the next attempt, after n ≥ 1 failed
// attempts. prev is the previous wait (0 before the first retry) and u a
// uniform draw in [0, 1). Next is pure: the same arguments give the same
// wait.
func (b Backoff) Next(n int, prev time.Duration, u float64) time.Duration {
	switch b.Shape {
	case Constant:
		return b.Base
	case Exponential, Full, Equal:
		f, _ := b.JitterShare()
		return jittered(b.Ceiling(n), f, u)
	case Decorrelated:
		if prev <= 0 {
			prev = b.Base
		}
		hi := 3 * float64(prev)
		w := float64(b.Base) + u*(hi-float64(b.Base))
		return min(b.Cap, time.Duration(w))
	case GRPC:
		return time.Duration((0.8 + 0.4*u) * float64(b.Ceiling(n-1)))
	case Envoy:
		m := b.Multiplier
		if m == 0 {
			m = 2
		}
		w := u * float64(b.Base) * (math.Pow(m, float64(n)) - 1)
		switch {
		case math.IsNaN(w): // u = 0 times an overflowed range
			return 0
		case w >= float64(b.Cap):
			return b.Cap
		}
		return time.Duration(w)
	default:
		return 0
	}
}
