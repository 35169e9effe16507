package scenariotest

import (
	"testing"

	"github.com/herdbench/herdbench/scenarios"
)

// Plan compiles a scenario written inline, named test.yaml in its problems,
// with the overrides o, and fails the test on any problem. Unlike
// scenarios.Open it draws no seed: the plan has o's seed, else the file's,
// else 0, so a test without one is the same run every time.
func Plan(t testing.TB, yaml string, o scenarios.Overrides) *scenarios.Plan {
	t.Helper()
	s, err := scenarios.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Compile(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
