package chaos

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Segment is a stretch of the run during which the same faults are active.
type Segment struct {
	Start, End time.Duration
	Effect     Effect
}

// Plan is a compiled chaos timeline. It is immutable and safe to share.
type Plan struct {
	faults   []Timed
	segments []Segment // contiguous, covering [0, ∞)
}

// ErrWindow is wrapped by NewPlan's errors about fault windows.
var ErrWindow = errors.New("invalid fault window")

// NewPlan compiles faults into a plan. Windows must be non-negative and of
// positive length; run, when positive, is the run's duration and every window
// must end within it.
func NewPlan(faults []Timed, run time.Duration) (*Plan, error) {
	var errs []error
	for i, f := range faults {
		switch {
		case f.At < 0:
			errs = append(errs, fmt.Errorf("%w: fault %d (%s) starts at %s, before the run", ErrWindow, i, f.Name, f.At))
		case f.For <= 0:
			errs = append(errs, fmt.Errorf("%w: fault %d (%s) lasts %s; it must last more than 0", ErrWindow, i, f.Name, f.For))
		case f.For > math.MaxInt64-f.At: // End would overflow
			errs = append(errs, fmt.Errorf("%w: fault %d (%s) starts at %s and lasts %s: past the end of time", ErrWindow, i, f.Name, f.At, f.For))
		case run > 0 && (f.At > run || f.For > run-f.At): // End() > run, without overflow
			errs = append(errs, fmt.Errorf("%w: fault %d (%s) ends at %s, after the run's %s", ErrWindow, i, f.Name, f.End(), run))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	p := &Plan{faults: append([]Timed(nil), faults...)}
	edges := []time.Duration{0}
	for _, f := range faults {
		edges = append(edges, f.At, f.End())
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i] < edges[j] })
	edges = dedup(edges)
	recovered := time.Duration(-1) // the end of the latest outage so far
	for i, start := range edges {
		end := time.Duration(1<<63 - 1)
		if i+1 < len(edges) {
			end = edges[i+1]
		}
		e := p.effectAt(start)
		if e.Outage == NoOutage {
			e.RecoveredAt = recovered
		} else {
			recovered = end
		}
		p.segments = append(p.segments, Segment{Start: start, End: end, Effect: e})
	}
	return p, nil
}

func dedup(s []time.Duration) []time.Duration {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// effectAt folds every fault active at t; used only while compiling.
// RecoveredAt is left for NewPlan, which walks the segments in order: the
// last segment with an outage before t ends where the latest outage ended.
func (p *Plan) effectAt(t time.Duration) Effect {
	e := Healthy()
	for _, f := range p.faults {
		if f.At <= t && t < f.End() {
			f.Fault.Apply(&e)
			e.Active = append(e.Active, f.Name)
		}
	}
	return e
}

// Ever reports whether some stretch of the plan has an effect for which
// match is true: what a scenario's checks ask ("does the target ever refuse
// connections?") instead of looking for a kind of fault.
func (p *Plan) Ever(match func(e *Effect) bool) bool {
	for i := range p.segments {
		if match(&p.segments[i].Effect) {
			return true
		}
	}
	return false
}

// ActiveAt returns the effect of the faults active at elapsed time t. The
// result points into the plan and must not be modified.
func (p *Plan) ActiveAt(t time.Duration) *Effect {
	i := sort.Search(len(p.segments), func(i int) bool { return p.segments[i].Start > t }) - 1
	if i < 0 {
		i = 0
	}
	return &p.segments[i].Effect
}

// Segments returns the plan's segments in time order. The first starts at 0
// and the last never ends. The slice must not be modified.
func (p *Plan) Segments() []Segment { return p.segments }

// Faults returns the plan's faults in scenario order.
func (p *Plan) Faults() []Timed { return p.faults }

// Span returns the start of the first fault window and the end of the last,
// and false when the plan has no faults.
func (p *Plan) Span() (first, last time.Duration, ok bool) {
	if len(p.faults) == 0 {
		return 0, 0, false
	}
	first, last = p.faults[0].At, p.faults[0].End()
	for _, f := range p.faults[1:] {
		first, last = min(first, f.At), max(last, f.End())
	}
	return first, last, true
}
