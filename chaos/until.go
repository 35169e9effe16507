package chaos

import "time"

// Until returns the plan with every fault gone from instant t on: a window
// still open at t ends there, and one that begins at t or later never
// does. Before t it is p, segment for segment. The simulator's snapshots
// continue a run "with the trigger removed" with it.
func (p *Plan) Until(t time.Duration) *Plan {
	var kept []Timed
	for _, f := range p.faults {
		if f.At >= t {
			continue
		}
		if f.End() > t {
			f.For = t - f.At
		}
		kept = append(kept, f)
	}
	q, err := NewPlan(kept, 0)
	if err != nil {
		// Every window kept starts at p's start and lasts more than 0:
		// NewPlan took p's.
		panic("chaos: Until: " + err.Error())
	}
	return q
}
