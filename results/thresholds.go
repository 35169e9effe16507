package results

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A threshold is a release gate on the figures of a run: "amplification <=
// 1.5", "recovery_s <= 5s", "latency.request.p99 < 2s", "success_ratio >=
// 99%", "mean(herd_factor) < 3", or a claim that compares cohorts,
// "herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]". Grammar:
//
//	threshold = side op side
//	side      = term { ("*" | "/") term }   (at most one figure on each
//	                                         side of a "/": a ratio of two)
//	term      = figure | number
//	figure    = ref | "mean(" ref ")"
//	ref       = ["tiers[" tier "]."] metric ["[" selector "]"]
//	selector  = item { "," item }
//	item      = cohort | '"' cohort '"' | field "=" value
//	metric    = a metric of the metric table (run.go): a numeric field
//	            of a run in summary.json, dotted: amplification,
//	            recovery_s, latency_ms.request.p99, outcomes.reset, ...
//	          | "latency." ("attempt"|"request") "." percentile
//	            (latency_ms with the value written as a duration)
//	op        = "<" | "<=" | ">" | ">=" | "=="
//
// A side without a figure is one value, in the unit of the figure on the
// other side:
//
//	value     = number       (in the metric's Unit)
//	          | number "%"   (for Ratio metrics: 99% is 0.99)
//	          | duration     ("250ms", "2s": for Millis metrics, in ms,
//	                          and for Seconds metrics, in seconds)
//	          | "never"      (for Seconds metrics: the null of a cohort
//	                          that never recovered, or never finished)
//
// The left side has a figure. A figure without a cohort is the cohort the
// threshold is checked on: written under a strategy, that strategy's; at
// the top of the file, each cohort's in turn, unless every figure of it
// names its cohort, when it is checked once. A selector's field=value
// names a point of the scenario's sweep by a swept field (its path, or the
// last key of it: "jitter" for strategies[jittered].jitter) and its value:
// "herd_factor[jitter=0.05] >= 5 * herd_factor[jitter=1]" compares two
// points of a sweep, checked once every point has run, at the points the
// left side names (the fields it does not name are the point's own). A
// tier's figure (tiers[service].amplification) is what reached that tier
// of a chain. Both sides are in one unit (a ratio of two figures has
// none).
//
// A null figure (recovery_s when the target never recovered within the
// run) counts as +∞: it fails every upper bound and passes lower bounds;
// "recovery_s[naive] == never" holds only for null. A ratio of two nulls,
// or of two zeros, is undefined and fails. Thresholds compare the figures
// as summary.json records them (rounded).
//
// With repetitions (--runs K), a threshold holds only if it holds in every
// repetition (the figures of one repetition against each other);
// mean(metric) compares instead the mean of the metric over the
// repetitions (null if it is null in any), on every figure of the
// threshold or none. Without repetitions the mean is the figure itself. A
// sweep checks every threshold at every point.

// Op is a threshold's comparison.
type Op uint8

// Comparisons.
const (
	Less Op = iota
	LessEq
	Greater
	GreaterEq
	Equal
)

var opNames = [...]string{Less: "<", LessEq: "<=", Greater: ">", GreaterEq: ">=", Equal: "=="}

// String returns the operator as written.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Holds reports whether v op limit. A NaN v (a null figure) is +∞.
func (o Op) Holds(v, limit float64) bool {
	if math.IsNaN(v) {
		v = math.Inf(1)
	}
	switch o {
	case Less:
		return v < limit
	case LessEq:
		return v <= limit
	case Greater:
		return v > limit
	case GreaterEq:
		return v >= limit
	case Equal:
		return v == limit
	}
	return false
}

// Threshold is one parsed gate.
type Threshold struct {
	Cohort string // the cohort it applies to; "" for every cohort
	Expr   string // as written
	// Metric is the left side's (first) figure's metric, the summary.json
	// path, e.g. "latency_ms.request.p99".
	Metric string
	// Mean compares the metrics' means over the repetitions, rather than
	// the metrics in each of them: "mean(metric) op value".
	Mean bool
	Op   Op
	// Limit is the right side when it is a value (in the metric's unit:
	// ms for latency_ms, s for *_s; +Inf for never); 0 when it reads a
	// figure.
	Limit float64
	// Left and Right are the two sides.
	Left, Right Side
}

// Side is one side of a threshold: Factor × Num / Den. Without Num it is
// the value Factor; without Den it is no ratio.
type Side struct {
	Factor   float64
	Num, Den *Ref
}

// Ref is one figure a threshold reads.
type Ref struct {
	Text   string // as written, without mean(...): "herd_factor[no-jitter]"
	Metric string // its metric, as in the metric table
	Tier   string // the tier of a chain it is read at; "" for the cohort's own figures
	// Cohort is the cohort it is read from; "" for the cohort the
	// threshold is checked on.
	Cohort string
	// Point is the point of a sweep it is read at: swept fields, each by
	// its path or last key, and their values; nil for the point the
	// threshold is checked at.
	Point []Setting
	// alias: written latency.…, whose values are durations.
	alias bool
}

// refs returns the figures the threshold reads, left to right.
func (th *Threshold) refs() []*Ref {
	var out []*Ref
	for _, r := range []*Ref{th.Left.Num, th.Left.Den, th.Right.Num, th.Right.Den} {
		if r != nil {
			out = append(out, r)
		}
	}
	return out
}

// Cohorts returns the cohorts the threshold names, in the order written,
// each once.
func (th *Threshold) Cohorts() []string {
	var out []string
	for _, r := range th.refs() {
		if r.Cohort != "" && !contains(out, r.Cohort) {
			out = append(out, r.Cohort)
		}
	}
	return out
}

// Tiers returns the tiers the threshold names, each once.
func (th *Threshold) Tiers() []string {
	var out []string
	for _, r := range th.refs() {
		if r.Tier != "" && !contains(out, r.Tier) {
			out = append(out, r.Tier)
		}
	}
	return out
}

// Points returns the settings of sweep points the threshold names.
func (th *Threshold) Points() []Setting {
	var out []Setting
	for _, r := range th.refs() {
		out = append(out, r.Point...)
	}
	return out
}

// Metrics returns the metrics the threshold reads, each once.
func (th *Threshold) Metrics() []string {
	var out []string
	for _, r := range th.refs() {
		if !contains(out, r.Metric) {
			out = append(out, r.Metric)
		}
	}
	return out
}

// Fixed reports whether the threshold is checked once rather than on each
// cohort: every figure it reads names its cohort.
func (th *Threshold) Fixed() bool {
	for _, r := range th.refs() {
		if r.Cohort == "" {
			return false
		}
	}
	return true
}

// AcrossPoints reports whether the threshold reads a figure at another
// point of a sweep than the one it is checked at: it is checked once every
// point has run (CheckPoints), not with each point (CheckThresholds).
func (th *Threshold) AcrossPoints() bool { return len(th.Points()) > 0 }

// simple reports whether the threshold is "metric op value" on the cohort
// it is checked on: its results say no more than the figure.
func (th *Threshold) simple() bool {
	l := th.Left.Num
	return th.Right.Num == nil && th.Left.Den == nil && th.Left.Factor == 1 &&
		l.Cohort == "" && l.Tier == "" && len(l.Point) == 0
}

func contains(list []string, s string) bool { return slices.Contains(list, s) }

// opMeant maps comparisons written as other languages or habits spell
// them to the one meant.
var opMeant = map[string]string{"=<": "<=", "=>": ">=", "=": "==", "<<": "<", ">>": ">"}

// ErrThreshold is matched (errors.Is) by ParseThreshold's errors.
var ErrThreshold = errors.New("invalid threshold")

// UnknownMetricError is ParseThreshold's error for a metric name that is
// not a figure of summary.json.
type UnknownMetricError struct{ Metric string }

func (e *UnknownMetricError) Error() string {
	return fmt.Sprintf("unknown metric %q; metrics: %s", e.Metric, MetricHelp())
}

// Is makes errors.Is(err, ErrThreshold) true.
func (e *UnknownMetricError) Is(target error) bool { return target == ErrThreshold }

// ParseThreshold reads "side op side" (the grammar above).
func ParseThreshold(expr string) (Threshold, error) {
	th := Threshold{Expr: strings.TrimSpace(expr)}
	i := outside(th.Expr, func(r byte) bool { return strings.IndexByte("<>=!", r) >= 0 })
	if i < 0 {
		i = strings.IndexAny(th.Expr, "<>=!") // in brackets never closed: the figure's problem
	}
	if i < 0 {
		return th, fmt.Errorf("%w: %q has no comparison; write metric op value, e.g. amplification <= 1.5 (ops: < <= > >= ==)", ErrThreshold, th.Expr)
	}
	left, rest := strings.TrimSpace(th.Expr[:i]), th.Expr[i:]
	opText := rest[:len(rest)-len(strings.TrimLeft(rest, "<>=!"))]
	op := -1
	for j, n := range opNames {
		if n == opText {
			op = j
		}
	}
	if op < 0 {
		if meant, ok := opMeant[opText]; ok {
			return th, fmt.Errorf("%w: %q: unknown comparison %q (did you mean %q?); use one of < <= > >= ==", ErrThreshold, th.Expr, opText, meant)
		}
		return th, fmt.Errorf("%w: %q: unknown comparison %q; use one of < <= > >= ==", ErrThreshold, th.Expr, opText)
	}
	th.Op = Op(op)
	right := strings.TrimSpace(rest[len(opText):])
	if left == "" {
		return th, fmt.Errorf("%w: %q has no metric before %s; write e.g. amplification %s 1.5", ErrThreshold, th.Expr, opText, opText)
	}
	if right == "" {
		return th, fmt.Errorf("%w: %q has no value after %s; write e.g. %s %s 1.5", ErrThreshold, th.Expr, opText, left, opText)
	}
	var err error
	if th.Left, th.Mean, err = parseSide(left, true); err != nil {
		return th, wrapThreshold(th.Expr, err)
	}
	th.Metric = th.Left.Num.Metric
	if err := th.parseRight(right); err != nil {
		return th, wrapThreshold(th.Expr, err)
	}
	return th, nil
}

// wrapThreshold makes err one of ParseThreshold's: an unknown metric as
// it is, any other problem prefixed with the expression.
func wrapThreshold(expr string, err error) error {
	var um *UnknownMetricError
	if errors.As(err, &um) {
		return um
	}
	return fmt.Errorf("%w: %q: %s", ErrThreshold, expr, err)
}

// parseRight reads the right side: a value in the left side's unit, or
// figures in the same unit.
func (th *Threshold) parseRight(text string) error {
	lu, lunit := th.Left.unit()
	if !hasFigure(text) {
		if th.Left.Den != nil {
			m := Metric{Name: "a ratio of two figures", Unit: Number}
			limit, err := parseLimit(m, text, false)
			if err != nil {
				return err
			}
			th.Right, th.Limit = Side{Factor: limit}, limit
			return checkLimit(m, text, limit)
		}
		m, _ := LookupMetric(th.Metric)
		limit, err := th.value(m, text)
		if err != nil {
			return err
		}
		th.Right, th.Limit = Side{Factor: limit}, limit
		return nil
	}
	right, mean, err := parseSide(text, false)
	if err != nil {
		return err
	}
	if mean != th.Mean {
		return errors.New("write mean(...) on every figure of a threshold or on none")
	}
	if ru, runit := right.unit(); lu != ru {
		return fmt.Errorf("it compares %s with %s; compare figures of one unit, or a ratio of two with a number", lunit, runit)
	}
	th.Right = right
	return nil
}

// value reads a value of metric m's unit: a number, a percentage, a
// duration, or never; the latency.… alias needs a duration.
func (th *Threshold) value(m Metric, text string) (float64, error) {
	l := th.Left.Num
	if th.Left.Factor != 1 {
		return 0, fmt.Errorf("a factor scales a figure compared with another; against a value, write the figure alone (%s %s …)", l.Text, th.Op)
	}
	if text == "never" {
		if m.Unit != Seconds {
			return 0, fmt.Errorf("never is for a time that may never come (recovery_s, completion_s); %s always has a value", m.Name)
		}
		switch th.Op {
		case LessEq:
			return 0, fmt.Errorf("%s <= never always holds; write < never (it recovered) or == never (it never did)", l.Text)
		case Greater:
			return 0, fmt.Errorf("%s > never never holds; write < never (it recovered) or == never (it never did)", l.Text)
		}
		return math.Inf(1), nil
	}
	limit, err := parseLimit(m, text, l.alias)
	if err != nil {
		return 0, err
	}
	return limit, checkLimit(m, text, limit)
}

// unit returns the side's unit and its name in a message: a ratio of two
// figures has none.
func (s Side) unit() (Unit, string) {
	if s.Num == nil {
		return Number, "a number"
	}
	if s.Den != nil {
		return Number, "a ratio of two figures"
	}
	m, _ := LookupMetric(s.Num.Metric)
	return m.Unit, fmt.Sprintf("%s (%s)", s.Num.Text, unitWords[m.Unit])
}

var unitWords = [...]string{Count: "a count", Number: "a number", Ratio: "a ratio", Seconds: "seconds", Millis: "milliseconds"}

// hasFigure reports whether a side's text reads a figure: it has a term
// that is not a number (nor a value: a duration, a percentage, never).
func hasFigure(text string) bool {
	terms, _ := splitTerms(text)
	if len(terms) == 1 {
		t := strings.TrimSpace(terms[0])
		return strings.ContainsAny(t, "[(") || isMetricName(t)
	}
	for _, t := range terms {
		if _, err := strconv.ParseFloat(strings.TrimSpace(t), 64); err != nil {
			return true
		}
	}
	return false
}

// isMetricName reports whether t names a metric (or its latency.… alias).
func isMetricName(t string) bool {
	if after, ok := strings.CutPrefix(t, "latency."); ok {
		t = "latency_ms." + after
	}
	_, ok := LookupMetric(t)
	return ok
}

// parseSide reads a side of terms joined by * and /: numbers and at most
// one figure on each side of a "/". left requires a figure; mean reports
// whether its figures are means (all or none).
func parseSide(text string, left bool) (Side, bool, error) {
	terms, ops := splitTerms(text)
	s := Side{Factor: 1}
	var means []bool
	for i, t := range terms {
		t = strings.TrimSpace(t)
		divide := i > 0 && ops[i-1] == '/'
		if t == "" {
			return s, false, fmt.Errorf("%q has an empty term; write e.g. 5 * herd_factor[full-jitter]", text)
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			if !(f > 0) || math.IsInf(f, 0) {
				return s, false, fmt.Errorf("%q: a factor is a number above 0", t)
			}
			if divide {
				f = 1 / f
			}
			s.Factor *= f
			continue
		}
		ref, mean, err := parseFigure(t)
		if err != nil {
			return s, false, err
		}
		means = append(means, mean)
		switch {
		case !divide && s.Num == nil:
			s.Num = ref
		case divide && s.Den == nil && s.Num != nil:
			s.Den = ref
		default:
			return s, false, fmt.Errorf("%q: a side reads one figure, or a ratio of two (a / b)", text)
		}
	}
	if s.Num == nil && left {
		return s, false, fmt.Errorf("%q has no figure; write the figure first, e.g. herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]", text)
	}
	for _, m := range means[1:] {
		if m != means[0] {
			return s, false, errors.New("write mean(...) on every figure of a threshold or on none")
		}
	}
	return s, len(means) > 0 && means[0], nil
}

// splitTerms cuts text at the * and / outside brackets, parentheses and
// quotes; ops[i] joins terms[i] and terms[i+1].
func splitTerms(text string) (terms []string, ops []byte) {
	for {
		i := outside(text, func(r byte) bool { return r == '*' || r == '/' })
		if i < 0 {
			return append(terms, text), ops
		}
		terms, ops = append(terms, text[:i]), append(ops, text[i])
		text = text[i+1:]
	}
}

// outside returns the index of the first byte of s that is matches and is
// outside brackets, parentheses and double quotes; -1 if none.
func outside(s string, matches func(byte) bool) int {
	depth, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
		case depth <= 0 && matches(c):
			return i
		}
	}
	return -1
}

// waveMetrics are the figures of synchronized waves, seen in 10 ms
// buckets: what Waves judges.
var waveMetrics = []string{"herd_factor", "failed_after_fault", "peak_calls_per_10ms"}

// FiguresOf returns what thresholds rest on, and so how a real run
// gated by them is judged (Limit): Waves if one of them reads a figure of
// waves (herd_factor, failed_after_fault, peak_calls_per_10ms), or there
// are none (the strictest); Counts otherwise.
func FiguresOf(ths []Threshold) Figures {
	if len(ths) == 0 {
		return Waves
	}
	for i := range ths {
		th := &ths[i]
		names := th.Metrics()
		if th.Left.Num == nil {
			names = []string{th.Metric} // made by hand: metric op value
		}
		for _, m := range names {
			if slices.Contains(waveMetrics, m) {
				return Waves
			}
		}
	}
	return Counts
}
