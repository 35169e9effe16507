package results

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// A run can be split over processes or machines (herdbench scenario
// --shard K/N): each shard runs its share of every cohort's clients against
// one external target from one agreed start (T0) and writes a results
// folder of its own, marked with ShardInfo. herdbench merge adds the shards'
// 10 ms timelines bucket by bucket and their histograms interval by
// interval, and computes every figure again from the merged data (Restore,
// MergeRun), never by averaging the shards' figures.

// ShardInfo marks a shard's results folder (summary.json's "shard").
type ShardInfo struct {
	Index int `json:"index"` // from 0
	Of    int `json:"of"`    // the number of shards
	// StartAt is T0: the run's t = 0, the same instant for every shard.
	StartAt time.Time `json:"start_at"`
	// Clients is how many of each cohort's clients this shard ran
	// (closed and oneshot workloads); an open workload's arrivals are
	// shared out one by one.
	Clients int `json:"clients,omitempty"`
	// FirstSendMS is when this shard's first attempt went out, in
	// milliseconds after T0; null if it sent none. With clients that all
	// start at t = 0 (a oneshot workload) it is how far from T0 the shard
	// started.
	FirstSendMS *float64 `json:"first_send_ms"`
	// Clock is this shard's clock against the target's or proxy's, as
	// measured before T0; null when it was not (no --chaos-control).
	Clock *ClockOffset `json:"clock"`
	// Thresholds are the scenario's thresholds, not checked by the shard
	// (its figures are its share of the run's) but by the merge.
	Thresholds []DeferredThreshold `json:"thresholds_deferred,omitempty"`
	// Folder is, in a merged summary's list, the shard's results folder.
	Folder string `json:"folder,omitempty"`
}

// ClockOffset is a clock's offset from a reference clock, measured as NTP
// does from round trips: offset = ((t1 - t0) + (t2 - t3)) / 2 for a
// request sent at t0 and answered at t3 on this clock, received at t1 and
// answered at t2 on the reference's; the round trip with the shortest
// delay gives the estimate, and half that delay bounds its error.
type ClockOffset struct {
	// Against is what was measured against: the control URL of the
	// target or proxy.
	Against string `json:"against"`
	// OffsetMS is the reference clock minus this clock, in milliseconds:
	// positive when this clock is behind.
	OffsetMS float64 `json:"offset_ms"`
	// UncertaintyMS bounds the offset's error: half the round trip's
	// delay, net of the reference's own time to answer.
	UncertaintyMS float64 `json:"uncertainty_ms"`
	RoundTrips    int     `json:"round_trips"`
}

// DeferredThreshold is a threshold a shard leaves to the merge: its
// expression, for one cohort or ("") for every cohort.
type DeferredThreshold struct {
	Cohort     string `json:"cohort,omitempty"`
	Expression string `json:"expression"`
}

// Merged marks a merged results folder (summary.json's "merged"): the
// shards it was made from.
type Merged struct {
	Of      int         `json:"of"`
	StartAt time.Time   `json:"start_at"`
	Shards  []ShardInfo `json:"shards"`
	// StartSpreadMS is the spread of the shards' first sends: the latest
	// minus the earliest, in milliseconds; null when a shard sent nothing.
	StartSpreadMS *float64 `json:"start_spread_ms"`
	// Warnings are what the merge found worth saying: clock offsets
	// above MaxClockWarn, clocks not measured.
	Warnings []string `json:"warnings,omitempty"`
}

// The clock offsets a merge tolerates: above MaxClockWarn it warns (a
// wave is 10 ms wide; shards that far apart smear it), above MaxClockRefuse
// it refuses (the shards did not run one schedule).
const (
	MaxClockWarn   = 5 * time.Millisecond
	MaxClockRefuse = 500 * time.Millisecond
)

// ErrRestore marks data that cannot be a cohort's: more buckets or
// intervals than its run has.
var ErrRestore = errors.New("results: cannot restore")

// Restore returns a recorder holding data read back from results folders
// (or added up from several): t, a cohort's 10 ms timeline, and intervals,
// its per-second latencies; nil entries are empty seconds. Summarize then
// computes the cohort's figures from it, and Write writes its files, as
// for a recorder that recorded them. t's derived column (open_breakers) is
// ignored and integrated again from the breakers' transitions. What the
// data does not hold is not restored: the send lag and the latest end of
// a request (MergeRun takes them from the shards' figures).
func Restore(duration time.Duration, t Timeline, intervals []Interval) (*Recorder, error) {
	r := NewRecorder(duration, 1).Unshared()
	if len(t.Rows) > r.buckets {
		return nil, fmt.Errorf("%w: %d rows of 10 ms, more than the %d of a %s run", ErrRestore, len(t.Rows), r.buckets, duration)
	}
	if t.Resolution != Bucket && len(t.Rows) > 0 {
		return nil, fmt.Errorf("%w: rows %s apart, not %s", ErrRestore, t.Resolution, Bucket)
	}
	for b, row := range t.Rows {
		for s := Series(0); s < NumSeries; s++ {
			if s == SeriesOpenBreakers {
				continue
			}
			v := row[s]
			if v < 0 {
				return nil, fmt.Errorf("%w: a negative count (%d %s at %s)", ErrRestore, v, s, time.Duration(b)*Bucket)
			}
			r.counts[b*int(NumSeries)+int(s)] = v
			p := &r.plain
			switch {
			case s < Series(NumOutcomes):
				p.outcomes[s] += v
				r.tried[b] += v
				if s == Series(OK) {
					r.okCol[b] += v
				}
			case s == SeriesRequests:
				p.requests += v
			case s == SeriesSucceeded:
				p.succeeded += v
			case s == SeriesFailed:
				p.failed += v
			case s == SeriesCalls:
				p.calls += v
			case s == SeriesTransportResends:
				p.resends += v
			case s >= SeriesBudgetDenied:
				p.policy += v
			}
		}
	}
	used := max(1, len(t.Rows))
	r.used.Store(int64(used))
	r.touched.Store(int64(used))
	last := r.lastInterval()
	if len(intervals) > last+1 {
		for k := last + 1; k < len(intervals); k++ {
			if it := intervals[k]; it.Attempt != nil && it.Attempt.TotalCount() > 0 || it.Request != nil && it.Request.TotalCount() > 0 {
				return nil, fmt.Errorf("%w: latencies in the second from %d s, after the timeline's end at %s", ErrRestore, k, time.Duration(used)*Bucket)
			}
		}
		intervals = intervals[:last+1]
	}
	r.intervals = make([]Interval, len(intervals))
	for k, it := range intervals {
		if it.Attempt != nil || it.Request != nil {
			slot := r.slot(k)
			if it.Attempt != nil {
				slot.Attempt.Merge(it.Attempt)
			}
			if it.Request != nil {
				slot.Request.Merge(it.Request)
			}
		}
	}
	return r, nil
}

// MergeRun returns the figures of a cohort split into shards: parts are
// the shards' figures (in summary.json) and c the cohort's merged data
// (Restore). Every figure is computed again from the merged data
// (Summarize): counts, ratios, timeline figures and percentiles alike;
// the figures the data does not hold are combined by their metric's
// ShardRule: wasted_work summed, completion_s the largest. sendLag, if
// not nil, holds the shards' send lags merged: the cohort's
// send_lag_ms. A count the data gives that is not the shards' sum means
// a folder whose files disagree: MergeRun says which.
func MergeRun(c Cohort, w Window, parts []Run, sendLag *hdrhistogram.Histogram) (Run, error) {
	r := Summarize(c, w)
	for _, m := range metricTable() {
		var vals []float64
		for i := range parts {
			if v, ok := m.Value(&parts[i]); ok {
				vals = append(vals, v)
			}
		}
		switch m.Shards {
		case ShardSum:
			var sum float64
			for _, v := range vals {
				sum += v
			}
			got, ok := m.Value(&r)
			if ok && got != 0 && got != sum {
				return r, fmt.Errorf("%w: cohort %s: the merged timelines give %s %g, the shards' summaries %g in all", ErrRestore, c.Strategy, m.Name, got, sum)
			}
			if len(vals) > 0 && (!ok || got == 0) {
				m.at.set(&r, sum, true) // a figure the data does not hold (wasted_work)
			}
		case ShardMax:
			// A figure every shard has (completion_s: the work of every
			// shard ended), or the cohort has none either.
			if len(vals) == 0 || len(vals) < len(parts) {
				m.at.set(&r, 0, false)
				continue
			}
			m.at.set(&r, slices.Max(vals), true)
		}
	}
	r.SendLagMS = LagOf(sendLag)
	return r, nil
}

// set writes v (or, when ok is false, null) at f in r, making the objects
// on the way.
func (f field) set(r *Run, v float64, ok bool) {
	if f.computed {
		switch {
		case ok && r.Computed == nil:
			r.Computed = Values{f.key: v}
		case ok:
			r.Computed[f.key] = v
		default:
			delete(r.Computed, f.key)
		}
		return
	}
	x := reflect.ValueOf(r).Elem()
	for _, i := range f.index {
		if x.Kind() == reflect.Pointer {
			if x.IsNil() {
				if !ok {
					return
				}
				x.Set(reflect.New(x.Type().Elem()))
			}
			x = x.Elem()
		}
		x = x.Field(i)
	}
	if x.Kind() == reflect.Map {
		if x.IsNil() {
			x.Set(reflect.MakeMap(x.Type()))
		}
		e := reflect.New(x.Type().Elem()).Elem()
		setNumber(e, v)
		x.SetMapIndex(reflect.ValueOf(f.key), e)
		return
	}
	if x.Kind() == reflect.Pointer {
		if !ok {
			x.Set(reflect.Zero(x.Type()))
			return
		}
		p := reflect.New(x.Type().Elem())
		setNumber(p.Elem(), v)
		x.Set(p)
		return
	}
	setNumber(x, v)
}

func setNumber(x reflect.Value, v float64) {
	switch {
	case x.CanFloat():
		x.SetFloat(v)
	case x.CanInt():
		x.SetInt(int64(v))
	case x.CanUint():
		x.SetUint(uint64(v))
	}
}

// FolderSuffix is what a shard's results folder adds to the run's name
// (DirName), so that every shard of a run can write into one folder:
// "-shard-K-of-N".
func (s *ShardInfo) FolderSuffix() string { return fmt.Sprintf("-shard-%d-of-%d", s.Index, s.Of) }
