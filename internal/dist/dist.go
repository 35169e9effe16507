package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Kind names the shape of a distribution.
type Kind uint8

// The distribution shapes.
const (
	Constant    Kind = iota // always A
	Uniform                 // uniform on [A, B)
	Exponential             // exponential with mean A
	Normal                  // |Normal(mean A, standard deviation B)|
)

var kindNames = [...]string{Constant: "constant", Uniform: "uniform", Exponential: "exponential", Normal: "normal"}

// String returns the name used in scenarios.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Dist is a distribution of durations. The zero value is the constant 0.
type Dist struct {
	Kind Kind
	A, B time.Duration
}

// Const returns the distribution that always gives d.
func Const(d time.Duration) Dist { return Dist{Kind: Constant, A: d} }

// Sample draws one duration using r. Constant distributions do not touch r,
// so they never shift the caller's random stream.
func (d Dist) Sample(r *rand.Rand) time.Duration {
	switch d.Kind {
	case Uniform:
		return d.A + time.Duration(r.Float64()*float64(d.B-d.A))
	case Exponential:
		return clamp(r.ExpFloat64() * float64(d.A))
	case Normal:
		return NormalDraw(float64(d.A), float64(d.B), r.NormFloat64())
	default:
		return d.A
	}
}

// maxSample bounds a draw of an unbounded distribution: far beyond any
// run (a hundred times MaxDuration), yet far below time.Duration's limit, so
// that a time plus a draw never overflows. The standard library's
// exponential and normal draws are +Inf once in 2^53 (a uniform draw of
// exactly 0 in their tails), which time.Duration would turn negative.
const maxSample = 100 * MaxDuration

// NormalDraw is the draw of a Normal distribution of mean and standard
// deviation sd (in nanoseconds) that z, a standard normal draw, gives: the
// same as Sample's, for a caller that keeps mean and sd as floats and
// draws z itself (a network hop, four times an OCC attempt).
func NormalDraw(mean, sd, z float64) time.Duration { return clamp(math.Abs(mean + z*sd)) }

func clamp(ns float64) time.Duration {
	if !(ns < float64(maxSample)) { // +Inf and NaN too
		return maxSample
	}
	return time.Duration(ns)
}

// Mean returns the expected value of a draw (for Normal, of the normal
// before taking the absolute value, which is what scenarios mean by it).
func (d Dist) Mean() time.Duration {
	if d.Kind == Uniform {
		return (d.A + d.B) / 2
	}
	return d.A
}

// Max returns the largest value a draw can take, or -1 when it is unbounded.
func (d Dist) Max() time.Duration {
	switch d.Kind {
	case Uniform:
		return d.B
	case Exponential, Normal:
		if d.A == 0 && d.B == 0 {
			return 0
		}
		return -1
	default:
		return d.A
	}
}

// IsZero reports whether every draw is zero.
func (d Dist) IsZero() bool { return d.Max() == 0 }

// String writes d the way Parse reads it.
func (d Dist) String() string {
	switch d.Kind {
	case Uniform, Normal:
		return fmt.Sprintf("%s(%s, %s)", d.Kind, d.A, d.B)
	case Exponential:
		return fmt.Sprintf("%s(%s)", d.Kind, d.A)
	default:
		return d.A.String()
	}
}

// MaxDuration is the longest duration a distribution may name, and the
// longest of any duration in a scenario: a day. Longer ones are refused, so
// that every time herdbench computes (a send time plus a wait, a fault's
// start plus its length) stays far from time.Duration's limit of 292
// years, whatever is added to it.
const MaxDuration = 24 * time.Hour

// ErrSyntax is wrapped by every error Parse returns.
var ErrSyntax = errors.New("invalid distribution")

const forms = `a duration ("10ms"), "constant(10ms)", "uniform(5ms, 15ms)", "exponential(10ms)" or "normal(10ms, 2ms)"`

// Parse reads a distribution written as a plain duration ("10ms") or as
// kind(args): constant(d), uniform(min, max), exponential(mean),
// normal(mean, sd). Durations use time.ParseDuration syntax and go from 0
// to MaxDuration.
func Parse(s string) (Dist, error) {
	s = strings.TrimSpace(s)
	fail := func(why string) (Dist, error) {
		return Dist{}, fmt.Errorf("%w %q: %s; write %s", ErrSyntax, s, why, forms)
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		v, err := parseDuration(s)
		if err != nil {
			return Dist{}, fmt.Errorf("%w: %v; write %s", ErrSyntax, err, forms)
		}
		return Const(v), nil
	}
	if !strings.HasSuffix(s, ")") {
		return fail("missing closing parenthesis")
	}
	name := strings.ToLower(strings.TrimSpace(s[:open]))
	var args []time.Duration
	for _, f := range strings.Split(s[open+1:len(s)-1], ",") {
		v, err := parseDuration(strings.TrimSpace(f))
		if err != nil {
			return fail(err.Error())
		}
		args = append(args, v)
	}
	want := map[string]int{"constant": 1, "uniform": 2, "exponential": 1, "normal": 2}
	n, ok := want[name]
	if !ok {
		return fail(fmt.Sprintf("unknown kind %q", name))
	}
	if len(args) != n {
		return fail(fmt.Sprintf("%s takes %d argument(s), got %d", name, n, len(args)))
	}
	switch name {
	case "constant":
		return Const(args[0]), nil
	case "uniform":
		if args[1] < args[0] {
			return fail("the maximum is below the minimum")
		}
		return Dist{Kind: Uniform, A: args[0], B: args[1]}, nil
	case "exponential":
		return Dist{Kind: Exponential, A: args[0]}, nil
	default:
		return Dist{Kind: Normal, A: args[0], B: args[1]}, nil
	}
}

func parseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("empty duration")
	}
	if s == "0" {
		return 0, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (a number with a unit)", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q is negative", s)
	}
	if v > MaxDuration {
		return 0, fmt.Errorf("%q is more than a day (24h), the longest duration herdbench takes", s)
	}
	return v, nil
}
