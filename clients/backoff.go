package clients

import (
	"fmt"
	"math"
	"time"

	"github.com/herdbench/herdbench/internal/kinds"
)

// Shape is the shape of a backoff: a handle on its registered kind
// (RegisterShape). The zero Shape is None.
type Shape uint8

// ShapeKind is a backoff shape: its name as written in scenarios, a line
// that says what it draws, and its wait. A shape is one file
// (backoff_*.go) that registers its kind at package initialization:
//
//	var Fibonacci = RegisterShape(ShapeKind{Name: "fibonacci", ...})
type ShapeKind struct {
	Name, Summary string
	// Next returns the wait after n ≥ 1 failed attempts, from the
	// previous wait prev (0 before the first retry) and a uniform draw u
	// in [0, 1): Backoff.Next. It must be pure.
	Next func(b Backoff, n int, prev time.Duration, u float64) time.Duration
	// Share, for a shape that is exponential with a jitter share, returns
	// that share for b (JitterShare); nil for a shape that draws its wait
	// otherwise.
	Share func(b Backoff) float64
}

var (
	// shapeKinds names the shapes: kind → its Shape, a panic on a duplicate.
	shapeKinds = kinds.New[Shape]("backoff shape")
	// shapes are the registered kinds, indexed by Shape.
	shapes []ShapeKind
)

// RegisterShape registers a backoff shape and returns its handle. It
// panics on a duplicate name, a missing Next, or more than 256 shapes.
func RegisterShape(k ShapeKind) Shape {
	if k.Next == nil || len(shapes) > math.MaxUint8 {
		panic(fmt.Sprintf("clients: backoff shape %q needs a Next, and there can be 256 at most", k.Name))
	}
	s := Shape(len(shapes))
	shapeKinds.Register(k.Name, k.Summary, func() Shape { return s })
	shapes = append(shapes, k)
	return s
}

// None retries at once. It is registered first, so it is the zero Shape.
var None = RegisterShape(ShapeKind{Name: "none", Summary: "retry at once",
	Next: func(Backoff, int, time.Duration, float64) time.Duration { return 0 }})

// String returns the shape's name as written in scenarios.
func (s Shape) String() string {
	if int(s) < len(shapes) {
		return shapes[s].Name
	}
	return fmt.Sprintf("Shape(%d)", uint8(s))
}

// ParseShape reads a shape name.
func ParseShape(name string) (Shape, bool) { return shapeKinds.Spec(name) }

// ShapeNames lists the valid shape names, sorted.
func ShapeNames() []string { return shapeKinds.Kinds() }

// ShapeSummary says what a shape draws, in a line.
func ShapeSummary(s Shape) string { return shapeKinds.Summary(s.String()) }

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
	if int(b.Shape) < len(shapes) && shapes[b.Shape].Share != nil {
		return shapes[b.Shape].Share(b), true
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
	if int(b.Shape) >= len(shapes) {
		return 0
	}
	return shapes[b.Shape].Next(b, n, prev, u)
}

// multiplier is the growth per failed attempt: Multiplier, 2 when zero.
func (b Backoff) multiplier() float64 {
	if b.Multiplier == 0 {
		return 2
	}
	return b.Multiplier
}
