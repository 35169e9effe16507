package results

import "time"

// Unshared makes r a recorder that one goroutine at a time writes, and that
// nobody reads while it is written: records then take no atomic operation
// and no lock, only plain adds to the timeline. The simulator's recorders
// are unshared (one event loop each); the real engine's are not (a
// goroutine per client, and live snapshots meanwhile). The totals (Live,
// Calls) are then sums of the timeline's columns, which is what they count
// anyway; Live's InFlight, ByAttempt and Unnumbered, for live dashboards, stay zero.
// Call it before recording.
func (r *Recorder) Unshared() *Recorder {
	r.unshared = true
	if r.tried == nil {
		r.tried, r.okCol = make([]int64, r.buckets), make([]int64, r.buckets)
	}
	return r
}

// addPlain counts one in series s at elapsed time at: add without atomics.
func (r *Recorder) addPlain(at time.Duration, s Series) {
	if s >= SeriesBudgetDenied {
		r.plain.policy++
	}
	r.counts[r.row(at)*int(NumSeries)+int(s)]++
}

// row returns at's bucket, noting that it is in use.
func (r *Recorder) row(at time.Duration) int {
	b := int(at / Bucket)
	if b >= r.buckets {
		b = r.buckets - 1
	} else if b < 0 {
		b = 0
	}
	if t := int64(b) + 1; t > r.touched.Load() {
		r.touched.Store(t) // rare: once per new bucket
	}
	return b
}

// plainTotals are an unshared recorder's running totals.
type plainTotals struct {
	requests, succeeded, failed, calls int64
	policy                             int64 // policy events of any kind
	resends                            int64 // attempts with Resend
	hedges, hedgesWon                  int64 // attempts with Hedge, and Won
	lastEnd                            time.Duration
	outcomes                           [NumOutcomes]int64 // attempts by outcome: their sum is the attempts, OK's the successes
}

func (s *Shard) startedPlain(at time.Duration) {
	s.rec.plain.requests++
	s.rec.addPlain(at, SeriesRequests)
}

func (r *Recorder) callPlain(at time.Duration) {
	r.plain.calls++
	r.addPlain(at, SeriesCalls)
}

func (s *Shard) attemptPlain(a Attempt) {
	r := s.rec
	b := r.row(a.Sent)
	i := b * int(NumSeries)
	r.counts[i+int(a.Outcome)]++
	r.plain.outcomes[a.Outcome]++
	r.tried[b]++
	if a.Outcome == OK {
		r.okCol[b]++
	}
	if a.Resend {
		r.plain.resends++
		r.counts[i+int(SeriesTransportResends)]++
	}
	if a.Hedge {
		r.plain.hedges++
		if a.Won {
			r.plain.hedgesWon++
		}
	}
	if a.Number > 0 {
		r.counts[i+int(SeriesFirst)+min(a.Number, 4)-1]++
	}
	s.recordInterval(a.Sent+a.Latency, micros(a.Latency), false)
	if a.Upstream > 0 {
		s.recordUpstream(a.Sent+a.Latency, micros(a.Upstream))
	}
	s.noteSent(a.Sent)
}

func (s *Shard) requestPlain(q Request) {
	r := s.rec
	if q.Succeeded {
		r.plain.succeeded++
		r.addPlain(q.End, SeriesSucceeded)
	} else {
		r.plain.failed++
		r.addPlain(q.End, SeriesFailed)
	}
	r.plain.lastEnd = max(r.plain.lastEnd, q.End)
	s.recordInterval(q.End, micros(q.End-q.Start), true)
}

// livePlain is Live for an unshared recorder.
func (r *Recorder) livePlain() Live {
	t := &r.plain
	var attempts int64
	for _, n := range t.outcomes {
		attempts += n
	}
	return Live{Attempts: attempts, OK: t.outcomes[OK], Requests: t.requests, Succeeded: t.succeeded, Failed: t.failed}
}

// columnsPlain is columns for an unshared recorder, from the columns and
// totals its records keep as they go: a copy of each column, not a pass
// over every series of every bucket. The totals by outcome are the
// running ones, unless the run's end (SetEnd) cut records off, which are
// then summed from the timeline up to it.
func (r *Recorder) columnsPlain() (attempts, ok []int64, outcomes [NumOutcomes]int64) {
	used := int(r.used.Load())
	buf := getColumns(2 * used)
	attempts, ok = buf[:used], buf[used:] // attempts keeps the whole buffer as its capacity
	copy(attempts, r.tried[:used])
	copy(ok, r.okCol[:used])
	if int(r.touched.Load()) <= used {
		return attempts, ok, r.plain.outcomes
	}
	for b := range used {
		for o := range NumOutcomes {
			outcomes[o] += r.counts[b*int(NumSeries)+int(o)]
		}
	}
	return attempts, ok, outcomes
}
