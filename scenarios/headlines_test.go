package scenarios

import (
	"math"
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
		{"waves not 5x", []results.Run{run("no-jitter", 9.9, 500, nil), run("full-jitter", 2, 0, ptr(0.0))}, false, "herd factor"},
		{"jitter knocked it down too", []results.Run{run("no-jitter", 30, 300, nil), run("full-jitter", 2, 101, ptr(0.0))}, false, "failed after fault"},
		{"no failures at all", []results.Run{run("no-jitter", 30, 0, ptr(0.0)), run("full-jitter", 2, 0, ptr(0.0))}, false, "failed after fault"},
		{"jitter recovered later", []results.Run{run("no-jitter", 30, 500, ptr(1.0)), run("full-jitter", 2, 0, ptr(1.5))}, false, "recovery"},
		{"jitter never recovered", []results.Run{run("no-jitter", 30, 500, nil), run("full-jitter", 2, 0, nil)}, false, "recovery"},
		{"a cohort left out", []results.Run{run("no-jitter", 30, 500, nil)}, false, "herd factor"},
	} {
		cs, ok := Headline("outage", &results.Summary{Runs: c.runs})
		if !ok || len(cs) != 3 {
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
		{Strategy: "aws-standard", Amplification: 1.2, RecoveryS: ptr(2.0)},
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
		t.Error("aws-standard amplified 1.21 times, and the headline holds")
	}
}

func TestLayersHeadline(t *testing.T) {
	run := func(name string, success float64, recovery *float64, bottom float64) results.Run {
		return results.Run{Strategy: name, SuccessRatio: success, RecoveryS: recovery,
			Tiers: []results.TierRun{{Tier: "gateway"}, {Tier: "api"}, {Tier: "service", Amplification: bottom}}}
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
		{"edge-only succeeded 40%", func(s *results.Summary) { s.Runs[1].SuccessRatio = 0.4 }},
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
