package results

import (
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Bucket is the timeline's finest resolution.
const Bucket = 10 * time.Millisecond

// Histogram range: 1 µs to one hour, 3 significant figures.
const (
	histMin  = 1
	histMax  = int64(time.Hour / time.Microsecond)
	histSigF = 3
)

// Series is one column of the timeline.
type Series int

// Timeline series. The first NumOutcomes are attempts by outcome, counted in
// the bucket of their send time.
const (
	SeriesFirst     Series = Series(NumOutcomes) + iota // attempts that were first tries
	SeriesRetry1                                        // attempts that were the first retry
	SeriesRetry2                                        // the second retry
	SeriesRetry3up                                      // the third retry or later
	SeriesRequests                                      // logical requests started (intended start)
	SeriesSucceeded                                     // requests that ended in success (end time)
	SeriesFailed                                        // requests that gave up (end time)
	SeriesCalls                                         // writes an OCC target served (serve time)
	numCountSeries                                      // the policy series follow (policy.go)
)

var seriesNames = [NumSeries]string{
	"ok", "http_5xx", "http_429", "http_4xx", "timeout", "refused", "reset", "error",
	"first", "retry1", "retry2", "retry3up", "requests", "succeeded", "failed",
	"calls",
	"budget_denied", "breaker_rejected", "throttled", "breaker_opened", "breaker_closed", "open_breakers",
	"transport_resends",
}

// String returns the series' column name in timeline.csv.
func (s Series) String() string { return seriesNames[s] }

// Attempt is one call that went to the target.
type Attempt struct {
	Sent    time.Duration // elapsed time the attempt was sent
	Latency time.Duration
	// Number is 1 for the first try, 2 for the first retry, ...; 0 when
	// it is not known (a recording of clients that do not say it): the
	// attempt then counts in no attempt-number series.
	Number  int
	Outcome Outcome
	// Upstream is, for an attempt a chaos proxy forwarded, the time its
	// upstream took (recording.go); 0 for the others. It has a latency
	// histogram of its own (latency_ms.upstream, Tag=upstream in the
	// .hlog), kept only by recorders that receive one.
	Upstream time.Duration
	// Lag is how late the attempt was sent: its send time minus the time
	// its client scheduled it for. It is the harness's own lateness (a
	// busy machine wakes the client late), recorded by the real-time
	// engine only (selfcheck.go); the simulator is never late.
	Lag time.Duration
	// Status is the HTTP status code of the answer, 0 when there was
	// none (a transport error) or it is not known (the simulator, a
	// recording): live exports label by it (package telemetry).
	Status int
	// Hedge marks an attempt a hedging strategy sent while another attempt
	// of its request was in flight (clients.Hedge); Won one whose success
	// ended its request. Both count in the run's totals (Recorder.Hedges).
	Hedge, Won bool
	// Resend marks an attempt the client's transport sent again by itself,
	// unseen by the strategy: net/http's re-send of a replayable request
	// whose reused connection was reset before the answer's first byte.
	// It carries the number of the attempt it repeats (the target sees
	// that number twice) and counts in SeriesTransportResends.
	Resend bool
}

// Observer sees every attempt a shared recorder records, as it is
// recorded, on the recording client's goroutine: the live exports of
// package telemetry (latency histograms). It must be safe for concurrent
// use and cheap: it is on every attempt's path.
type Observer interface {
	ObserveAttempt(a Attempt)
}

// Request is one logical request that ended.
type Request struct {
	Start     time.Duration // intended start of its first attempt
	End       time.Duration // its final outcome
	Succeeded bool
}

// Sink takes a client's records. *Shard implements it.
type Sink interface {
	Started(at time.Duration)
	Attempt(a Attempt)
	Request(q Request)
}

// Recorder records one cohort.
type Recorder struct {
	duration time.Duration
	buckets  int
	counts   []int64 // buckets*NumSeries, updated atomically
	shards   []Shard

	imu       sync.Mutex // guards intervals
	intervals []Interval // per second, packed (interval.go)
	whole     bool       // no intervals: one histogram pair per shard for the whole run
	calls     atomic.Int64
	used      atomic.Int64 // buckets the timelines cover; see SetEnd
	touched   atomic.Int64 // 1 + the highest bucket written, for Reset

	upstream atomic.Bool // some attempt had an Upstream time: intervals keep it

	unshared bool        // one writer, no concurrent reader (unshared.go)
	plain    plainTotals // the totals of an unshared recorder
	// tried and okCol are an unshared recorder's attempts and successes
	// per bucket, kept as it records (columnsPlain).
	tried, okCol []int64

	obs    Observer   // told of each attempt, or nil (Observe)
	spread *spreadLog // the synchronizing edges' spread (spread.go); nil without edges

	// split is, after SplitAt, 1 + the elapsed time from which each
	// shard's after histograms also record; 0 without a split.
	split time.Duration
}

// Shard records for a group of clients: its histograms sit behind their own
// lock, so groups never contend with each other.
type Shard struct {
	rec *Recorder
	mu  sync.Mutex
	iv  shardInterval           // the current second's latency histograms (interval.go)
	lag *hdrhistogram.Histogram // send lag, made on the first shared record (selfcheck.go)
	// first is 1 + the send time of the shard's earliest attempt, 0 before
	// any: how soon after t = 0 the swarm put its first attempt on the
	// wire (FirstSent).
	first time.Duration
	// tl holds the shard's counts of the timeline's hot series (pending)
	// in the two buckets it last recorded in, under mu: they go to the
	// shared timeline when a record moves on to another bucket, or when
	// a reader flushes them, so that clients on different cores do not
	// contend for the shared row of the current 10 ms.
	tl [2]pendingRow
	// The run's totals (Live) and the latest request end in ns
	// (LastEnd), per shard so that clients on different cores do not
	// contend for one counter.
	attempts, ok, requests, succeeded, failed, lastEnd atomic.Int64
	hedges, hedgesWon                                  atomic.Int64 // attempts with Attempt.Hedge, and .Won
	// Live counters for dashboards, per shard so clients do not contend.
	live       [NumOutcomes][AttemptGroups]atomic.Int64
	unnumbered [NumOutcomes]atomic.Int64 // attempts of unknown number (0), by outcome
	inFlight   atomic.Int64
	policy     [NumPolicyEvents]atomic.Int64
	// after holds, with a split (SplitAt), the attempt and request
	// latencies of the records that ended at or after it.
	after [2]*hdrhistogram.Histogram
}

var _ Sink = (*Shard)(nil)

// NewRecorder returns a recorder for a run of the given duration with the
// given number of shards (at least 1).
func NewRecorder(duration time.Duration, shards int) *Recorder {
	n := int((duration + Bucket - 1) / Bucket)
	r := &Recorder{duration: duration, buckets: max(1, n), shards: make([]Shard, max(1, shards))}
	r.used.Store(int64(r.buckets))
	r.counts = make([]int64, r.buckets*int(NumSeries))
	for i := range r.shards {
		r.shards[i] = Shard{rec: r, iv: newShardInterval()}
	}
	return r
}

// RecorderBytes is what NewRecorder(duration, shards) allocates: its 10 ms
// timeline and each shard's two latency histograms of the current second.
// The timeline's pages are touched only as buckets are written.
func RecorderBytes(duration time.Duration, shards int) int64 {
	n := int64(max(1, int((duration+Bucket-1)/Bucket)))
	return n*int64(NumSeries)*8 + int64(max(1, shards))*2*int64(newHist().ByteSize())
}

// WithoutIntervals makes r keep its latencies for the whole run only, not
// per second: Intervals returns nothing (no .hlog can be written), and
// recording never moves histograms. The simulator's repetitions whose
// timelines are not kept use it: only their summary is needed. Call it
// before recording.
func (r *Recorder) WithoutIntervals() *Recorder {
	r.whole = true
	return r
}

// SplitAt makes r keep, beside its latencies, those of the records that
// ended at or after elapsed time t (the end of the last fault): After
// returns them, in both recording modes (per second or WithoutIntervals,
// shared or Unshared), for any metric of the table to read. Call it
// before recording; after a Reset it may move.
func (r *Recorder) SplitAt(t time.Duration) *Recorder {
	r.split = max(t, 0) + 1
	for i := range r.shards {
		s := &r.shards[i]
		for k := range s.after {
			if s.after[k] == nil {
				s.after[k] = newHist()
			}
		}
	}
	return r
}

// After returns the merged attempt and request latency histograms (in
// microseconds) of the records that ended at or after the split
// (SplitAt); ok is false without one. Call it once the cohort has
// stopped; with one shard, read them, do not change them.
func (r *Recorder) After() (attempt, request *hdrhistogram.Histogram, ok bool) {
	if r.split == 0 {
		return nil, nil, false
	}
	if len(r.shards) == 1 {
		return r.shards[0].after[0], r.shards[0].after[1], true
	}
	attempt, request = newHist(), newHist()
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		attempt.Merge(s.after[0])
		request.Merge(s.after[1])
		s.mu.Unlock()
	}
	return attempt, request, true
}

// RestoreAfter adds latencies read back from shards' split logs
// (SplitLog) to r's split: Restore's counterpart for After. Call SplitAt
// first.
func (r *Recorder) RestoreAfter(attempt, request *hdrhistogram.Histogram) {
	if r.split == 0 {
		return
	}
	s := &r.shards[0]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.after[0].Merge(attempt)
	s.after[1].Merge(request)
}

// resetHist empties h, unless it is empty already.
func resetHist(h *hdrhistogram.Histogram) {
	if h.TotalCount() != 0 {
		h.Reset()
	}
}

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, histSigF) }

// Observe makes r tell o of every attempt it records (a shared recorder
// only: the simulator's unshared ones tell nobody). Call it before
// recording.
func (r *Recorder) Observe(o Observer) *Recorder {
	r.obs = o
	return r
}

// Shard returns the shard for client id.
func (r *Recorder) Shard(id int) *Shard { return &r.shards[id%len(r.shards)] }

func (r *Recorder) add(at time.Duration, s Series) {
	if r.unshared {
		r.addPlain(at, s)
		return
	}
	atomic.AddInt64(&r.counts[r.sharedRow(at)+int(s)], 1)
}

// pending is how many of the first series a shard holds per bucket
// (pendingRow): the outcomes, the attempt numbers, requests started,
// succeeded and failed, which every request records.
const pending = int(SeriesFailed) + 1

// pendingRow is a shard's counts of the pending series in one bucket.
type pendingRow struct {
	bucket int // 1 + the bucket, 0 for none
	n      [pending]int64
}

// count counts one in series s (< pending) at elapsed time at. The
// caller holds s.mu.
func (s *Shard) count(at time.Duration, series Series) {
	r := s.rec
	b := int(at / Bucket)
	if b >= r.buckets {
		b = r.buckets - 1
	} else if b < 0 {
		b = 0
	}
	p := &s.tl[b&1]
	if p.bucket != b+1 {
		s.flushRow(p)
		p.bucket = b + 1
	}
	p.n[series]++
}

// flushRow adds p's counts to the shared timeline and empties it. The
// caller holds s.mu.
func (s *Shard) flushRow(p *pendingRow) {
	if p.bucket == 0 {
		return
	}
	r := s.rec
	row := r.sharedRow(time.Duration(p.bucket-1) * Bucket)
	for i, v := range p.n {
		if v != 0 {
			atomic.AddInt64(&r.counts[row+i], v)
		}
	}
	*p = pendingRow{}
}

// flush adds every shard's pending counts to the shared timeline: what a
// reader of the timeline calls first.
func (r *Recorder) flush() {
	if r.unshared {
		return
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		s.flushRow(&s.tl[0])
		s.flushRow(&s.tl[1])
		s.mu.Unlock()
	}
}

// sharedRow returns the index of the first count of at's bucket, noting
// atomically that the bucket is in use.
func (r *Recorder) sharedRow(at time.Duration) int {
	b := int(at / Bucket)
	if b >= r.buckets {
		b = r.buckets - 1
	} else if b < 0 {
		b = 0
	}
	if t := int64(b) + 1; t > r.touched.Load() {
		for {
			old := r.touched.Load()
			if t <= old || r.touched.CompareAndSwap(old, t) {
				break
			}
		}
	}
	return b * int(NumSeries)
}

// Started records the intended start of a logical request.
func (s *Shard) Started(at time.Duration) {
	if s.rec.unshared {
		s.startedPlain(at)
		return
	}
	s.requests.Add(1)
	s.mu.Lock()
	s.count(at, SeriesRequests)
	s.mu.Unlock()
}

// Attempt records one attempt.
func (s *Shard) Attempt(a Attempt) {
	r := s.rec
	if r.unshared {
		s.attemptPlain(a)
		return
	}
	s.attempts.Add(1)
	if a.Outcome == OK {
		s.ok.Add(1)
	}
	if a.Resend {
		r.add(a.Sent, SeriesTransportResends)
	}
	if a.Hedge {
		s.hedge(a.Won)
	}
	if a.Number > 0 {
		s.live[a.Outcome][min(a.Number, AttemptGroups)-1].Add(1)
	} else {
		s.unnumbered[a.Outcome].Add(1)
	}
	s.mu.Lock()
	s.count(a.Sent, Series(a.Outcome))
	if a.Number > 0 {
		s.count(a.Sent, SeriesFirst+Series(min(a.Number, 4)-1))
	}
	s.recordInterval(a.Sent+a.Latency, micros(a.Latency), false)
	if a.Upstream > 0 {
		s.recordUpstream(a.Sent+a.Latency, micros(a.Upstream))
	}
	s.recordLag(a.Lag)
	s.noteSent(a.Sent)
	s.mu.Unlock()
	if l := r.spread; l != nil {
		l.record(a.Sent, a.Sent+a.Latency)
	}
	if r.obs != nil {
		r.obs.ObserveAttempt(a)
	}
}

// Request records the end of a logical request.
func (s *Shard) Request(q Request) {
	r := s.rec
	if r.unshared {
		s.requestPlain(q)
		return
	}
	series := SeriesFailed
	if q.Succeeded {
		s.succeeded.Add(1)
		series = SeriesSucceeded
	} else {
		s.failed.Add(1)
	}
	s.mu.Lock()
	s.count(q.End, series)
	if end := int64(q.End); end > s.lastEnd.Load() {
		s.lastEnd.Store(end) // under s.mu, as Ended's
	}
	s.recordInterval(q.End, micros(q.End-q.Start), true)
	s.mu.Unlock()
}

// noteSent keeps the earliest send time. The caller holds s.mu, or is an
// unshared recorder's one writer.
func (s *Shard) noteSent(at time.Duration) {
	if s.first == 0 || at+1 < s.first {
		s.first = at + 1
	}
}

// FirstSent returns the send time of the earliest attempt recorded, and
// false when none was. A shard of a split run records it: how soon after
// the agreed start its first attempt went out.
func (r *Recorder) FirstSent() (time.Duration, bool) {
	var first time.Duration
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if f := s.first; f != 0 && (first == 0 || f < first) {
			first = f
		}
		s.mu.Unlock()
	}
	return first - 1, first != 0
}

func micros(d time.Duration) int64 {
	return min(max(int64(d/time.Microsecond), histMin), histMax)
}

// Live is a snapshot of a recorder's running totals, cheap to take while
// the run goes on.
type Live struct {
	Attempts, OK, Requests, Succeeded, Failed int64
	// InFlight is the attempts on the wire now.
	InFlight int64
	// ByAttempt is the attempts by outcome and attempt number (AttemptGroups).
	ByAttempt [NumOutcomes][AttemptGroups]int64
	// Unnumbered is the attempts whose number was not known (a recording
	// of clients that do not say it), by outcome: with ByAttempt, every
	// attempt by outcome.
	Unnumbered [NumOutcomes]int64
	// Policy is the client policies' decisions so far, by PolicyEvent.
	Policy [NumPolicyEvents]int64
}

// Live returns the running totals.
func (r *Recorder) Live() Live {
	if r.unshared {
		return r.livePlain()
	}
	var l Live
	for i := range r.shards {
		s := &r.shards[i]
		l.Attempts += s.attempts.Load()
		l.OK += s.ok.Load()
		l.Requests += s.requests.Load()
		l.Succeeded += s.succeeded.Load()
		l.Failed += s.failed.Load()
		l.InFlight += s.inFlight.Load()
		for e := range s.policy {
			l.Policy[e] += s.policy[e].Load()
		}
		for o := range s.live {
			for n := range s.live[o] {
				l.ByAttempt[o][n] += s.live[o][n].Load()
			}
			l.Unnumbered[o] += s.unnumbered[o].Load()
		}
	}
	return l
}

// Call records one write served by an OCC target at elapsed time at (AWS's
// "calls"). It implements target.CallRecorder.
func (r *Recorder) Call(at time.Duration) {
	if r.unshared {
		r.callPlain(at)
		return
	}
	r.calls.Add(1)
	r.add(at, SeriesCalls)
}

// Calls returns the writes recorded with Call.
func (r *Recorder) Calls() int64 {
	if r.unshared {
		return r.plain.calls
	}
	return r.calls.Load()
}

// hedge counts a hedge, and whether it won.
func (s *Shard) hedge(won bool) {
	s.hedges.Add(1)
	if won {
		s.hedgesWon.Add(1)
	}
}

// Hedges returns the hedges recorded (Attempt.Hedge) and those that won
// their request (Attempt.Won). Call it once the recording has ended.
func (r *Recorder) Hedges() (sent, won int64) {
	if r.unshared {
		return r.plain.hedges, r.plain.hedgesWon
	}
	for i := range r.shards {
		sent += r.shards[i].hedges.Load()
		won += r.shards[i].hedgesWon.Load()
	}
	return sent, won
}

// TransportResends returns the attempts recorded as a transport's own
// re-send (Attempt.Resend), summed from the timeline. Call it once the
// cohort has stopped.
func (r *Recorder) TransportResends() int64 {
	if r.unshared && r.plain.resends == 0 {
		return 0 // no re-send, so the column is all zeros (most simulated repetitions)
	}
	var n int64
	for b := range int(r.used.Load()) {
		n += r.load(b, SeriesTransportResends)
	}
	return n
}

// LastEnd returns the end of the latest logical request recorded (0 if
// none): for a oneshot workload, when the last unit of work ended.
func (r *Recorder) LastEnd() time.Duration {
	if r.unshared {
		return r.plain.lastEnd
	}
	var last int64
	for i := range r.shards {
		last = max(last, r.shards[i].lastEnd.Load())
	}
	return time.Duration(last)
}

// SetEnd tells the recorder that its cohort stopped at elapsed time at,
// before the run's duration, because every client had stopped (a oneshot
// workload whose work is done). Timelines then end with the bucket holding
// at, instead of running on with empty buckets to the duration.
func (r *Recorder) SetEnd(at time.Duration) {
	r.used.Store(int64(min(r.buckets, max(1, int(at/Bucket)+1))))
}

// Reset empties the recorder for another run of the same duration, keeping
// its memory: the simulator reuses one recorder per worker for every
// repetition whose timelines it does not keep. It has no split until
// SplitAt again.
func (r *Recorder) Reset() {
	r.split = 0
	clear(r.counts[:int(r.touched.Load())*int(NumSeries)])
	if r.tried != nil {
		clear(r.tried[:r.touched.Load()])
		clear(r.okCol[:r.touched.Load()])
	}
	r.used.Store(int64(r.buckets))
	r.plain = plainTotals{}
	r.calls.Store(0)
	r.touched.Store(0)
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		// A run without intervals records here directly. An empty
		// histogram is left as it is: clearing its 23,000 counts is most
		// of a reset's cost when the simulator runs thousands of
		// repetitions.
		resetHist(s.iv.attempt)
		resetHist(s.iv.request)
		s.iv.dense = [2]bool{}
		s.iv.clear()
		s.iv.upstream = nil
		s.iv.index = 0
		for _, h := range s.after {
			if h != nil {
				h.Reset()
			}
		}
		if s.lag != nil {
			s.lag.Reset()
		}
		s.first = 0
		s.tl = [2]pendingRow{}
		s.mu.Unlock()
		s.inFlight.Store(0)
		for _, c := range []*atomic.Int64{&s.attempts, &s.ok, &s.requests, &s.succeeded, &s.failed, &s.lastEnd, &s.hedges, &s.hedgesWon} {
			c.Store(0)
		}
		for e := range s.policy {
			s.policy[e].Store(0)
		}
		for o := range s.live {
			for n := range s.live[o] {
				s.live[o][n].Store(0)
			}
			s.unnumbered[o].Store(0)
		}
	}
	r.upstream.Store(false)
	r.imu.Lock()
	r.intervals = r.intervals[:0]
	r.imu.Unlock()
}

// Timeline returns a copy of the counts at resolution res (a multiple of
// Bucket): one row per bucket, one column per Series. Call it once the
// cohort has stopped.
func (r *Recorder) Timeline(res time.Duration) Timeline {
	r.flush()
	per := max(1, int(res/Bucket))
	used := int(r.used.Load())
	rows := (used + per - 1) / per
	t := Timeline{Resolution: time.Duration(per) * Bucket, Rows: make([][NumSeries]int64, rows)}
	for b := 0; b < used; b++ {
		row := &t.Rows[b/per]
		for s := 0; s < int(NumSeries); s++ {
			row[s] += atomic.LoadInt64(&r.counts[b*int(NumSeries)+s])
		}
	}
	r.openBreakers(&t, per)
	return t
}

// columns returns the attempts (all outcomes) and the successes per
// Bucket, and the attempts by outcome in all, without copying the whole
// timeline: Summarize's hot path when the simulator runs thousands of
// repetitions. The two columns share one buffer from a pool: give it back
// with putColumns when done.
func (r *Recorder) columns() (attempts, ok []int64, outcomes [NumOutcomes]int64) {
	if r.unshared {
		return r.columnsPlain()
	}
	r.flush()
	used := int(r.used.Load())
	buf := getColumns(2 * used)
	attempts, ok = buf[:used], buf[used:] // attempts keeps the whole buffer as its capacity
	// The totals by outcome add up in eight variables, which live in
	// registers, rather than in an array, which lives in memory: a load
	// and a store per count. That makes this loop a third faster, and it
	// is most of Summarize's cost in a sweep (1,500 buckets a repetition
	// on average in the AWS sweep).
	var o0, o1, o2, o3, o4, o5, o6, o7 int64
	for b := range used {
		row := (*[NumOutcomes]int64)(r.counts[b*int(NumSeries):])
		v0, v1, v2, v3 := atomic.LoadInt64(&row[0]), atomic.LoadInt64(&row[1]), atomic.LoadInt64(&row[2]), atomic.LoadInt64(&row[3])
		v4, v5, v6, v7 := atomic.LoadInt64(&row[4]), atomic.LoadInt64(&row[5]), atomic.LoadInt64(&row[6]), atomic.LoadInt64(&row[7])
		o0, o1, o2, o3, o4, o5, o6, o7 = o0+v0, o1+v1, o2+v2, o3+v3, o4+v4, o5+v5, o6+v6, o7+v7
		attempts[b], ok[b] = v0+v1+v2+v3+v4+v5+v6+v7, v0 // OK is outcome 0
	}
	return attempts, ok, [NumOutcomes]int64{o0, o1, o2, o3, o4, o5, o6, o7}
}

// columns' loop names one variable per outcome, OK the first: a new
// outcome, or another order, breaks the build here until the loop has
// caught up.
const _ = uint(NumOutcomes-8) + uint(8-NumOutcomes) - uint(OK)

// columnPool holds columns' buffers, so that summarizing thousands of
// simulated repetitions allocates none.
var columnPool sync.Pool

func getColumns(n int) []int64 {
	if p, _ := columnPool.Get().(*[]int64); p != nil && cap(*p) >= n {
		return (*p)[:n]
	}
	return make([]int64, n)
}

// putColumns gives back the buffer of columns' attempts column.
func putColumns(attempts []int64) {
	b := attempts[:cap(attempts)]
	columnPool.Put(&b)
}

// Histograms returns the merged attempt and request latency histograms (in
// microseconds): the sum of the per-second Intervals, so the summary's
// percentiles and the .hlog files agree exactly. Call it once the cohort has
// stopped. A recorder without intervals (WithoutIntervals) with one shard
// returns the shard's own histograms: read them, do not change them.
func (r *Recorder) Histograms() (attempt, request *hdrhistogram.Histogram) {
	if r.whole {
		if len(r.shards) == 1 {
			return r.shards[0].iv.attempt, r.shards[0].iv.request
		}
		attempt, request = newHist(), newHist()
		for i := range r.shards {
			s := &r.shards[i]
			s.mu.Lock()
			attempt.Merge(s.iv.attempt)
			request.Merge(s.iv.request)
			s.mu.Unlock()
		}
		return attempt, request
	}
	attempt, request = newHist(), newHist()
	for _, it := range r.Intervals() {
		it.Attempt.MergeInto(attempt)
		it.Request.MergeInto(request)
	}
	return attempt, request
}

// UpstreamHistogram returns the merged histogram (in microseconds) of the
// upstream times of a chaos proxy's forwarded attempts (Attempt.Upstream),
// or nil when the recorder received none. Call it once the cohort has
// stopped.
func (r *Recorder) UpstreamHistogram() *hdrhistogram.Histogram {
	if !r.upstream.Load() {
		return nil
	}
	h := newHist()
	if r.whole {
		for i := range r.shards {
			s := &r.shards[i]
			s.mu.Lock()
			if s.iv.upstream != nil {
				h.Merge(s.iv.upstream)
			}
			s.mu.Unlock()
		}
		return h
	}
	for _, it := range r.Intervals() {
		if it.Upstream != nil {
			it.Upstream.MergeInto(h)
		}
	}
	return h
}

// Timeline is counts per bucket and series.
type Timeline struct {
	Resolution time.Duration
	Rows       [][NumSeries]int64
}

// Column returns one series as a slice.
func (t Timeline) Column(s Series) []int64 {
	out := make([]int64, len(t.Rows))
	for i := range t.Rows {
		out[i] = t.Rows[i][s]
	}
	return out
}

// Attempts returns the attempts per bucket (all outcomes).
func (t Timeline) Attempts() []int64 {
	out := make([]int64, len(t.Rows))
	for i := range t.Rows {
		for o := 0; o < int(NumOutcomes); o++ {
			out[i] += t.Rows[i][o]
		}
	}
	return out
}

// Duration returns the run duration the recorder was made for.
func (r *Recorder) Duration() time.Duration { return r.duration }

// Ended records the end of a logical request whose start is not known, at
// elapsed time at: a recording sees the attempt that ended a request (a 2xx
// ends it in success) but not when its first attempt was meant to start,
// so the request counts as succeeded or failed and has no latency.
func (s *Shard) Ended(at time.Duration, succeeded bool) {
	r := s.rec
	series := SeriesFailed
	if succeeded {
		series = SeriesSucceeded
	}
	if r.unshared {
		if succeeded {
			r.plain.succeeded++
		} else {
			r.plain.failed++
		}
		r.addPlain(at, series)
		r.plain.lastEnd = max(r.plain.lastEnd, at)
		return
	}
	if succeeded {
		s.succeeded.Add(1)
	} else {
		s.failed.Add(1)
	}
	r.add(at, series)
	s.mu.Lock()
	if end := int64(at); end > s.lastEnd.Load() {
		s.lastEnd.Store(end)
	}
	s.mu.Unlock()
}

// Upto returns a copy of what r recorded up to elapsed time end, as a
// recorder of a run of that length: its timeline's buckets to end, the
// totals of those buckets, and its latencies second by second. A recording
// that goes on writes its results so far from such a copy, while its
// clients keep recording into r. Records sent after end are left out; an
// attempt sent before end that ended after it is in the copy's last
// second.
func (r *Recorder) Upto(end time.Duration) *Recorder {
	r.flush()
	c := NewRecorder(max(end, Bucket), 1)
	n := min(c.buckets, r.buckets)
	for i := range n * int(NumSeries) {
		if v := atomic.LoadInt64(&r.counts[i]); v != 0 {
			c.counts[i] = v // zeros left unwritten: their pages are never touched
		}
	}
	c.touched.Store(int64(n))
	t := &c.shards[0]
	for b := range n {
		row := c.counts[b*int(NumSeries) : (b+1)*int(NumSeries)]
		for o := range NumOutcomes {
			t.attempts.Add(row[o])
		}
		t.ok.Add(row[OK])
		t.requests.Add(row[SeriesRequests])
		t.succeeded.Add(row[SeriesSucceeded])
		t.failed.Add(row[SeriesFailed])
		c.calls.Add(row[SeriesCalls])
	}
	t.lastEnd.Store(min(int64(r.LastEnd()), int64(end)))
	if r.upstream.Load() {
		c.upstream.Store(true)
	}
	if r.whole {
		c.whole = true
	}
	if r.split > 0 {
		c.SplitAt(r.split - 1)
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if r.split > 0 {
			c.shards[0].after[0].Merge(s.after[0])
			c.shards[0].after[1].Merge(s.after[1])
		}
		if !r.whole {
			s.flushInterval()
		} else {
			c.shards[0].iv.attempt.Merge(s.iv.attempt)
			c.shards[0].iv.request.Merge(s.iv.request)
			if s.iv.upstream != nil {
				if c.shards[0].iv.upstream == nil {
					c.shards[0].iv.upstream = newHist()
				}
				c.shards[0].iv.upstream.Merge(s.iv.upstream)
			}
		}
		s.mu.Unlock()
	}
	if r.whole {
		return c
	}
	tmp := newHist()
	copyPacked := func(p *hdrhistogram.PackedHistogram) *hdrhistogram.PackedHistogram {
		if p == nil {
			return nil
		}
		q := hdrhistogram.NewPacked(histMin, histMax, histSigF)
		if p.TotalCount() > 0 {
			tmp.Reset()
			p.MergeInto(tmp)
			q.MergeFrom(tmp)
		}
		return q
	}
	r.imu.Lock()
	defer r.imu.Unlock()
	last := c.lastInterval()
	for k := 0; k <= last && k < len(r.intervals); k++ {
		it := r.intervals[k]
		if it.Attempt == nil {
			continue
		}
		c.intervals = append(c.intervals, make([]Interval, k+1-len(c.intervals))...)
		c.intervals[k] = Interval{Attempt: copyPacked(it.Attempt), Request: copyPacked(it.Request), Upstream: copyPacked(it.Upstream)}
	}
	return c
}

// NewHistogram returns an empty latency histogram of the recorder's range and
// precision (microseconds, 1 µs to 1 h, 3 significant figures): the one to
// merge a histogram log's intervals into.
func NewHistogram() *hdrhistogram.Histogram { return newHist() }

// NewPackedHistogram returns an empty packed latency histogram of the
// recorder's range and precision, the kind one second of an Interval
// holds: the one to add a histogram log's interval into.
func NewPackedHistogram() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(histMin, histMax, histSigF)
}
