package recording

import (
	"time"

	"github.com/herdbench/herdbench/results"
)

// LiveCohort is one cohort's running totals in the current window.
type LiveCohort struct {
	Name string
	results.Live
}

// Live returns the running totals of the current window's cohorts, in the
// order they first came, "other" last (a cohort that sent nothing in this
// window has zero totals); nil before
// the plan's clock has started. A new window counts from zero again. It
// is cheap: a few atomic loads per cohort (the live page calls it every
// tick).
func (r *Recording) Live() []LiveCohort {
	s := r.cur.Load()
	if s == nil {
		return nil
	}
	r.cohorts.mu.Lock()
	names := append([]string(nil), r.cohorts.names...)
	r.cohorts.mu.Unlock()
	if s.cells[r.cohorts.otherIndex()].Load() != nil {
		names = append(names, OtherCohort)
	}
	out := make([]LiveCohort, len(names))
	for i, n := range names {
		out[i].Name = n
		ci := i
		if n == OtherCohort && i == len(names)-1 {
			ci = r.cohorts.otherIndex()
		}
		if cl := s.cells[ci].Load(); cl != nil {
			rec, _ := cl.shown()
			out[i].Live = rec.Live()
		}
	}
	return out
}

// HerdSoFar returns the herd factor so far (results.Recorder's HerdSoFar)
// of each cohort Live returns, in its order, over the current window's
// seconds that ended at least a second ago. For live pages: call it about
// once a second.
func (r *Recording) HerdSoFar() []float64 {
	s := r.cur.Load()
	if s == nil {
		return nil
	}
	upto := time.Since(s.t0) - time.Second
	r.cohorts.mu.Lock()
	n := len(r.cohorts.names)
	r.cohorts.mu.Unlock()
	idx := make([]int, 0, n+1)
	for i := range n {
		idx = append(idx, i)
	}
	if s.cells[r.cohorts.otherIndex()].Load() != nil {
		idx = append(idx, r.cohorts.otherIndex())
	}
	out := make([]float64, len(idx))
	for k, i := range idx {
		if cl := s.cells[i].Load(); cl != nil {
			rec, _ := cl.shown()
			out[k] = rec.HerdSoFar(upto)
		}
	}
	return out
}
