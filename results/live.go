package results

import "strconv"

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
