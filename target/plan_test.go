package target

import (
	"testing"

	"github.com/herdbench/herdbench/chaos"
)

// plan compiles faults into a plan as long as they last.
func plan(t *testing.T, faults ...chaos.Timed) *chaos.Plan {
	t.Helper()
	p, err := chaos.NewPlan(faults, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
