package scenarios

import (
	"math"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
)

func ptr[T any](v T) *T { return &v }

func holds(cs []Claim) (bool, string) {
	for _, c := range cs {
		if !c.Holds {
			return false, c.Text + ": " + c.Figure
		}
	}
	return true, ""
}

func TestOutageHeadline(t *testing.T) {
	run := func(name string, herd float64, failed int64, recovery *float64) results.Run {
		return results.Run{Strategy: name, HerdFactor: herd, FailedAfterFault: failed, RecoveryS: recovery}
	}
	for _, c := range []struct {
		name   string
		runs   []results.Run
		holds  bool
		broken string
	}{
		{"the demonstration", []results.Run{run("no-jitter", 30, 500, nil), run("full-jitter", 2.5, 20, ptr(0.0))}, true, ""},
		{"at every limit", []results.Run{run("no-jitter", 10, 300, ptr(2.0)), run("full-jitter", 2, 100, ptr(2.0))}, true, ""},
		{"waves not 5x", []results.Run{run("no-jitter", 9.9, 500, nil), run("full-jitter", 2, 0, ptr(0.0))}, false, "herd_factor"},
		{"jitter knocked it down too", []results.Run{run("no-jitter", 30, 300, nil), run("full-jitter", 2, 101, ptr(0.0))}, false, "failed_after_fault"},
		{"no failures at all", []results.Run{run("no-jitter", 30, 0, ptr(0.0)), run("full-jitter", 2, 0, ptr(0.0))}, false, "failed_after_fault"},
		{"jitter recovered later", []results.Run{run("no-jitter", 30, 500, ptr(1.0)), run("full-jitter", 2, 0, ptr(1.5))}, false, "recovery_s"},
		{"jitter never recovered", []results.Run{run("no-jitter", 30, 500, nil), run("full-jitter", 2, 0, nil)}, false, "recovery_s"},
		{"a cohort left out", []results.Run{run("no-jitter", 30, 500, nil)}, false, "herd_factor"},
	} {
		cs, ok := Headline("outage", &results.Summary{Runs: c.runs})
		if !ok || len(cs) != 4 {
			t.Fatalf("%s: %d claims, %v", c.name, len(cs), ok)
		}
		got, why := holds(cs)
		if got != c.holds || (!got && why[:len(c.broken)] != c.broken) {
			t.Errorf("%s: holds %v (%s), want %v (%s)", c.name, got, why, c.holds, c.broken)
		}
	}
}

func TestMetastableHeadline(t *testing.T) {
	s := &results.Summary{Runs: []results.Run{
		{Strategy: "naive", Amplification: 3.4},
		{Strategy: "full-jitter", Amplification: 3.5},
		{Strategy: "jitter+budget+breaker", Amplification: 0.8, RecoveryS: ptr(0.0)},
		{Strategy: "botocore-standard", Amplification: 1.2, RecoveryS: ptr(2.0)},
		{Strategy: "grpc", Amplification: 1.0, RecoveryS: ptr(0.5)},
	}}
	cs, ok := Headline("metastable", s)
	if got, why := holds(cs); !ok || len(cs) != 7 || !got {
		t.Fatalf("the demonstration: %d claims, holds %v (%s)", len(cs), got, why)
	}
	s.Runs[0].RecoveryS = ptr(12.0)
	if got, _ := holds(mustHeadline(t, "metastable", s)); got {
		t.Error("naive recovered, and the headline holds")
	}
	s.Runs[0].RecoveryS = nil
	s.Runs[4].RecoveryS = ptr(2.01)
	if got, _ := holds(mustHeadline(t, "metastable", s)); got {
		t.Error("grpc recovered after 2.01 s, and the headline holds")
	}
	s.Runs[4].RecoveryS = ptr(0.0)
	s.Runs[3].Amplification = 1.21
	if got, _ := holds(mustHeadline(t, "metastable", s)); got {
		t.Error("botocore-standard amplified 1.21 times, and the headline holds")
	}
}

func TestLayersHeadline(t *testing.T) {
	run := func(name string, success float64, recovery *float64, bottom float64) results.Run {
		return results.Run{Strategy: name, SuccessRatio: &success, RecoveryS: recovery,
			Tiers: []results.Run{{Tier: "gateway"}, {Tier: "api"}, {Tier: "service", Amplification: bottom}}}
	}
	demo := func() *results.Summary {
		return &results.Summary{Runs: []results.Run{
			run("every-tier", 0.21, nil, 46.7),
			run("edge-only", 0.85, ptr(0.0), 1.54),
			run("every-tier+budget", 0.81, ptr(0.0), 1.12),
		}}
	}
	cs, ok := Headline("layers", demo())
	if got, why := holds(cs); !ok || len(cs) != 7 || !got {
		t.Fatalf("the demonstration: %d claims, holds %v (%s)", len(cs), got, why)
	}
	for _, c := range []struct {
		what   string
		change func(s *results.Summary)
	}{
		{"every-tier put 15 attempts on the service, edge-only 1.54", func(s *results.Summary) { s.Runs[0].Tiers[2].Amplification = 15 }},
		{"every-tier recovered", func(s *results.Summary) { s.Runs[0].RecoveryS = ptr(9.0) }},
		{"edge-only recovered after 2.5 s", func(s *results.Summary) { s.Runs[1].RecoveryS = ptr(2.5) }},
		{"the budget never recovered", func(s *results.Summary) { s.Runs[2].RecoveryS = nil }},
		{"edge-only succeeded 40%", func(s *results.Summary) { s.Runs[1].SuccessRatio = ptr(0.4) }},
		{"the budget put 1.6 attempts on the service", func(s *results.Summary) { s.Runs[2].Tiers[2].Amplification = 1.6 }},
		{"a summary without tiers", func(s *results.Summary) { s.Runs[0].Tiers, s.Runs[1].Tiers = nil, nil }},
	} {
		s := demo()
		c.change(s)
		if got, _ := holds(mustHeadline(t, "layers", s)); got {
			t.Errorf("%s, and the headline holds", c.what)
		}
	}
}

func TestAWSContentionHeadline(t *testing.T) {
	run := func(name string, calls int64, completion *float64) results.Run {
		return results.Run{Strategy: name, Calls: &calls, CompletionS: completion}
	}
	for _, c := range []struct {
		name  string
		runs  []results.Run
		holds bool
	}{
		{"the demonstration", []results.Run{run("exponential", 623, ptr(36.2)), run("full", 332, ptr(2.9))}, true},
		{"as many calls", []results.Run{run("exponential", 332, ptr(36.2)), run("full", 332, ptr(2.9))}, false},
		{"exponential never finished", []results.Run{run("exponential", 623, nil), run("full", 332, ptr(2.9))}, true},
		{"neither finished", []results.Run{run("exponential", 623, nil), run("full", 332, nil)}, false},
	} {
		if got, why := holds(mustHeadline(t, "aws-contention", &results.Summary{Runs: c.runs})); got != c.holds {
			t.Errorf("%s: holds %v (%s), want %v", c.name, got, why, c.holds)
		}
	}
}

func TestNoHeadline(t *testing.T) {
	if cs, ok := Headline("my-service", &results.Summary{}); ok || cs != nil {
		t.Errorf("a scenario that is not a built-in has a headline: %v", cs)
	}
}

func mustHeadline(t *testing.T, name string, s *results.Summary) []Claim {
	t.Helper()
	cs, ok := Headline(name, s)
	if !ok {
		t.Fatalf("%s has no headline", name)
	}
	for _, c := range cs {
		if c.Short == "" || len([]rune(c.Short)) > 28 {
			t.Errorf("%s: claim %q has short form %q, want a few characters", name, c.Text, c.Short)
		}
		if c.Figure == "" || (!math.IsNaN(c.Value) && c.Figure == "no cohort") {
			t.Errorf("%s: claim %q has figure %q", name, c.Text, c.Figure)
		}
	}
	return cs
}

func TestJitterRangeHeadline(t *testing.T) {
	point := func(f string, herd float64, failed int64) *results.Summary {
		return &results.Summary{Point: []results.Setting{{Field: "strategies[jittered].jitter", Value: f}},
			Runs: []results.Run{{Strategy: "jittered", HerdFactor: herd, FailedAfterFault: failed}}}
	}
	sweep := func(h05, h2 float64, f1, f01, f02 int64) []*results.Summary {
		return []*results.Summary{point("0", 130, 440), point("0.05", h05, 240), point("0.1", 21, f01), point("0.2", h2, f02), point("0.5", 4, 0), point("1", 2.5, f1)}
	}
	for _, c := range []struct {
		name   string
		points []*results.Summary
		holds  bool
	}{
		{"the demonstration", sweep(42, 10, 0, 216, 177), true},
		{"at every limit", sweep(12.5, 5, 10, 30, 30), true},
		{"F = 0.05 spreads the waves", sweep(12, 10, 0, 216, 177), false},
		{"F = 0.2 spreads the waves", sweep(42, 4.9, 0, 216, 177), false},
		{"full jitter knocks it down too", sweep(42, 10, 80, 216, 177), false},
		{"nothing knocked down", sweep(42, 10, 0, 0, 0), false},
		{"a point missing", sweep(42, 10, 0, 216, 177)[:5], false},
	} {
		got, why := holds(mustHeadlines(t, "jitter-range", c.points...))
		if got != c.holds {
			t.Errorf("%s: holds %v (%s), want %v", c.name, got, why, c.holds)
		}
	}
	cut := sweep(42, 10, 0, 216, 177)
	cut[5].Partial = true
	if got, _ := holds(mustHeadlines(t, "jitter-range", cut...)); got {
		t.Error("a point an interrupt cut counts")
	}
}

func TestLongLivedHeadline(t *testing.T) {
	run := func(name string, succeeded int64) results.Run {
		return results.Run{Strategy: name, Succeeded: succeeded}
	}
	for _, c := range []struct {
		name                string
		reset, exp, fj, dec int64
		holds               bool
	}{
		{"the demonstration", 23560, 14890, 14060, 17840, true},
		{"at every limit", 10000, 7500, 7500, 8250, true},
		{"exponential barely hurt", 10000, 7600, 6000, 8360, false},
		{"full jitter barely hurt", 10000, 6000, 7600, 8360, false},
		{"decorrelated no better than full jitter", 10000, 6000, 7000, 7600, false},
	} {
		s := &results.Summary{Runs: []results.Run{run("reset", c.reset), run("exponential", c.exp), run("full-jitter", c.fj), run("decorrelated", c.dec)}}
		if got, why := holds(mustHeadlines(t, "long-lived", s)); got != c.holds {
			t.Errorf("%s: holds %v (%s), want %v", c.name, got, why, c.holds)
		}
	}
}

func mustHeadlines(t *testing.T, name string, s ...*results.Summary) []Claim {
	t.Helper()
	cs, ok := Headline(name, s...)
	if !ok || len(cs) == 0 {
		t.Fatalf("%s has no headline", name)
	}
	for _, c := range cs {
		if c.Short == "" || len([]rune(c.Short)) > 28 || c.Figure == "" {
			t.Errorf("%s: claim %q: short %q, figure %q", name, c.Text, c.Short, c.Figure)
		}
	}
	return cs
}

// Each built-in's headline is judged by waves exactly when one of its
// claims is about a herd factor or the failures after the fault, figures
// of 10 ms buckets; a scenario without a headline by waves.
func TestHeadlineFigures(t *testing.T) {
	bs, err := Builtins()
	if err != nil || len(bs) < 6 {
		t.Fatalf("%d built-ins, %v", len(bs), err)
	}
	for _, b := range bs {
		name := b.Name
		cs, ok := Headline(name)
		if !ok {
			t.Errorf("built-in %s claims nothing: its YAML states no thresholds", name)
			continue
		}
		waves := false
		for _, c := range cs {
			waves = waves || strings.Contains(c.Text, "herd_factor") || strings.Contains(c.Text, "failed_after_fault")
		}
		if got := HeadlineFigures(name); (got == results.Waves) != waves {
			t.Errorf("%s: HeadlineFigures %s, but its claims are about waves: %v", name, got, waves)
		}
	}
	if HeadlineFigures("my-own-scenario") != results.Waves {
		t.Error("a scenario without a headline should be judged by waves")
	}
	for name, want := range map[string]results.Figures{"outage": results.Waves, "jitter-range": results.Waves, "grpc-outage": results.Waves,
		"metastable": results.Counts, "aws-contention": results.Counts, "long-lived": results.Counts, "layers": results.Counts} {
		if got := HeadlineFigures(name); got != want {
			t.Errorf("%s: HeadlineFigures %s, want %s (as before its claims were data)", name, got, want)
		}
	}
}
