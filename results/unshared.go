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
	return r
}

// addPlain counts one in series s at elapsed time at: add without atomics.
func (r *Recorder) addPlain(at time.Duration, s Series) {
	if s >= SeriesBudgetDenied {
		r.plain.policy++
	}
	r.counts[r.row(at)+int(s)]++
}

// row returns the index of the first count of at's bucket, noting that the
// bucket is in use.
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
	return b * int(NumSeries)
}

// plainTotals are an unshared recorder's running totals.
type plainTotals struct {
	attempts, ok, requests, succeeded, failed, calls int64
	policy                                           int64 // policy events of any kind
	resends                                          int64 // attempts with Resend
	lastEnd                                          time.Duration
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
	r.plain.attempts++
	if a.Outcome == OK {
		r.plain.ok++
	}
	i := r.row(a.Sent)
	r.counts[i+int(a.Outcome)]++
	if a.Resend {
		r.plain.resends++
		r.counts[i+int(SeriesTransportResends)]++
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
	return Live{Attempts: t.attempts, OK: t.ok, Requests: t.requests, Succeeded: t.succeeded, Failed: t.failed}
}
