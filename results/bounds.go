package results

import (
	"fmt"
	"math"
	"time"
)

// MaxRunDuration is the longest run a results folder can hold: a day, as
// the scenarios' durations.
const MaxRunDuration = 24 * time.Hour

// CheckSummary refuses a summary.json with figures that no run has and
// that would size what is read after it: a duration_s beyond a day (the
// timelines' and histogram logs' bounds are the run's), an ended_s or a
// fault outside the run. Reading a results folder (herdbench report,
// herdbench merge) checks it before any other file.
func CheckSummary(s *Summary) error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if !finite(s.DurationS) || s.DurationS <= 0 || s.DurationS > MaxRunDuration.Seconds() {
		return fmt.Errorf("duration_s is %g; a run lasts more than 0 s and at most a day", s.DurationS)
	}
	if e := s.EndedS; e != nil && (!finite(*e) || *e < 0 || *e > s.DurationS) {
		return fmt.Errorf("ended_s is %g, outside the run's %g s", *e, s.DurationS)
	}
	for _, f := range s.Faults {
		if !finite(f.AtS) || !finite(f.ForS) || f.AtS < 0 || f.ForS < 0 || f.AtS+f.ForS > s.DurationS+1e-9 {
			return fmt.Errorf("fault %q from %g s for %g s is outside the run's %g s", f.Name, f.AtS, f.ForS, s.DurationS)
		}
	}
	return nil
}

// LastInterval is the index of the last histogram interval of a run of
// durationS seconds: the second its end falls in, which may hold its last
// answers. A histogram log's interval after it is no run's.
func LastInterval(durationS float64) int { return int(math.Ceil(durationS)) }
