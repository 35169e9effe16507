package results

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// ThresholdResult is one threshold checked against one cohort, as
// summary.json records it.
type ThresholdResult struct {
	Cohort     string `json:"cohort"`
	Expression string `json:"expression"`
	Metric     string `json:"metric"`
	Op         string `json:"op"`
	// Limit is the right side: the value written, or what the figures it
	// reads make of it (5 × full jitter's herd factor); null for never or
	// a null figure.
	Limit *float64 `json:"limit"`
	// Value is the left side: the figure compared (or what it makes of
	// its figures: a ratio), its mean for mean(...), or with repetitions
	// the worst repetition's (the furthest on the failing side of the
	// limit; the first failing for ==). null when the figure is null
	// (never recovered), or a ratio is undefined.
	Value *float64 `json:"value"`
	Pass  bool     `json:"pass"`
	// Figures is, for a threshold that compares figures or names a
	// cohort, a tier or a point, every figure it read, in the order
	// written (with repetitions, in the repetition Value is from);
	// absent for metric op value.
	Figures []FigureRead `json:"figures,omitempty"`
	// Repetitions is how many repetitions the threshold was checked over,
	// and FailedRepetitions in how many of them it failed (mean(...)
	// thresholds: absent). Both absent without repetitions.
	Repetitions       int `json:"repetitions,omitempty"`
	FailedRepetitions int `json:"failed_repetitions,omitempty"`
}

// FigureRead is one figure a threshold read.
type FigureRead struct {
	Figure string   `json:"figure"` // as written: "herd_factor[full-jitter]"
	Value  *float64 `json:"value"`  // null for a null figure
}

// Read says the figures a threshold read: "herd_factor[no-jitter] 3.1,
// herd_factor[full-jitter] 2.7"; "" if it read one figure of its cohort.
func (r ThresholdResult) Read() string {
	parts := make([]string, len(r.Figures))
	for i, f := range r.Figures {
		v := "null"
		if f.Value != nil {
			v = strconv.FormatFloat(*f.Value, 'g', 6, 64)
		}
		parts[i] = f.Figure + " " + v
	}
	return strings.Join(parts, ", ")
}

// CheckThresholds checks every threshold against the cohorts it applies to:
// for each run in order, the thresholds for all cohorts, then its own;
// then the thresholds that name every cohort they read, once each. A
// threshold that names a cohort s lacks (a recording that did not see it)
// is not checked; one that names a point of a sweep waits for CheckPoints.
// reps, if not nil, holds for each run of s (in order) its figures in
// every repetition: a threshold then holds only if it holds in all of
// them, and a mean(...) threshold compares their mean. Without reps, a
// run's own figures are its only repetition.
func CheckThresholds(s *Summary, ths []Threshold, reps [][]Run) []ThresholdResult {
	ths = normalize(ths)
	var out []ThresholdResult
	here := PointRuns{Summary: s, Reps: reps}
	add := func(th *Threshold, cohort string) {
		if res, ok := checkAt(th, cohort, here, nil); ok {
			out = append(out, res)
		}
	}
	for i := range s.Runs {
		r := &s.Runs[i]
		for k := range ths {
			if th := &ths[k]; th.Cohort == "" && !th.Fixed() && !th.AcrossPoints() {
				add(th, r.Strategy)
			}
		}
		for k := range ths {
			if th := &ths[k]; th.Cohort == r.Strategy && !th.AcrossPoints() {
				add(th, r.Strategy)
			}
		}
	}
	for k := range ths {
		if th := &ths[k]; th.Cohort == "" && th.Fixed() && !th.AcrossPoints() {
			add(th, "")
		}
	}
	return out
}

// PointRuns is one point of a sweep (or a single run): its summary, and
// for each of its runs (in order) the figures of every repetition (nil
// without repetitions).
type PointRuns struct {
	Summary *Summary
	Reps    [][]Run
}

// runs returns a cohort's repetitions at the point.
func (p PointRuns) runs(cohort string) ([]Run, bool) {
	for i := range p.Summary.Runs {
		if p.Summary.Runs[i].Strategy != cohort {
			continue
		}
		if i < len(p.Reps) && len(p.Reps[i]) > 0 {
			return p.Reps[i], true
		}
		return p.Summary.Runs[i : i+1], true
	}
	return nil, false
}

// CheckPoints checks the thresholds that name points of a sweep
// (Threshold.AcrossPoints), once every point has run, and adds each
// result to the summary of the point it is checked at: each point the
// left side names (with the point's own values of the fields it does not
// name), on each cohort, or once if it names every cohort. A threshold
// whose points or cohorts the sweep lacks (a --set that left them out) is
// not checked.
func CheckPoints(points []PointRuns, ths []Threshold) {
	ths = normalize(ths)
	find := finder(points)
	for _, p := range points {
		if p.Summary.Shard != nil {
			continue // a shard's thresholds wait for the merge
		}
		for k := range ths {
			th := &ths[k]
			if !th.AcrossPoints() || !matches(p.Summary.Point, th.Left.Num.Point) {
				continue
			}
			for _, cohort := range checkedOn(th, p.Summary) {
				if res, ok := checkAt(th, cohort, p, find); ok {
					p.Summary.Thresholds = append(p.Summary.Thresholds, res)
				}
			}
		}
	}
}

// CheckClaims checks thresholds as claims about a whole run: one summary,
// or every point of a sweep (in any order), without repetitions. Unlike
// CheckThresholds and CheckPoints, a threshold whose cohort, tier or point
// the summaries lack (--strategies or an interrupt left it out) fails, with
// a null value and no figures: what it claims was not shown. A summary an
// interrupt cut short (partial) shows nothing.
func CheckClaims(ths []Threshold, summaries ...*Summary) []ThresholdResult {
	ths = normalize(ths)
	var points []PointRuns
	for _, s := range summaries {
		if !s.Partial {
			points = append(points, PointRuns{Summary: s})
		}
	}
	find := finder(points)
	var out []ThresholdResult
	for k := range ths {
		th := &ths[k]
		n := len(out)
		for _, p := range points {
			if th.AcrossPoints() && !matches(p.Summary.Point, th.Left.Num.Point) {
				continue
			}
			for _, cohort := range checkedOn(th, p.Summary) {
				if res, ok := checkAt(th, cohort, p, find); ok {
					out = append(out, res)
				}
			}
		}
		if len(out) == n {
			cohort := th.Cohort
			if cohorts := th.Cohorts(); cohort == "" && len(cohorts) > 0 {
				cohort = cohorts[0]
			}
			out = append(out, ThresholdResult{Cohort: cohort, Expression: th.Expr, Metric: th.Metric, Op: th.Op.String()})
		}
	}
	return out
}

// normalize returns ths with the sides of a threshold made by hand
// (Metric, Mean, Op and Limit set, no sides) filled in: metric op value.
func normalize(ths []Threshold) []Threshold {
	out := ths
	for i := range ths {
		if ths[i].Left.Num != nil {
			continue
		}
		if &out[0] == &ths[0] {
			out = append([]Threshold(nil), ths...)
		}
		th := &out[i]
		th.Left = Side{Factor: 1, Num: &Ref{Text: th.Metric, Metric: th.Metric}}
		th.Right = Side{Factor: th.Limit}
	}
	return out
}

// checkedOn returns the cohorts th is checked on at a point: its own, or
// each cohort of s, or "" once when it names the cohort of every figure.
func checkedOn(th *Threshold, s *Summary) []string {
	switch {
	case th.Cohort != "":
		return []string{th.Cohort}
	case th.Fixed():
		return []string{""}
	}
	out := make([]string, len(s.Runs))
	for i := range s.Runs {
		out[i] = s.Runs[i].Strategy
	}
	return out
}

// finder returns the lookup of a point of points by its settings.
func finder(points []PointRuns) func([]Setting) (PointRuns, bool) {
	return func(want []Setting) (PointRuns, bool) {
		for _, p := range points {
			if len(p.Summary.Point) == len(want) && matches(p.Summary.Point, want) {
				return p, true
			}
		}
		return PointRuns{}, false
	}
}

// matches reports whether a point has every setting of sel: a field named
// by its path or its last key, and an equal value.
func matches(point, sel []Setting) bool {
	for _, s := range sel {
		found := false
		for _, p := range point {
			if sameField(p.Field, s.Field) && sameValue(p.Value, s.Value) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// sameField reports whether a threshold's field names a swept field: its
// whole path, or its last key ("jitter" for strategies[jittered].jitter).
func sameField(path, name string) bool {
	if path == name {
		return true
	}
	i := strings.LastIndexAny(path, ".]")
	return i >= 0 && strings.TrimPrefix(path[i+1:], ".") == name
}

// SameSweepValue reports whether two values of a swept field are one:
// equal as written, as numbers or as durations.
func SameSweepValue(a, b string) bool { return sameValue(a, b) }

func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		y, err := strconv.ParseFloat(b, 64)
		return err == nil && x == y
	}
	if x, err := time.ParseDuration(a); err == nil {
		y, err := time.ParseDuration(b)
		return err == nil && x == y
	}
	return false
}

// resolve returns the point a figure is read at: the point's settings,
// with those the figure names set to its values.
func resolve(point, sel []Setting) []Setting {
	out := append([]Setting(nil), point...)
	for i := range out {
		for _, s := range sel {
			if sameField(out[i].Field, s.Field) {
				out[i].Value = s.Value
			}
		}
	}
	return out
}

// NamesSweptField reports whether a threshold's field=value names one of
// a sweep's fields (given by path).
func NamesSweptField(paths []string, name string) bool {
	for _, p := range paths {
		if sameField(p, name) {
			return true
		}
	}
	return false
}

// reading is one figure of a threshold at one point and cohort: its
// repetitions.
type reading struct {
	ref  *Ref
	m    Metric
	runs []Run
}

// checkAt checks th on cohort ("" when it names every cohort) at point
// here; find looks up the other points a figure names (nil: none). false
// if a cohort or point it reads is missing.
func checkAt(th *Threshold, cohort string, here PointRuns, find func([]Setting) (PointRuns, bool)) (ThresholdResult, bool) {
	if cohort == "" {
		cohort = th.Left.Num.Cohort
	}
	var rd []reading
	for _, ref := range th.refs() {
		c, at := ref.Cohort, here
		if c == "" {
			c = cohort
		}
		if len(ref.Point) > 0 {
			var ok bool
			if find == nil {
				return ThresholdResult{}, false
			}
			if at, ok = find(resolve(here.Summary.Point, ref.Point)); !ok {
				return ThresholdResult{}, false
			}
		}
		runs, ok := at.runs(c)
		m, known := LookupMetric(ref.Metric)
		if !ok || !known || !hasTier(runs, ref.Tier) {
			return ThresholdResult{}, false
		}
		rd = append(rd, reading{ref: ref, m: m, runs: runs})
	}
	return compare(th, cohort, rd), true
}

// hasTier reports whether every run has tier (any run does for "").
func hasTier(runs []Run, tier string) bool {
	for i := range runs {
		found := tier == ""
		for k := range runs[i].Tiers {
			found = found || runs[i].Tiers[k].Tier == tier
		}
		if !found {
			return false
		}
	}
	return true
}

// at returns the reading's figure in repetition i, a null as +∞.
func (r reading) at(i int) float64 {
	run := &r.runs[i]
	if r.ref.Tier != "" {
		run = nil
		for k := range r.runs[i].Tiers {
			if r.runs[i].Tiers[k].Tier == r.ref.Tier {
				run = &r.runs[i].Tiers[k]
			}
		}
		if run == nil {
			return math.Inf(1)
		}
	}
	v, ok := r.m.Value(run)
	if !ok || math.IsNaN(v) {
		return math.Inf(1)
	}
	return v
}

// mean returns the mean of the reading's figure over its first n
// repetitions, rounded as summary.json rounds means; +∞ if any is null.
func (r reading) mean(n int) float64 {
	var sum float64
	for i := range n {
		sum += r.at(i)
	}
	if math.IsInf(sum, 1) {
		return sum
	}
	return round(sum/float64(n), 6)
}

// eval returns the side's value from its figures' values.
func (s Side) eval(v map[*Ref]float64) float64 {
	if s.Num == nil {
		return s.Factor
	}
	x := s.Factor * v[s.Num]
	if s.Den != nil {
		x /= v[s.Den] // ∞/∞ and 0/0 are NaN: undefined
	}
	return x
}

// holds reports whether l op r; an undefined side (NaN) fails.
func holds(op Op, l, r float64) bool {
	if math.IsNaN(l) || math.IsNaN(r) {
		return false
	}
	switch op {
	case Less:
		return l < r
	case LessEq:
		return l <= r
	case Greater:
		return l > r
	case GreaterEq:
		return l >= r
	case Equal:
		return l == r
	}
	return false
}

// sides is one comparison: both sides, whether it held, and the figures
// read.
type sides struct {
	l, r float64
	pass bool
	v    map[*Ref]float64
}

// worse reports whether a is further than b on the failing side: a
// failing comparison beats a passing one; then for upper bounds the left
// side further above the right, for lower bounds further below it; for
// ==, the first failing one.
func worse(op Op, a, b sides) bool {
	if a.pass != b.pass {
		return !a.pass
	}
	switch op {
	case Less, LessEq:
		return gap(a) > gap(b)
	case Greater, GreaterEq:
		return gap(a) < gap(b)
	}
	return false
}

// gap is l − r, 0 where they are the same infinity.
func gap(s sides) float64 {
	if s.l == s.r || math.IsNaN(s.l-s.r) {
		return 0
	}
	return s.l - s.r
}

// compare checks th on the readings, in each repetition or (mean) over
// them.
func compare(th *Threshold, cohort string, rd []reading) ThresholdResult {
	res := ThresholdResult{Cohort: cohort, Expression: th.Expr, Metric: th.Metric, Op: th.Op.String()}
	n := len(rd[0].runs)
	for _, r := range rd {
		n = min(n, len(r.runs))
	}
	if n > 1 {
		res.Repetitions = n
	}
	at := func(i int) sides {
		v := make(map[*Ref]float64, len(rd))
		for _, r := range rd {
			if i < 0 {
				v[r.ref] = r.mean(n)
			} else {
				v[r.ref] = r.at(i)
			}
		}
		s := sides{l: th.Left.eval(v), r: th.Right.eval(v), v: v}
		s.pass = holds(th.Op, s.l, s.r)
		return s
	}
	var w sides
	if th.Mean {
		w = at(-1)
		res.Pass = w.pass
	} else {
		for i := range n {
			s := at(i)
			if !s.pass {
				res.FailedRepetitions++
			}
			if i == 0 || worse(th.Op, s, w) {
				w = s
			}
		}
		res.Pass = res.FailedRepetitions == 0
		if res.Repetitions == 0 {
			res.FailedRepetitions = 0
		}
	}
	res.fill(th, rd, w)
	return res
}

// fill sets the result's value, limit and figures from the comparison w.
func (res *ThresholdResult) fill(th *Threshold, rd []reading, w sides) {
	simple := th.simple()
	num := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		if !simple {
			x = round(x, 6)
		}
		return &x
	}
	res.Value, res.Limit = num(w.l), num(w.r)
	if simple {
		return
	}
	for _, r := range rd {
		f := r.ref.Text
		if th.Mean {
			f = "mean(" + f + ")"
		}
		res.Figures = append(res.Figures, FigureRead{Figure: f, Value: num(w.v[r.ref])})
	}
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
