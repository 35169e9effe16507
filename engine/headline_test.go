package engine

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// Every built-in scenario shows what it claims in virtual time, where the
// figures are exact for the seed: the real runs are measured against this
// story (bench/robustness counts how often they tell it).
func TestBuiltinsHoldTheirHeadlinesInVirtualTime(t *testing.T) {
	builtins, err := scenarios.Builtins()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range builtins {
		op, err := scenarios.Open(b.Name, scenarios.Overrides{}) // every point of a sweep
		if err != nil {
			t.Fatal(err)
		}
		var summaries []*results.Summary
		for _, pt := range execute(t, op.Plans, Options{Mode: Mode{Sim: true}}) {
			summaries = append(summaries, pt.Output.Summary)
		}
		claims, ok := scenarios.Headline(b.Name, summaries...)
		if !ok {
			t.Errorf("built-in %s has no headline (scenarios.Headline)", b.Name)
			continue
		}
		for _, c := range claims {
			t.Logf("%s: %s: %s", b.Name, c.Text, c.Figure)
			if !c.Holds {
				t.Errorf("%s: %s: %s", b.Name, c.Text, c.Figure)
			}
		}
		// The run checked the same claims itself, as thresholds: once
		// each (a sweep's comparisons of points at the point they name),
		// and every one passed, so it exits 0.
		checked := 0
		for _, s := range summaries {
			for _, r := range s.Thresholds {
				checked++
				if !r.Pass {
					t.Errorf("%s: the run's own check of %s failed: %s", b.Name, r.Expression, r.Read())
				}
			}
		}
		if want, _ := scenarios.BuiltinClaims(b.Name); checked != len(want) || checked != len(claims) {
			t.Errorf("%s: the run checked %d thresholds; its YAML states %d claims", b.Name, checked, len(want))
		}
		if d := time.Duration(summaries[0].DurationS * float64(time.Second)); b.Name != "aws-contention" && d > 30*time.Second {
			t.Errorf("%s lasts %s; a demonstration should take at most 30 s", b.Name, d)
		}
	}
}

// The real engine tells the same story as the simulator when nothing is
// late: the built-in outage, metastable, jitter-range (every point of its
// sweep) and long-lived runs, through the real HTTP server and swarm over
// an in-memory network in virtual time, hold their headlines.
func TestBuiltinsHoldTheirHeadlinesInTheRealEngine(t *testing.T) {
	heavy(t, "the real engine on 8,000 clients")
	for _, name := range []string{"outage", "metastable", "jitter-range", "long-lived"} {
		began := time.Now()
		op, err := scenarios.Open(name, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		var summaries []*results.Summary
		for _, pt := range executeInBubble(t, op.Plans, Options{Mode: Mode{NoSimReference: true}}) {
			summaries = append(summaries, pt.Output.Summary)
		}
		claims, _ := scenarios.Headline(name, summaries...)
		for _, c := range claims {
			t.Logf("%s: %s: %s", name, c.Text, c.Figure)
			if !c.Holds {
				t.Errorf("%s: %s: %s", name, c.Text, c.Figure)
			}
		}
		t.Logf("%s in %s", name, time.Since(began).Round(time.Millisecond))
	}
}
