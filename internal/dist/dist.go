package dist

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
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
	// LogNormal is A·e^(Shape·Z), Z standard normal: median A, the log's
	// standard deviation Shape. Heavy-tailed: each tail quantile a factor
	// e^Shape or so past the one before.
	LogNormal
	// Pareto is A / U^(1/Shape), U uniform on (0, 1]: never below A, the
	// tail falling as x^-Shape. A Shape of 1 or less has no finite mean.
	Pareto
)

var kindNames = [...]string{Constant: "constant", Uniform: "uniform", Exponential: "exponential", Normal: "normal", LogNormal: "lognormal", Pareto: "pareto"}

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
	// Shape is a heavy-tailed distribution's number without a unit:
	// LogNormal's sigma, Pareto's alpha.
	Shape float64
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
	case LogNormal:
		return clamp(float64(d.A) * math.Exp(d.Shape*r.NormFloat64()))
	case Pareto:
		return clamp(float64(d.A) / math.Pow(1-r.Float64(), 1/d.Shape))
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
	switch d.Kind {
	case Uniform:
		return (d.A + d.B) / 2
	case LogNormal:
		return clamp(float64(d.A) * math.Exp(d.Shape*d.Shape/2))
	case Pareto:
		if d.Shape <= 1 {
			return maxSample // no finite mean
		}
		return clamp(float64(d.A) * d.Shape / (d.Shape - 1))
	}
	return d.A
}

// Max returns the largest value a draw can take, or -1 when it is unbounded.
func (d Dist) Max() time.Duration {
	switch d.Kind {
	case Uniform:
		return d.B
	case Exponential, Normal, LogNormal, Pareto:
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
	case LogNormal, Pareto:
		return fmt.Sprintf("%s(%s, %s)", d.Kind, d.A, strconv.FormatFloat(d.Shape, 'g', -1, 64))
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

const forms = `a duration ("10ms"), "constant(10ms)", "uniform(5ms, 15ms)", "exponential(10ms)", "normal(10ms, 2ms)", "lognormal(2ms, 1.5)" or "pareto(1ms, 1.5)"`

// MaxShape is the largest shape a heavy-tailed distribution takes: a
// lognormal's sigma beyond it spans more than a day from a nanosecond, a
// Pareto's alpha beyond it is all but constant.
const MaxShape = 20

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
	if name == "lognormal" || name == "pareto" {
		return parseShaped(s, name, s[open+1:len(s)-1], fail)
	}
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

// parseShaped reads the arguments of a heavy-tailed distribution: a
// duration (lognormal's median, Pareto's minimum) and a shape, a number
// from above 0 to MaxShape.
func parseShaped(s, name, inner string, fail func(string) (Dist, error)) (Dist, error) {
	what := map[string]string{"lognormal": "the median and sigma, the log's standard deviation, e.g. lognormal(2ms, 1.5)", "pareto": "the minimum and alpha, the tail's exponent, e.g. pareto(1ms, 1.5)"}[name]
	a, b, ok := strings.Cut(inner, ",")
	if !ok || strings.Contains(b, ",") {
		return fail(fmt.Sprintf("%s takes 2 arguments, %s", name, what))
	}
	v, err := parseDuration(strings.TrimSpace(a))
	if err != nil {
		return fail(err.Error())
	}
	shape, err := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if err != nil || !(shape > 0 && shape <= MaxShape) { // NaN too
		return fail(fmt.Sprintf("its shape %q is not a number above 0 and at most %d; %s takes %s", strings.TrimSpace(b), MaxShape, name, what))
	}
	k := LogNormal
	if name == "pareto" {
		k = Pareto
	}
	return Dist{Kind: k, A: v, Shape: shape}, nil
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
