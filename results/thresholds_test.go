package results_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestParseThreshold(t *testing.T) {
	for _, c := range []struct {
		expr   string
		metric string
		op     results.Op
		limit  float64
	}{
		{"amplification <= 1.5", "amplification", results.LessEq, 1.5},
		{"  amplification<=1.5 ", "amplification", results.LessEq, 1.5},
		{"recovery_s <= 5", "recovery_s", results.LessEq, 5},
		{"recovery_s < 1500ms", "recovery_s", results.Less, 1.5},
		{"latency.request.p99 < 2s", "latency_ms.request.p99", results.Less, 2000},
		{"latency.attempt.p50 <= 250ms", "latency_ms.attempt.p50", results.LessEq, 250},
		{"latency_ms.request.p999 < 800", "latency_ms.request.p999", results.Less, 800},
		{"latency_ms.request.max < 1m", "latency_ms.request.max", results.Less, 60000},
		{"success_ratio >= 0.99", "success_ratio", results.GreaterEq, 0.99},
		{"success_ratio >= 99.5%", "success_ratio", results.GreaterEq, 0.995},
		{"herd_factor < 3", "herd_factor", results.Less, 3},
		{"failed_after_fault == 0", "failed_after_fault", results.Equal, 0},
		{"peak_attempts_per_s > 10", "peak_attempts_per_s", results.Greater, 10},
		{"outcomes.reset <= 100", "outcomes.reset", results.LessEq, 100},
		{"send_lag_ms.p99 <= 5", "send_lag_ms.p99", results.LessEq, 5},
		{"send_lag_ms.p99 <= 2500us", "send_lag_ms.p99", results.LessEq, 2.5},
		{"target_drift_ms.p50 < 1ms", "target_drift_ms.p50", results.Less, 1},
		{"requests >= 1e3", "requests", results.GreaterEq, 1000},
		{"mean(amplification) <= 1.5", "amplification", results.LessEq, 1.5},
		{"mean( latency.request.p99 ) < 2s", "latency_ms.request.p99", results.Less, 2000},
		{"mean(success_ratio) >= 99%", "success_ratio", results.GreaterEq, 0.99},
	} {
		th, err := results.ParseThreshold(c.expr)
		if err != nil {
			t.Errorf("ParseThreshold(%q): %v", c.expr, err)
			continue
		}
		if th.Mean != strings.Contains(c.expr, "mean(") {
			t.Errorf("ParseThreshold(%q): Mean = %v", c.expr, th.Mean)
		}
		if th.Metric != c.metric || th.Op != c.op || math.Abs(th.Limit-c.limit) > 1e-9 || th.Expr != strings.TrimSpace(c.expr) {
			t.Errorf("ParseThreshold(%q) = %+v; want %s %s %v", c.expr, th, c.metric, c.op, c.limit)
		}
	}
}

func TestParseThresholdErrors(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"amplification 1.5", "no comparison"},
		{"amplification != 1.5", `unknown comparison "!="`},
		{"amplification => 1.5", `unknown comparison "=>" (did you mean ">="?)`},
		{"amplification =< 1.5", `unknown comparison "=<" (did you mean "<="?)`},
		{"amplification = 1.5", `unknown comparison "=" (did you mean "=="?)`},
		{"amplification <=> 1.5", `unknown comparison "<=>"; use one of`},
		{"<= 1.5", "no metric"},
		{"amplification <=", "no value"},
		{"amplificaton <= 1.5", `unknown metric "amplificaton"`},
		{"latency.request.p99 < 2000", "no unit"},
		{"latency.request.p42 < 2s", "unknown metric"},
		{"amplification <= 2s", "not a time"},
		{"amplification <= 50%", "percentage"},
		{"recovery_s <= soon", "not a number or a duration"},
		{"outcomes.teapot > 0", "unknown metric"},
		{"strategy == 1", "unknown metric"},
		{"success_ratio >= 150%", "at most 100%"},
		{"success_ratio >= 99", "write 99% or 0.99"},
		{"amplification <= -1", "never negative"},
		{"success_ratio >= nan%", `"nan%" is not a percentage`},
		{"success_ratio >= -Inf%", `"-Inf%" is not a percentage`},
		{"amplification <= NaN", "not a number or a duration"},
		{"amplification <= inf", "not a number or a duration"},
		{"mean(amplification <= 1.5", "write mean(metric)"},
		{"mean() <= 1.5", "write mean(metric)"},
		{"mean(amplificaton) <= 1.5", `unknown metric "amplificaton"`},
		{"median(amplification) <= 1.5", "unknown metric"},
	} {
		_, err := results.ParseThreshold(c.expr)
		if err == nil || !errors.Is(err, results.ErrThreshold) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseThreshold(%q): %v; want an ErrThreshold containing %q", c.expr, err, c.want)
		}
	}
	var um *results.UnknownMetricError
	if _, err := results.ParseThreshold("amplificaton < 1"); !errors.As(err, &um) || um.Metric != "amplificaton" {
		t.Errorf("unknown metric: %v, want an *UnknownMetricError naming it", err)
	}
}

func TestOpHolds(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		op       results.Op
		v, limit float64
		want     bool
	}{
		{results.Less, 1, 2, true}, {results.Less, 2, 2, false},
		{results.LessEq, 2, 2, true}, {results.LessEq, 2.001, 2, false},
		{results.Greater, 3, 2, true}, {results.Greater, 2, 2, false},
		{results.GreaterEq, 2, 2, true}, {results.GreaterEq, 1.999, 2, false},
		{results.Equal, 0, 0, true}, {results.Equal, 1, 0, false},
		// null (never recovered) is +∞
		{results.Less, nan, 5, false}, {results.LessEq, nan, 1e300, false}, {results.Equal, nan, 0, false},
		{results.Greater, nan, 5, true}, {results.GreaterEq, nan, 5, true},
	} {
		if got := c.op.Holds(c.v, c.limit); got != c.want {
			t.Errorf("%v %s %v = %v, want %v", c.v, c.op, c.limit, got, c.want)
		}
	}
}

func TestCheckThresholds(t *testing.T) {
	ths := append(resultstest.Thresholds(t, "", "amplification <= 1.5", "recovery_s <= 5s", "latency.request.p99 < 2s"),
		resultstest.Thresholds(t, "full-jitter", "herd_factor < 3", "outcomes.reset < 400")...)
	got := results.CheckThresholds(resultstest.ThresholdSummary(), ths, nil)
	type row struct {
		cohort, expr string
		value        float64 // NaN for null
		pass         bool
	}
	want := []row{
		{"no-jitter", "amplification <= 1.5", 2.31, false},
		{"no-jitter", "recovery_s <= 5s", math.NaN(), false},
		{"no-jitter", "latency.request.p99 < 2s", 5234.5, false},
		{"full-jitter", "amplification <= 1.5", 1.21, true},
		{"full-jitter", "recovery_s <= 5s", 1.25, true},
		{"full-jitter", "latency.request.p99 < 2s", 812.25, true},
		{"full-jitter", "herd_factor < 3", 1.4, true},
		{"full-jitter", "outcomes.reset < 400", 480, false},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		valueOK := (g.Value == nil && math.IsNaN(w.value)) || (g.Value != nil && *g.Value == w.value)
		if g.Cohort != w.cohort || g.Expression != w.expr || g.Pass != w.pass || !valueOK {
			t.Errorf("result %d = %+v (value %v); want %+v", i, g, g.Value, w)
		}
	}
	if n := results.ThresholdsFailed(got); n != 4 {
		t.Errorf("ThresholdsFailed = %d, want 4", n)
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"amplification <= 1.5", "latency.request.p99 < 2s", "success_ratio >= 99%", "recovery_s<=5s", "<", "a<=<=b", "outcomes.ok == 1e400",
		"herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]", `tiers[s].amplification["a,b", jitter=1] / tiers[s].amplification[c] >= 2`,
		"recovery_s[a] == never", "mean(herd_factor[a]) >= 0.5 * mean(herd_factor[b])"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		th, err := results.ParseThreshold(expr)
		if err != nil {
			if !errors.Is(err, results.ErrThreshold) {
				t.Fatalf("ParseThreshold(%q): error %v does not match ErrThreshold", expr, err)
			}
			return
		}
		if _, ok := results.LookupMetric(th.Metric); !ok || math.IsNaN(th.Limit) {
			t.Fatalf("ParseThreshold(%q) = %+v: unknown metric or NaN limit", expr, th)
		}
	})
}

// With repetitions a threshold holds only if it holds in every one, and
// reports the worst; mean(...) compares the mean, null if any is null.
func TestCheckThresholdsOverRepetitions(t *testing.T) {
	rec := func(v float64) *float64 { return &v }
	reps := [][]results.Run{{
		{Strategy: "a", Amplification: 1.2, RecoveryS: rec(1), SuccessRatio: new(0.999)},
		{Strategy: "a", Amplification: 1.9, RecoveryS: nil, SuccessRatio: new(0.97)}, // one bad repetition
		{Strategy: "a", Amplification: 1.2, RecoveryS: rec(2), SuccessRatio: new(0.999)},
	}}
	s := &results.Summary{Runs: []results.Run{reps[0][0]}} // the first repetition's figures, as engine.Execute keeps them
	ths := resultstest.Thresholds(t, "", "amplification <= 1.5", "mean(amplification) <= 1.5", "success_ratio >= 98%",
		"mean(success_ratio) >= 98%", "recovery_s <= 5s", "mean(recovery_s) <= 5s", "amplification == 1.2")
	got := results.CheckThresholds(s, ths, reps)
	type row struct {
		value        float64 // NaN for null
		pass         bool
		failedInReps int
	}
	want := []row{
		{1.9, false, 1},        // the worst repetition
		{1.433333, true, 0},    // the mean passes, rounded as summary.json rounds means
		{0.97, false, 1},       // the lowest for a lower bound
		{0.989333, true, 0},    // its mean passes
		{math.NaN(), false, 1}, // never recovered in one repetition
		{math.NaN(), false, 0}, // so the mean is null too
		{1.9, false, 1},        // == reports the failing one
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		valueOK := (g.Value == nil && math.IsNaN(w.value)) || (g.Value != nil && math.Abs(*g.Value-w.value) < 1e-9)
		if g.Pass != w.pass || !valueOK || g.FailedRepetitions != w.failedInReps || g.Repetitions != 3 {
			t.Errorf("%s: %+v (value %v); want value %v, pass %v, failed in %d of 3", g.Expression, g, g.Value, w.value, w.pass, w.failedInReps)
		}
	}
	// Without repetitions the run's own figures are checked, and the
	// mean is the figure itself.
	for _, r := range results.CheckThresholds(s, ths, nil) {
		if !r.Pass || r.Repetitions != 0 {
			t.Errorf("first repetition alone: %+v", r)
		}
	}
}

// success_ratio thresholds read the ratio over the requests that ended
// (a cohort with no failure passes 99%, however many it left unfinished);
// unfinished is a threshold's metric like any count; a null success_ratio
// (no request ended) reads as +∞, so only unfinished catches that run.
func TestThresholdsOnSuccessAndUnfinished(t *testing.T) {
	rec := results.NewRecorder(time.Second, 1)
	for i := range 200 {
		rec.Shard(0).Started(0)
		if i < 59 {
			rec.Shard(0).Request(results.Request{End: time.Millisecond, Succeeded: true})
		}
	}
	stalled := results.Summarize(results.Cohort{Strategy: "stalled", Rec: rec}, results.Window{})
	s := &results.Summary{Runs: []results.Run{
		{Strategy: "asleep", Requests: 4195, Succeeded: 4054, Unfinished: 141, SuccessRatio: results.SuccessRatioOf(4054, 0)},
		{Strategy: "nothing-ended", Requests: 50, Unfinished: 50, SuccessRatio: results.SuccessRatioOf(0, 0)},
		stalled,
	}}
	got := results.CheckThresholds(s, resultstest.Thresholds(t, "", "success_ratio >= 99%", "unfinished < 100"), nil)
	want := []struct {
		cohort, expr string
		pass         bool
	}{
		{"asleep", "success_ratio >= 99%", true},
		{"asleep", "unfinished < 100", false},
		{"nothing-ended", "success_ratio >= 99%", true},
		{"nothing-ended", "unfinished < 100", true},
		{"stalled", "success_ratio >= 99%", true},
		{"stalled", "unfinished < 100", false},
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		if g := got[i]; g.Cohort != w.cohort || g.Expression != w.expr || g.Pass != w.pass {
			t.Errorf("result %d: %s %q pass %v, want %s %q pass %v", i, g.Cohort, g.Expression, g.Pass, w.cohort, w.expr, w.pass)
		}
	}
	if v := got[5].Value; v == nil || *v != 141 {
		t.Errorf("stalled's unfinished read as %v, want 141", got[5].Value)
	}
}
