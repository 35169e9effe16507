package results_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

// Comparisons of cohorts, tiers and points parse into their sides.
func TestParseComparisons(t *testing.T) {
	for _, c := range []struct {
		expr                 string
		factor               float64 // the right side's (or the left's, for a ratio compared with a value)
		left, right          string  // the figures as written; "" for none
		leftDen              string
		cohorts, tiers, pts  string
		fixed, across, means bool
	}{
		{expr: "herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]", factor: 5, left: "herd_factor[no-jitter]", right: "herd_factor[full-jitter]", cohorts: "no-jitter,full-jitter", fixed: true},
		{expr: "failed_after_fault[full-jitter] <= failed_after_fault[no-jitter] / 3", factor: 1.0 / 3, left: "failed_after_fault[full-jitter]", right: "failed_after_fault[no-jitter]", cohorts: "full-jitter,no-jitter", fixed: true},
		{expr: "failed_after_fault[no-jitter] / failed_after_fault[full-jitter] >= 3", factor: 3, left: "failed_after_fault[no-jitter]", leftDen: "failed_after_fault[full-jitter]", cohorts: "no-jitter,full-jitter", fixed: true},
		{expr: "herd_factor <= 2 * herd_factor[full-jitter]", factor: 2, left: "herd_factor", right: "herd_factor[full-jitter]", cohorts: "full-jitter"},
		{expr: "amplification[grpc-go+throttling] <= 1.05", factor: 1.05, left: "amplification[grpc-go+throttling]", cohorts: "grpc-go+throttling", fixed: true},
		{expr: "recovery_s[naive] == never", factor: math.Inf(1), left: "recovery_s[naive]", cohorts: "naive", fixed: true},
		{expr: "recovery_s[edge-only] <= 2s", factor: 2, left: "recovery_s[edge-only]", cohorts: "edge-only", fixed: true},
		{expr: "tiers[service].amplification[every-tier] / tiers[service].amplification[edge-only] >= 10", factor: 10, left: "tiers[service].amplification[every-tier]", leftDen: "tiers[service].amplification[edge-only]", cohorts: "every-tier,edge-only", tiers: "service", fixed: true},
		{expr: "herd_factor[jitter=0.05] >= 5 * herd_factor[jitter=1]", factor: 5, left: "herd_factor[jitter=0.05]", right: "herd_factor[jitter=1]", pts: "jitter=0.05,jitter=1", across: true},
		{expr: `herd_factor["a, b", workload.clients=100] > herd_factor[c]`, factor: 1, left: `herd_factor["a, b", workload.clients=100]`, right: "herd_factor[c]", cohorts: "a, b,c", pts: "workload.clients=100", fixed: true, across: true},
		{expr: "mean(herd_factor[a]) >= 0.5 * mean(herd_factor[b])", factor: 0.5, left: "herd_factor[a]", right: "herd_factor[b]", cohorts: "a,b", fixed: true, means: true},
		{expr: "latency.request.p99[a] < 2 * latency_ms.request.p99[b]", factor: 2, left: "latency.request.p99[a]", right: "latency_ms.request.p99[b]", cohorts: "a,b", fixed: true},
		{expr: "success_ratio[a] >= 99%", factor: 0.99, left: "success_ratio[a]", cohorts: "a", fixed: true},
	} {
		th, err := results.ParseThreshold(c.expr)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", c.expr, err)
			continue
		}
		text := func(r *results.Ref) string {
			if r == nil {
				return ""
			}
			return r.Text
		}
		factor := th.Right.Factor
		if th.Right.Num == nil {
			factor = th.Limit
		}
		var pts []string
		for _, s := range th.Points() {
			pts = append(pts, s.Field+"="+s.Value)
		}
		if text(th.Left.Num) != c.left || text(th.Left.Den) != c.leftDen || text(th.Right.Num) != c.right ||
			math.Abs(factor-c.factor) > 1e-12 && !(math.IsInf(factor, 1) && math.IsInf(c.factor, 1)) ||
			strings.Join(th.Cohorts(), ",") != c.cohorts || strings.Join(th.Tiers(), ",") != c.tiers || strings.Join(pts, ",") != c.pts ||
			th.Fixed() != c.fixed || th.AcrossPoints() != c.across || th.Mean != c.means {
			t.Errorf("ParseThreshold(%q) = left %q / %q, right %g × %q, cohorts %q, tiers %q, points %q, fixed %v, across %v, mean %v; want %+v",
				c.expr, text(th.Left.Num), text(th.Left.Den), factor, text(th.Right.Num), th.Cohorts(), th.Tiers(), pts, th.Fixed(), th.AcrossPoints(), th.Mean, c)
		}
	}
}

// A bad comparison says what is wrong with it.
func TestParseComparisonErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"herd_factor[no-jitter] >= 5 * recovery_s[full-jitter]", "compare figures of one unit"},
		{"success_ratio[a] >= amplification[b]", "compare figures of one unit"},
		{"herd_factor[a] / herd_factor[b] >= 2s", "not a time"},
		{"herd_factor[a] >= herd_factor[b] * herd_factor[c]", "one figure, or a ratio of two"},
		{"herd_factor[a] >= 0 * herd_factor[b]", "a factor is a number above 0"},
		{"herd_factor[a] >= -2 * herd_factor[b]", "a factor is a number above 0"},
		{"5 * herd_factor[a] <= 3", "against a value, write the figure alone"},
		{"5 <= herd_factor[a]", "has no figure; write the figure first"},
		{"mean(herd_factor[a]) >= 2 * herd_factor[b]", "mean(...) on every figure"},
		{"herd_factor[] >= 2", "empty brackets"},
		{"herd_factor[a, b] >= 2", "two cohorts"},
		{"herd_factor[a,] >= 2", "nothing after the last comma"},
		{"herd_factor[jitter=] >= 2", "field=value"},
		{"herd_factor[jitter=1, jitter=2] >= 2", "jitter is set twice"},
		{`herd_factor["a] >= 2`, "no closing quote"},
		{"herd_factor[a >= 2", "write a cohort's figure as metric[cohort]"},
		{"tiers[service.amplification >= 2", "tiers[NAME].metric"},
		{"tiers[service].herd_factr >= 2", `unknown metric "herd_factr"`},
		{"tiers[service].completion_s < 2s", "a cohort's figure, not a tier's"},
		{"amplification[a] == never", "never is for a time"},
		{"recovery_s[a] <= never", "always holds"},
		{"recovery_s[a] > never", "never holds"},
		{"herd_factor[a] >= 5 * * herd_factor[b]", "empty term"},
	} {
		_, err := results.ParseThreshold(c.expr)
		if err == nil || !errors.Is(err, results.ErrThreshold) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseThreshold(%q): %v; want an ErrThreshold containing %q", c.expr, err, c.want)
		}
	}
}

// A comparison of cohorts is checked once, reading each cohort's figure;
// a bare figure in it is each cohort's in turn; a cohort the run lacks
// leaves it unchecked.
func TestCheckComparisons(t *testing.T) {
	s := resultstest.ThresholdSummary() // no-jitter: herd 14.2, …; full-jitter: herd 1.4
	ths := resultstest.Thresholds(t, "",
		"herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]",
		"herd_factor <= 2 * herd_factor[full-jitter]",
		"herd_factor[no-jitter] >= 100 * herd_factor[full-jitter]",
		"herd_factor[nobody] >= herd_factor[full-jitter]",
		"recovery_s[no-jitter] == never",
		"recovery_s[full-jitter] < never",
		"recovery_s[full-jitter] <= recovery_s[no-jitter]",
		"recovery_s[no-jitter] / recovery_s[no-jitter] <= 1",
	)
	got := results.CheckThresholds(s, ths, nil)
	type row struct {
		cohort, expr string
		pass         bool
		read         string
	}
	want := []row{
		{"no-jitter", "herd_factor <= 2 * herd_factor[full-jitter]", false, "herd_factor 14.2, herd_factor[full-jitter] 1.4"},
		{"full-jitter", "herd_factor <= 2 * herd_factor[full-jitter]", true, "herd_factor 1.4, herd_factor[full-jitter] 1.4"},
		{"no-jitter", "herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]", true, "herd_factor[no-jitter] 14.2, herd_factor[full-jitter] 1.4"},
		{"no-jitter", "herd_factor[no-jitter] >= 100 * herd_factor[full-jitter]", false, "herd_factor[no-jitter] 14.2, herd_factor[full-jitter] 1.4"},
		{"no-jitter", "recovery_s[no-jitter] == never", true, "recovery_s[no-jitter] null"},
		{"full-jitter", "recovery_s[full-jitter] < never", true, "recovery_s[full-jitter] 1.25"},
		{"full-jitter", "recovery_s[full-jitter] <= recovery_s[no-jitter]", true, "recovery_s[full-jitter] 1.25, recovery_s[no-jitter] null"},
		{"no-jitter", "recovery_s[no-jitter] / recovery_s[no-jitter] <= 1", false, "recovery_s[no-jitter] null, recovery_s[no-jitter] null"}, // ∞/∞: undefined
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Cohort != w.cohort || g.Expression != w.expr || g.Pass != w.pass || g.Read() != w.read {
			t.Errorf("result %d: %s %q pass %v read %q; want %+v", i, g.Cohort, g.Expression, g.Pass, g.Read(), w)
		}
	}
	if v, l := got[2].Value, got[2].Limit; v == nil || *v != 14.2 || l == nil || *l != 7 {
		t.Errorf("herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]: value %v, limit %v; want 14.2 against 7", v, l)
	}
	if got[4].Limit != nil || got[4].Value != nil {
		t.Errorf("== never: value %v, limit %v; want both null", got[4].Value, got[4].Limit)
	}
}

// With repetitions a comparison holds only if it holds in each, the
// figures of one repetition against each other, and reports the one
// furthest on the failing side; mean(...) compares the means.
func TestCheckComparisonsOverRepetitions(t *testing.T) {
	reps := [][]results.Run{
		{{Strategy: "a", HerdFactor: 30}, {Strategy: "a", HerdFactor: 12}, {Strategy: "a", HerdFactor: 40}},
		{{Strategy: "b", HerdFactor: 2}, {Strategy: "b", HerdFactor: 3}, {Strategy: "b", HerdFactor: 2}},
	}
	s := &results.Summary{Runs: []results.Run{reps[0][0], reps[1][0]}}
	ths := resultstest.Thresholds(t, "", "herd_factor[a] >= 5 * herd_factor[b]", "mean(herd_factor[a]) >= 5 * mean(herd_factor[b])")
	got := results.CheckThresholds(s, ths, reps)
	if len(got) != 2 {
		t.Fatalf("%d results: %+v", len(got), got)
	}
	if g := got[0]; g.Pass || g.FailedRepetitions != 1 || g.Repetitions != 3 || *g.Value != 12 || *g.Limit != 15 {
		t.Errorf("per repetition: %+v (value %v, limit %v); want failed in 1 of 3, 12 against 15", g, *g.Value, *g.Limit)
	}
	if g := got[1]; !g.Pass || g.Repetitions != 3 || g.FailedRepetitions != 0 || math.Abs(*g.Value-27.333333) > 1e-9 || math.Abs(*g.Limit-11.666665) > 1e-9 {
		t.Errorf("means: %+v (value %v, limit %v); want 27.333333 against 11.666665 (5 × the rounded mean)", g, *g.Value, *g.Limit)
	}
}

// A comparison of points is checked once every point has run, at the
// points its left side names, into their summaries; the fields it does
// not name are the point's own; a point the sweep lacks leaves it
// unchecked.
func TestCheckPoints(t *testing.T) {
	point := func(f, n string, herd float64) *results.Summary {
		return &results.Summary{Point: resultstest.Point("strategies[jittered].jitter", f, "workload.clients", n),
			Runs: []results.Run{{Strategy: "jittered", HerdFactor: herd}}}
	}
	sums := []*results.Summary{point("0.05", "10", 40), point("1", "10", 2), point("0.05", "20", 8), point("1", "20", 2), point("0.5", "10", 3)}
	var pts []results.PointRuns
	for _, s := range sums {
		pts = append(pts, results.PointRuns{Summary: s})
	}
	ths := resultstest.Thresholds(t, "", "herd_factor[jitter=0.05] >= 5 * herd_factor[jitter=1]", "herd_factor[jitter=0.5, clients=30] >= 1", "amplification < 2")
	results.CheckPoints(pts, ths)
	for i, want := range []string{"pass", "", "FAIL", "", ""} {
		got := ""
		for _, r := range sums[i].Thresholds {
			if got = "FAIL"; r.Pass {
				got = "pass"
			}
		}
		if len(sums[i].Thresholds) > 1 || got != want {
			t.Errorf("point %s: %+v; want %q", results.PointLabel(sums[i].Point), sums[i].Thresholds, want)
		}
	}
	if r := sums[2].Thresholds[0]; r.Read() != "herd_factor[jitter=0.05] 8, herd_factor[jitter=1] 2" || r.Cohort != "jittered" {
		t.Errorf("at clients=20: %s read %q", r.Cohort, r.Read())
	}
	// CheckThresholds leaves them to CheckPoints.
	if got := results.CheckThresholds(sums[0], ths[:1], nil); len(got) != 0 {
		t.Errorf("CheckThresholds checked a comparison of points: %+v", got)
	}
}

// Claims fail where what they read is missing: a cohort, a tier, a
// point, or a summary an interrupt cut short.
func TestCheckClaims(t *testing.T) {
	s := resultstest.ThresholdSummary()
	ths := resultstest.Thresholds(t, "", "herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]", "herd_factor[nobody] >= 1",
		"tiers[db].amplification[no-jitter] <= 2", "herd_factor[jitter=1] >= 1")
	got := results.CheckClaims(ths, s)
	if len(got) != 4 || !got[0].Pass || got[1].Pass || got[1].Cohort != "nobody" || got[2].Pass || got[3].Pass {
		t.Errorf("claims: %+v", got)
	}
	s.Partial = true
	if got := results.CheckClaims(ths[:1], s); len(got) != 1 || got[0].Pass {
		t.Errorf("a partial summary shows a claim: %+v", got)
	}
}

// What a threshold rests on: waves when it reads a figure of waves.
func TestFiguresOf(t *testing.T) {
	for _, c := range []struct {
		exprs []string
		want  results.Figures
	}{
		{nil, results.Waves},
		{[]string{"amplification <= 1.5", "recovery_s[a] <= 2s"}, results.Counts},
		{[]string{"amplification <= 1.5", "amplification[a] >= 0.5 * herd_factor[b]"}, results.Waves},
		{[]string{"failed_after_fault[a] / failed_after_fault[b] >= 3"}, results.Waves},
	} {
		if got := results.FiguresOf(resultstest.Thresholds(t, "", c.exprs...)); got != c.want {
			t.Errorf("FiguresOf(%q) = %s, want %s", c.exprs, got, c.want)
		}
	}
}
