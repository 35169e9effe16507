package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestCompileServerThresholds: a target or proxy reads the scenario's
// thresholds for its recording: the file's for every cohort, a strategy's
// for the cohort of its name; a bad one is a problem with its line, as
// for the swarm.
func TestCompileServerThresholds(t *testing.T) {
	src := "name: g\nchaos:\n  - kind: outage\n    mode: \"503\"\n    at: 1s\n    for: 1s\nstrategies:\n  - name: go-retryablehttp/0.7\n    thresholds:\n      - herd_factor < 3\nthresholds:\n  - recovery_s <= 5s\n"
	s, err := Parse("g.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.compileServer(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Thresholds) != 2 || p.Thresholds[0].Cohort != "" || p.Thresholds[0].Metric != "recovery_s" ||
		p.Thresholds[1].Cohort != "go-retryablehttp/0.7" || p.Thresholds[1].Metric != "herd_factor" {
		t.Errorf("thresholds %+v", p.Thresholds)
	}
	if string(p.Resolved) != src {
		t.Errorf("Resolved is not the file as written: %q", p.Resolved)
	}
	bad, _ := Parse("b.yaml", []byte("name: b\nthresholds:\n  - herd_factr < 3\n"))
	_, err = bad.compileServer(Overrides{})
	var se *Error
	if !errors.As(err, &se) || len(se.Problems) != 1 || se.Problems[0].Line != 3 || !strings.Contains(err.Error(), `did you mean "herd_factor"`) {
		t.Errorf("a bad threshold: %v", err)
	}
}
