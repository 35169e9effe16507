package results

import (
	"slices"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Clone returns a copy of an unshared recorder (Unshared) that records on
// from where r is, on its own: its timeline, totals, histograms (the
// current second's and the packed ones), split and end are copies, so
// what one records the other never sees. The simulator's snapshots
// (package sim) continue a run from a copy of its recorders. Nothing may
// record into r while it is copied; it panics on a shared recorder, whose
// clients write from many goroutines while it would be copied.
func (r *Recorder) Clone() *Recorder {
	if !r.unshared {
		panic("results: Clone of a shared recorder; only an unshared (simulated) one can be copied")
	}
	c := &Recorder{
		duration:  r.duration,
		buckets:   r.buckets,
		counts:    slices.Clone(r.counts),
		shards:    make([]Shard, len(r.shards)),
		whole:     r.whole,
		unshared:  true,
		plain:     r.plain,
		tried:     slices.Clone(r.tried),
		okCol:     slices.Clone(r.okCol),
		obs:       r.obs,
		spread:    r.spread.clone(),
		split:     r.split,
		intervals: make([]Interval, len(r.intervals)),
	}
	c.calls.Store(r.calls.Load())
	c.used.Store(r.used.Load())
	c.touched.Store(r.touched.Load())
	c.upstream.Store(r.upstream.Load())
	for i, it := range r.intervals {
		c.intervals[i] = Interval{Attempt: clonePacked(it.Attempt), Request: clonePacked(it.Request), Upstream: clonePacked(it.Upstream)}
	}
	for i := range r.shards {
		r.shards[i].cloneInto(&c.shards[i], c)
	}
	return c
}

// cloneInto makes *d a copy of s, a shard of d's recorder rec.
func (s *Shard) cloneInto(d *Shard, rec *Recorder) {
	d.rec = rec
	d.iv = shardInterval{
		index:    s.iv.index,
		attempt:  cloneHist(s.iv.attempt),
		request:  cloneHist(s.iv.request),
		upstream: cloneHist(s.iv.upstream),
		dense:    s.iv.dense,
	}
	for k, few := range s.iv.few {
		if few != nil {
			d.iv.few[k] = append(make([]int64, 0, max(cap(few), fewMax)), few...)
		}
	}
	d.lag = cloneHist(s.lag)
	d.first = s.first
	d.tl = s.tl
	for k, h := range s.after {
		d.after[k] = cloneHist(h)
	}
	// The live counters: an unshared recorder keeps its totals in plain,
	// but a copy is a copy.
	d.attempts.Store(s.attempts.Load())
	d.ok.Store(s.ok.Load())
	d.requests.Store(s.requests.Load())
	d.succeeded.Store(s.succeeded.Load())
	d.failed.Store(s.failed.Load())
	d.lastEnd.Store(s.lastEnd.Load())
	d.inFlight.Store(s.inFlight.Load())
	for o := range s.live {
		for n := range s.live[o] {
			d.live[o][n].Store(s.live[o][n].Load())
		}
		d.unnumbered[o].Store(s.unnumbered[o].Load())
	}
	for e := range s.policy {
		d.policy[e].Store(s.policy[e].Load())
	}
}

// clone returns a copy of l (nil for nil): the same edges, copies of the
// spreads recorded so far.
func (l *spreadLog) clone() *spreadLog {
	if l == nil {
		return nil
	}
	c := &spreadLog{edges: l.edges, h: make([]*hdrhistogram.Histogram, len(l.h))}
	for i, h := range l.h {
		c.h[i] = cloneHist(h)
	}
	return c
}

func cloneHist(h *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	if h == nil {
		return nil
	}
	return h.Clone()
}

func clonePacked(h *hdrhistogram.PackedHistogram) *hdrhistogram.PackedHistogram {
	if h == nil {
		return nil
	}
	return h.Clone()
}
