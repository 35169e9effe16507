package results

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// A threshold is a release gate on one figure of a run: "metric op value",
// e.g. "amplification <= 1.5", "recovery_s <= 5s", "latency.request.p99 <
// 2s", "success_ratio >= 99%", "mean(herd_factor) < 3". Grammar:
//
//	threshold = figure op value
//	figure    = metric | "mean(" metric ")"
//	metric    = a metric of the metric table (run.go): a numeric field
//	            of a run in summary.json, dotted: amplification,
//	            recovery_s, latency_ms.request.p99, outcomes.reset, ...
//	          | "latency." ("attempt"|"request") "." percentile
//	            (latency_ms with the value written as a duration)
//	op        = "<" | "<=" | ">" | ">=" | "=="
//	value     = number       (in the metric's Unit)
//	          | number "%"   (for Ratio metrics: 99% is 0.99)
//	          | duration     ("250ms", "2s": for Millis metrics, in ms,
//	                          and for Seconds metrics, in seconds)
//
// A null figure (recovery_s when the target never recovered within the run)
// counts as +∞: it fails every upper bound and == and passes lower bounds.
// Thresholds compare the figures as summary.json records them (rounded).
//
// With repetitions (--runs K), a threshold holds only if it holds in every
// repetition; mean(metric) compares instead the mean of the metric over
// the repetitions (null if it is null in any). Without repetitions the
// mean is the figure itself. A sweep checks every threshold at every point.

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
	Metric string // the summary.json path, e.g. "latency_ms.request.p99"
	// Mean compares the metric's mean over the repetitions, rather than
	// the metric in each of them: "mean(metric) op value".
	Mean  bool
	Op    Op
	Limit float64 // in the metric's unit (ms for latency_ms, s for *_s)
}

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

// ParseThreshold reads "metric op value".
func ParseThreshold(expr string) (Threshold, error) {
	th := Threshold{Expr: strings.TrimSpace(expr)}
	i := strings.IndexAny(th.Expr, "<>=!")
	if i < 0 {
		return th, fmt.Errorf("%w: %q has no comparison; write metric op value, e.g. amplification <= 1.5 (ops: < <= > >= ==)", ErrThreshold, th.Expr)
	}
	name, rest := strings.TrimSpace(th.Expr[:i]), th.Expr[i:]
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
	value := strings.TrimSpace(rest[len(opText):])
	if name == "" {
		return th, fmt.Errorf("%w: %q has no metric before %s; write e.g. amplification %s 1.5", ErrThreshold, th.Expr, opText, opText)
	}
	if value == "" {
		return th, fmt.Errorf("%w: %q has no value after %s; write e.g. %s %s 1.5", ErrThreshold, th.Expr, opText, name, opText)
	}
	if inner, ok := strings.CutPrefix(name, "mean("); ok {
		inner, closed := strings.CutSuffix(inner, ")")
		if !closed || strings.TrimSpace(inner) == "" {
			return th, fmt.Errorf("%w: %q: write mean(metric), e.g. mean(amplification) %s 1.5", ErrThreshold, th.Expr, opText)
		}
		name, th.Mean = strings.TrimSpace(inner), true
	}
	needUnit := false
	th.Metric = name
	if after, ok := strings.CutPrefix(name, "latency."); ok {
		th.Metric, needUnit = "latency_ms."+after, true
	}
	m, ok := LookupMetric(th.Metric)
	if !ok {
		return th, &UnknownMetricError{Metric: name}
	}
	limit, err := parseLimit(m, value, needUnit)
	if err != nil {
		return th, fmt.Errorf("%w: %q: %s", ErrThreshold, th.Expr, err)
	}
	if err := checkLimit(m, value, limit); err != nil {
		return th, fmt.Errorf("%w: %q: %s", ErrThreshold, th.Expr, err)
	}
	th.Limit = limit
	return th, nil
}

// checkLimit refuses limits no figure can meet or fail: every metric is 0 or
// more, and a ratio is at most 1.
func checkLimit(m Metric, written string, limit float64) error {
	switch {
	case limit < 0:
		return fmt.Errorf("%s is never negative; a limit of %s would make the threshold always pass or always fail", m.Name, written)
	case m.Unit == Ratio && limit > 1:
		if strings.HasSuffix(written, "%") {
			return fmt.Errorf("%s is a ratio, at most 100%%; write a limit from 0%% to 100%%", m.Name)
		}
		return fmt.Errorf("%s is a ratio from 0 to 1; write %g%% or %g", m.Name, limit, limit/100)
	}
	return nil
}

// parseLimit reads a threshold's value in the unit of metric m.
func parseLimit(m Metric, v string, needUnit bool) (float64, error) {
	if num, ok := strings.CutSuffix(v, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		switch {
		case m.Unit != Ratio:
			return 0, fmt.Errorf("%q: a percentage is for ratio metrics such as success_ratio; write a number", v)
		case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			return 0, fmt.Errorf("%q is not a percentage; write a number from 0%% to 100%%, e.g. 99%%", v)
		}
		return f / 100, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		if needUnit {
			return 0, fmt.Errorf("%q has no unit; write a duration such as 2s or 250ms (or use latency_ms.… with a number of milliseconds)", v)
		}
		return f, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a number or a duration", v)
	case m.Unit == Millis:
		return float64(d) / float64(time.Millisecond), nil
	case m.Unit == Seconds:
		return d.Seconds(), nil
	}
	return 0, fmt.Errorf("%q is a duration, but %s is not a time; write a plain number", v, m.Name)
}

// MetricNames returns every metric a threshold can name, sorted.
func MetricNames() []string {
	var out []string
	for _, m := range metricTable() {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return out
}

// MetricHelp describes the metric names compactly, for error messages.
func MetricHelp() string {
	var plain []string
	groups := map[string][]string{}
	var order []string
	for _, n := range MetricNames() {
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			plain = append(plain, n)
			continue
		}
		g := n[:i]
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], n[i+1:])
	}
	for _, g := range order {
		plain = append(plain, g+".{"+strings.Join(groups[g], ",")+"}")
	}
	return strings.Join(plain, ", ") + " (latency.… takes a duration: latency.request.p99 < 2s)"
}

// ThresholdResult is one threshold checked against one cohort, as
// summary.json records it.
type ThresholdResult struct {
	Cohort     string  `json:"cohort"`
	Expression string  `json:"expression"`
	Metric     string  `json:"metric"`
	Op         string  `json:"op"`
	Limit      float64 `json:"limit"`
	// Value is the figure compared: the metric, its mean for mean(...),
	// or with repetitions the worst repetition's (the highest for < and
	// <=, the lowest for > and >=, the first failing for ==). null when
	// the figure is null (never recovered).
	Value *float64 `json:"value"`
	Pass  bool     `json:"pass"`
	// Repetitions is how many repetitions the threshold was checked over,
	// and FailedRepetitions in how many of them it failed (mean(...)
	// thresholds: absent). Both absent without repetitions.
	Repetitions       int `json:"repetitions,omitempty"`
	FailedRepetitions int `json:"failed_repetitions,omitempty"`
}

// CheckThresholds checks every threshold against the cohorts it applies to:
// for each run in order, the thresholds for all cohorts, then its own.
// reps, if not nil, holds for each run of s (in order) its figures in
// every repetition: a threshold then holds only if it holds in all of
// them, and a mean(...) threshold compares their mean. Without reps, a
// run's own figures are its only repetition.
func CheckThresholds(s *Summary, ths []Threshold, reps [][]Run) []ThresholdResult {
	var out []ThresholdResult
	for i := range s.Runs {
		r := &s.Runs[i]
		figures := []Run{*r}
		if i < len(reps) && len(reps[i]) > 0 {
			figures = reps[i]
		}
		for _, th := range ths {
			if th.Cohort == "" {
				out = append(out, check(r.Strategy, th, figures))
			}
		}
		for _, th := range ths {
			if th.Cohort == r.Strategy {
				out = append(out, check(r.Strategy, th, figures))
			}
		}
	}
	return out
}

// check checks one threshold against one cohort's repetitions.
func check(cohort string, th Threshold, reps []Run) ThresholdResult {
	res := ThresholdResult{Cohort: cohort, Expression: th.Expr, Metric: th.Metric, Op: th.Op.String(), Limit: th.Limit}
	m, ok := LookupMetric(th.Metric)
	if !ok {
		return res
	}
	values := make([]float64, len(reps))
	for i := range reps {
		v, ok := m.Value(&reps[i])
		if !ok {
			v = math.NaN() // null: +∞ to the comparison
		}
		values[i] = v
	}
	if len(reps) > 1 {
		res.Repetitions = len(reps)
	}
	var v float64
	if th.Mean {
		var sum float64
		for _, x := range values {
			sum += x // a NaN (null) makes the mean null
		}
		v = round(sum/float64(len(values)), 6) // as Stat's mean in summary.json
		res.Pass = th.Op.Holds(v, th.Limit)
	} else {
		v = values[0]
		for i, x := range values {
			if !th.Op.Holds(x, th.Limit) {
				res.FailedRepetitions++
			}
			if i > 0 && worse(th.Op, th.Limit, x, v) {
				v = x
			}
		}
		res.Pass = res.FailedRepetitions == 0
		if res.Repetitions == 0 {
			res.FailedRepetitions = 0
		}
	}
	if !math.IsNaN(v) {
		res.Value = &v
	}
	return res
}

// worse reports whether x is further than v on the failing side of op:
// higher for upper bounds, lower for lower bounds; for ==, a failing x
// beats a passing v. A NaN (null) counts as +∞.
func worse(op Op, limit, x, v float64) bool {
	inf := func(f float64) float64 {
		if math.IsNaN(f) {
			return math.Inf(1)
		}
		return f
	}
	switch op {
	case Less, LessEq:
		return inf(x) > inf(v)
	case Greater, GreaterEq:
		return inf(x) < inf(v)
	}
	return !op.Holds(x, limit) && op.Holds(v, limit)
}

// ThresholdsFailed counts the failed checks.
func ThresholdsFailed(rs []ThresholdResult) int {
	n := 0
	for _, r := range rs {
		if !r.Pass {
			n++
		}
	}
	return n
}
