package results

import (
	"strconv"
	"sync/atomic"
	"time"
)

// AttemptGroups is the number of attempt-number groups the live counters
// keep: the first try, the first retry, the second, and the third or later
// (as the timeline's first, retry1, retry2 and retry3up series).
const AttemptGroups = 4

// AttemptGroupName returns group g's label: "1", "2", "3" or "4+".
func AttemptGroupName(g int) string {
	if g == AttemptGroups-1 {
		return strconv.Itoa(AttemptGroups) + "+"
	}
	return strconv.Itoa(g + 1)
}

// InFlight adds delta to the attempts on the wire. The real-time driver
// calls it around each attempt.
func (s *Shard) InFlight(delta int64) { s.inFlight.Add(delta) }

// HerdSoFar returns the herd factor (HerdFactor, from t = 0) of the
// attempts sent before upto, over the whole seconds that ended by then:
// the run's figure so far, for live pages. An attempt counts once it has
// ended, in the bucket of its send time, so the last second may still
// grow: give an upto that leaves the attempts time to end. It reads a
// column of the timeline (one atomic load per outcome and bucket) and
// takes its column from a pool: call it once a second, not per attempt.
func (r *Recorder) HerdSoFar(upto time.Duration) float64 {
	used := min(int(r.used.Load()), int(upto/Bucket))
	if used < WindowBuckets {
		return 0
	}
	r.flush()
	attempts := getColumns(used)
	defer putColumns(attempts)
	for b := 0; b < used; b++ {
		row := r.counts[b*int(NumSeries) : b*int(NumSeries)+int(NumOutcomes)]
		var sum int64
		for o := range row {
			sum += atomic.LoadInt64(&row[o])
		}
		attempts[b] = sum
	}
	return HerdFactor(attempts, 0)
}
