package results

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Timeline series of the client policies, after the attempt and request
// series.
const (
	SeriesBudgetDenied    Series = numCountSeries + iota // retries a budget denied (decision time)
	SeriesBreakerRejected                                // calls a breaker refused (intended send time)
	SeriesThrottled                                      // calls adaptive throttling refused (intended send time)
	SeriesBreakerOpened                                  // breakers that opened (closed -> open)
	SeriesBreakerClosed                                  // breakers that closed again (half-open -> closed)
	SeriesOpenBreakers                                   // breakers open or half-open at the bucket's end (derived)
	// SeriesTransportResends counts the attempts that were a client
	// transport's own re-send of the attempt before it (net/http's, on a
	// reused connection reset before the answer's first byte: Attempt.Resend),
	// by send time. They count among the attempts by outcome and by number
	// too; timeline.csv writes the column only when some cohort re-sent.
	SeriesTransportResends
	NumSeries
)

// PolicyEvent is one decision of a client policy (retry budget, circuit
// breaker, adaptive throttling), recorded on the timeline.
type PolicyEvent uint8

// Policy events.
const (
	BudgetDenied    PolicyEvent = iota // a budget denied a retry: the request failed at once
	BreakerRejected                    // a breaker refused a call: it never reached the target
	Throttled                          // adaptive throttling refused a call: it never reached the target
	BreakerOpened                      // a breaker opened
	BreakerClosed                      // a breaker closed again after its trial calls
	NumPolicyEvents
)

var policySeries = [NumPolicyEvents]Series{
	BudgetDenied:    SeriesBudgetDenied,
	BreakerRejected: SeriesBreakerRejected,
	Throttled:       SeriesThrottled,
	BreakerOpened:   SeriesBreakerOpened,
	BreakerClosed:   SeriesBreakerClosed,
}

// PolicySink takes policy events. *Shard implements it; a client whose
// sink does not simply records none.
type PolicySink interface {
	Policy(at time.Duration, e PolicyEvent)
}

var _ PolicySink = (*Shard)(nil)

// Policy records a policy event at elapsed time at.
func (s *Shard) Policy(at time.Duration, e PolicyEvent) {
	if e < NumPolicyEvents {
		s.rec.add(at, policySeries[e])
		if !s.rec.unshared { // live counters are for dashboards of real runs
			s.policy[e].Add(1)
		}
	}
}

// String returns the event's name, as its timeline column is named.
func (e PolicyEvent) String() string {
	if e < NumPolicyEvents {
		return policySeries[e].String()
	}
	return fmt.Sprintf("PolicyEvent(%d)", uint8(e))
}

// openBreakers fills the derived open_breakers column of t: breakers
// opened minus breakers closed up to the end of each row. A level cannot be
// summed into coarser rows like a count, so it is integrated here from the
// transitions, which are all the clients record (cheap: one add per
// transition, none per bucket).
func (r *Recorder) openBreakers(t *Timeline, per int) {
	var open int64
	used := int(r.used.Load())
	for b := 0; b < used; b++ {
		open += r.load(b, SeriesBreakerOpened) - r.load(b, SeriesBreakerClosed)
		if (b+1)%per == 0 || b == used-1 {
			t.Rows[b/per][SeriesOpenBreakers] = open
		}
	}
}

func (r *Recorder) load(bucket int, s Series) int64 {
	return atomic.LoadInt64(&r.counts[bucket*int(NumSeries)+int(s)])
}

// addPolicies fills a run's policy totals from its recorder's counts.
func (r *Run) addPolicies(rec *Recorder) {
	if rec.unshared && rec.plain.policy == 0 {
		return // nothing to add up (most simulated repetitions)
	}
	var open int64
	for b := 0; b < int(rec.used.Load()); b++ {
		r.BudgetDenied += rec.load(b, SeriesBudgetDenied)
		r.BreakerRejected += rec.load(b, SeriesBreakerRejected)
		r.Throttled += rec.load(b, SeriesThrottled)
		open += rec.load(b, SeriesBreakerOpened) - rec.load(b, SeriesBreakerClosed)
		r.MaxOpenBreakers = max(r.MaxOpenBreakers, open)
	}
}
