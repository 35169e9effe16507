package results

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// IntervalLength is the span of elapsed time one interval histogram covers:
// the .hlog files hold one interval per second.
const IntervalLength = time.Second

// Interval is one second of a cohort's latencies: the attempts that ended in
// it and the logical requests that ended in it, in microseconds. Interval i
// covers elapsed time [i s, (i+1) s). Recorder.Histograms is the merge of
// every interval: the recorder keeps latencies only this way.
type Interval struct {
	Attempt, Request *hdrhistogram.PackedHistogram
	// Upstream is the time a chaos proxy's upstream took for the attempts
	// that ended in the interval (Attempt.Upstream); nil when the recorder
	// never received one.
	Upstream *hdrhistogram.PackedHistogram
}

// shardInterval is a shard's dense histograms for the interval it is in now.
// A value lands in the interval of its end time (send + latency for an
// attempt, end for a request). When a shard sees a later interval it moves
// its counts into the recorder's packed slot for the old one and reuses the
// same dense histograms, so recording is one RecordValue, allocates nothing
// and holds no lock beyond the shard's own; the move happens at most once
// per second per shard. Completed seconds are kept packed (a few KB each,
// not 184 KB), so memory is two dense histograms per shard plus the packed
// seconds, whatever the number of clients.
type shardInterval struct {
	index            int
	attempt, request *hdrhistogram.Histogram
	upstream         *hdrhistogram.Histogram // made on the first upstream time
	// few holds the interval's first fewMax values (attempts, requests):
	// a move records them one by one into the packed slot, which costs
	// what they number, where merging a dense histogram reads all of its
	// ~45,000 counts and clearing it writes them (69% of the CPU of a
	// day-long recording at 20 attempts a second). Past fewMax the dense
	// histogram takes the rest of the interval, and dense says so.
	few   [2][]int64
	dense [2]bool
}

// fewMax is how many values of an interval a shard keeps as a list before
// it records into its dense histogram.
const fewMax = 64

// add records v into the interval's attempts (request false) or requests.
func (iv *shardInterval) add(v int64, request bool) {
	k, h := 0, iv.attempt
	if request {
		k, h = 1, iv.request
	}
	if !iv.dense[k] {
		if len(iv.few[k]) < fewMax {
			if iv.few[k] == nil {
				iv.few[k] = make([]int64, 0, fewMax)
			}
			iv.few[k] = append(iv.few[k], v)
			return
		}
		iv.dense[k] = true
	}
	_ = h.RecordValue(v)
}

// empty reports whether the interval holds no attempt and no request.
func (iv *shardInterval) empty() bool {
	return len(iv.few[0]) == 0 && len(iv.few[1]) == 0 && !iv.dense[0] && !iv.dense[1]
}

// clear empties the interval's attempts and requests.
func (iv *shardInterval) clear() {
	for k, h := range [2]*hdrhistogram.Histogram{iv.attempt, iv.request} {
		iv.few[k] = iv.few[k][:0]
		if iv.dense[k] {
			h.Reset()
			iv.dense[k] = false
		}
	}
}

func newShardInterval() shardInterval {
	return shardInterval{attempt: newHist(), request: newHist()}
}

// intervalOf returns the interval of elapsed time t, clamped to the run like
// the timeline's buckets.
func (r *Recorder) intervalOf(t time.Duration) int {
	return min(max(int(t/IntervalLength), 0), r.lastInterval())
}

// lastInterval is the interval of the timeline's last bucket: the run's
// duration, or where the cohort stopped when it stopped early (SetEnd).
func (r *Recorder) lastInterval() int {
	return (int(r.used.Load())*int(Bucket)+int(IntervalLength)-1)/int(IntervalLength) - 1
}

// recordInterval records v (microseconds) ending at elapsed time end into
// the shard's interval histograms. The caller holds s.mu.
func (s *Shard) recordInterval(end time.Duration, v int64, request bool) {
	if sp := s.rec.split; sp > 0 && end >= sp-1 {
		k := 0
		if request {
			k = 1
		}
		_ = s.after[k].RecordValue(v)
	}
	iv := &s.iv
	if s.rec.whole {
		if request {
			_ = iv.request.RecordValue(v)
		} else {
			_ = iv.attempt.RecordValue(v)
		}
		return
	}
	k := s.rec.intervalOf(end)
	if k < iv.index {
		// A record that arrives after its shard moved on (a goroutine
		// preempted between measuring and recording): rare, so it goes
		// straight into the packed slot, under the recorder's lock.
		r := s.rec
		r.imu.Lock()
		slot := r.slot(k)
		if request {
			_ = slot.Request.RecordValue(v)
		} else {
			_ = slot.Attempt.RecordValue(v)
		}
		r.imu.Unlock()
		return
	}
	if k > iv.index {
		s.flushInterval()
		iv.index = k
	}
	iv.add(v, request)
}

// recordUpstream records an upstream time v (microseconds) of an attempt
// ending at elapsed time end. The caller holds s.mu.
func (s *Shard) recordUpstream(end time.Duration, v int64) {
	iv := &s.iv
	if iv.upstream == nil {
		iv.upstream = newHist()
		s.rec.upstream.Store(true)
	}
	k := s.rec.intervalOf(end)
	if s.rec.whole || k == iv.index {
		_ = iv.upstream.RecordValue(v)
		return
	}
	// Another second than the shard's current one (recordInterval has
	// just moved it on, or the record is late): straight into its slot.
	r := s.rec
	r.imu.Lock()
	_ = r.slot(k).Upstream.RecordValue(v)
	r.imu.Unlock()
}

// flushInterval moves the shard's current interval into the recorder's
// packed slot. The caller holds s.mu.
func (s *Shard) flushInterval() {
	iv := &s.iv
	up := iv.upstream != nil && iv.upstream.TotalCount() > 0
	if iv.empty() && !up {
		return
	}
	r := s.rec
	r.imu.Lock()
	slot := r.slot(iv.index)
	dense := [2]*hdrhistogram.Histogram{iv.attempt, iv.request}
	for k, p := range [2]*hdrhistogram.PackedHistogram{slot.Attempt, slot.Request} {
		for _, v := range iv.few[k] {
			_ = p.RecordValue(v)
		}
		if iv.dense[k] {
			p.MergeFrom(dense[k])
		}
	}
	if up {
		slot.Upstream.MergeFrom(iv.upstream)
		iv.upstream.Reset()
	}
	r.imu.Unlock()
	iv.clear()
}

// slot returns interval k's packed histograms, creating them on first use.
// The caller holds r.imu.
func (r *Recorder) slot(k int) *Interval {
	if k >= len(r.intervals) {
		r.intervals = append(r.intervals, make([]Interval, k+1-len(r.intervals))...)
	}
	it := &r.intervals[k]
	if it.Attempt == nil {
		it.Attempt = hdrhistogram.NewPacked(histMin, histMax, histSigF)
		it.Request = hdrhistogram.NewPacked(histMin, histMax, histSigF)
	}
	if it.Upstream == nil && r.upstream.Load() {
		it.Upstream = hdrhistogram.NewPacked(histMin, histMax, histSigF)
	}
	return it
}

// Intervals returns the cohort's latencies second by second, one Interval
// per second of the run (empty seconds hold empty histograms). Call it once
// the cohort has stopped; the histograms stay the recorder's: read them, do
// not change them.
func (r *Recorder) Intervals() []Interval {
	if r.whole {
		return nil
	}
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		s.flushInterval()
		s.mu.Unlock()
	}
	r.imu.Lock()
	defer r.imu.Unlock()
	for k := 0; k <= r.lastInterval(); k++ {
		r.slot(k)
	}
	return r.intervals
}
