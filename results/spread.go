package results

import (
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The spread of a synchronizing event: in the model, a crash ends every
// attempt in flight at one instant, so every client learns of it at once
// and schedules its retries from the same t; that is what makes a wave.
// In real time the clients learn of it one after the other (the target
// resets its connections one by one, each client's goroutine reads its
// error when it is scheduled), and each then sends on its own schedule:
// the send lag, measured against each client's own schedule, cannot see a
// wave that came apart at its source. The spread can: for each edge, how
// long after the plan's instant each client's reply arrived.

// spreadLog is a recorder's record of its synchronizing edges: the edges,
// set once before the run, and per edge a histogram of microseconds from
// the edge to the end of each attempt that was in flight across it.
type spreadLog struct {
	edges []time.Duration // ascending; immutable once set
	mu    sync.Mutex
	h     []*hdrhistogram.Histogram // per edge, made on its first record
}

// SetEdges tells the recorder the instants at which the model ends every
// attempt in flight at once (a crash), so that it measures how long after
// each one the clients learned of it (Spread). Call it before the run
// starts, with ascending edges; nil measures nothing.
func (r *Recorder) SetEdges(edges []time.Duration) {
	r.spread = &spreadLog{edges: edges, h: make([]*hdrhistogram.Histogram, len(edges))}
}

// recordSpread records, for an attempt sent at sent that ended at end, how
// long after the first edge in (sent, end] it ended: the model ends it at
// that edge. Most attempts span no edge and cost a comparison or two.
func (l *spreadLog) record(sent, end time.Duration) {
	e := l.edges
	// A binary search would do, but plans have a handful of crashes.
	i := 0
	for i < len(e) && e[i] <= sent {
		i++
	}
	if i == len(e) || e[i] > end {
		return
	}
	l.mu.Lock()
	if l.h[i] == nil {
		l.h[i] = NewLagHistogram()
	}
	_ = l.h[i].RecordValue(min(max(int64((end-e[i])/time.Microsecond), 0), histMax))
	l.mu.Unlock()
}

// EdgeSpread is one synchronizing edge and how long after it the clients
// whose attempts it ended learned of it, in microseconds.
type EdgeSpread struct {
	At time.Duration
	H  *hdrhistogram.Histogram // empty if no attempt was in flight
}

// Spread returns each synchronizing edge (SetEdges) with its histogram, a
// copy; nil for a recorder without edges.
func (r *Recorder) Spread() []EdgeSpread {
	l := r.spread
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]EdgeSpread, len(l.edges))
	for i, at := range l.edges {
		h := NewLagHistogram()
		if l.h[i] != nil {
			h.Merge(l.h[i])
		}
		out[i] = EdgeSpread{At: at, H: h}
	}
	return out
}

// Event is the spread of one synchronizing edge of a cohort's run
// (runs[].spread_events): when it was, how many attempts it ended (one
// per client in flight: every client, in a closed loop whose clients were
// all waiting on the target), and how long after it their replies
// arrived, in milliseconds.
type Event struct {
	AtS      float64 `json:"at_s"`
	Attempts int64   `json:"attempts"`
	Lag
}

// SpreadOf returns a cohort's spread over all its edges (nil if no
// attempt was in flight across any) and each edge's own.
func SpreadOf(edges []EdgeSpread) (*Lag, []Event) {
	if len(edges) == 0 {
		return nil, nil
	}
	all := NewLagHistogram()
	var events []Event
	for _, e := range edges {
		all.Merge(e.H)
		ev := Event{AtS: round(e.At.Seconds(), 3), Attempts: e.H.TotalCount()}
		if l := LagOf(e.H); l != nil {
			ev.Lag = *l
		}
		events = append(events, ev)
	}
	return LagOf(all), events
}
