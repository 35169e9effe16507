package engine

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/scenarios"
)

// Every published result replayed (scenarios/replays, docs/replays.md)
// holds within its band in virtual time: each claim its YAML states is
// checked (a comparison of points at the point it names) and passes.
// CI runs the same files through the binary (.ci/run).
func TestReplaysHoldInVirtualTime(t *testing.T) {
	files, err := filepath.Glob("../scenarios/replays/*.yaml")
	if err != nil || len(files) < 7 {
		t.Fatalf("replays: %v, %v", files, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			began := time.Now()
			op, err := scenarios.Open(f, scenarios.Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			checked := map[string]bool{}
			for _, pt := range execute(t, op.Plans, Options{Mode: Mode{Sim: true, Runs: op.Plans[0].Runs}}) {
				for _, r := range pt.Output.Summary.Thresholds {
					checked[r.Expression] = true
					if !r.Pass {
						t.Errorf("%s: %s (read %s)", pt.Output.Summary.Scenario, r.Expression, r.Read())
					}
				}
			}
			for _, th := range op.Plans[0].Thresholds {
				if !checked[th.Expr] {
					t.Errorf("%s was never checked", th.Expr)
				}
			}
			t.Logf("%d claims in %s", len(checked), time.Since(began).Round(time.Millisecond))
		})
	}
}
