package target

import (
	"time"

	"github.com/herdbench/herdbench/chaos"
)

// maxHistory bounds the faults a server remembers having applied: a long
// game day's injects cost at most this many entries (the oldest that have
// ended are forgotten first).
const maxHistory = 10000

// faultHistory is every fault a server's plan has applied, as it acted:
// on the server's clock, a fault cut short by a stop with its shortened
// length, a planned fault dropped before it started not at all. The
// compiled plan forgets faults that have ended (prune); a recording of
// the traffic needs them all to place its fault windows.
type faultHistory struct {
	faults []chaos.Timed
}

// update takes the faults of a newly compiled plan at now: new ones are
// added, known ones (same name, kind and start) take their new length
// (shorter when cut), and known ones that had not started and are gone
// (dropped by a stop or a restart) are forgotten.
func (h *faultHistory) update(plan []chaos.Timed, now time.Duration) {
	same := func(a, b chaos.Timed) bool { return a.Name == b.Name && a.Kind == b.Kind && a.At == b.At }
	kept := h.faults[:0]
	for _, f := range h.faults {
		found := false
		for _, g := range plan {
			if same(f, g) {
				f.For, found = g.For, true
				break
			}
		}
		if found || f.At < now {
			kept = append(kept, f)
		}
	}
	h.faults = kept
	for _, g := range plan {
		known := false
		for _, f := range h.faults {
			known = known || same(f, g)
		}
		if !known {
			h.faults = append(h.faults, g)
		}
	}
	for len(h.faults) > maxHistory {
		oldest := 0
		for i, f := range h.faults {
			if f.End() < h.faults[oldest].End() {
				oldest = i
			}
		}
		h.faults = append(h.faults[:oldest], h.faults[oldest+1:]...)
	}
}

// FaultsBetween returns the faults that acted (or are planned to act)
// between the instants from and to, relative to from and cut to that span,
// in order of start: the fault windows of a recording whose t = 0 is from.
func (s *Server) FaultsBetween(from, to time.Time) []chaos.Timed {
	s.mu.Lock()
	defer s.mu.Unlock()
	lo, hi := from.Sub(s.origin), to.Sub(s.origin)
	var out []chaos.Timed
	for _, f := range s.history.faults {
		start, end := max(f.At, lo), min(f.End(), hi)
		if end <= start {
			continue
		}
		f.At, f.For = start-lo, end-start
		out = append(out, f)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].At < out[j-1].At; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// crashedSince reports whether a crash began at or after t.
func (s *Server) crashedSince(t time.Time) bool {
	return s.lastCrash.Load() >= t.UnixNano()
}
