package target

import (
	"errors"
	"fmt"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/target/model"
)

// planClock is what a standalone target's control calls change: the
// scenario's plan (as written, relative to its own start), whether and when
// it was started, faults added by hand, and faults cut short by a stop. All
// times are on the server's clock (elapsed since the server started).
type planClock struct {
	sched    *chaos.Plan
	running  bool
	start    time.Duration
	injected []chaos.Timed
	// past holds faults cut short by a stop: they no longer act, but an
	// outage among them still starts the cold-start ramp where it ended.
	past []chaos.Timed
}

// ErrControl is wrapped by the errors of the control methods.
var ErrControl = errors.New("target control")

// MaxInjected is how many injected faults may be active or still to come
// at once. Faults that have ended are dropped (see prune), so the list,
// the compiled plan and the control API's status stay small however long
// a game day lasts.
const MaxInjected = 100

// MaxAhead bounds how far ahead control calls reach: a plan's start time,
// an injected fault's delay and its length.
const MaxAhead = 24 * time.Hour

// StartPlan (re)starts the scenario's chaos plan so that its t = 0 is at;
// a zero at means now. A running plan is stopped first, its active faults
// ending now. Faults injected by hand are kept.
func (s *Server) StartPlan(at time.Time) error {
	t0, err := s.startPlan(at)
	if err == nil && s.observer != nil {
		s.observer.PlanStarted(t0)
	}
	return err
}

// startPlan is StartPlan but for telling the observer; it returns the
// plan's new t = 0.
func (s *Server) startPlan(at time.Time) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.elapsed()
	start := now
	if !at.IsZero() {
		start = at.Sub(s.origin)
		if start < 0 {
			return time.Time{}, fmt.Errorf("%w: start time %s is before the server started (%s)", ErrControl, at.UTC().Format(time.RFC3339Nano), s.origin.UTC().Format(time.RFC3339Nano))
		}
		if start-now > MaxAhead {
			return time.Time{}, fmt.Errorf("%w: start time %s is more than %s from now (%s); give a time within the next day, or none to start now",
				ErrControl, at.UTC().Format(time.RFC3339Nano), trim(MaxAhead), s.origin.Add(now).UTC().Format(time.RFC3339))
		}
	}
	if s.clock.running {
		s.clock.past = append(s.clock.past, clip(s.scheduled(), now)...)
	}
	s.clock.running, s.clock.start = true, start
	return s.origin.Add(start), s.replace()
}

// StopPlan ends the chaos now: the plan stops and every planned or injected
// fault that is active ends at once; those still to come are dropped.
func (s *Server) StopPlan() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.elapsed()
	cut := clip(s.clock.injected, now)
	if s.clock.running {
		cut = append(cut, clip(s.scheduled(), now)...)
	}
	s.clock.past = append(s.clock.past, cut...)
	s.clock.running, s.clock.injected = false, nil
	return s.replace()
}

// Inject adds a fault by hand. Its At is a delay from now (0: at once); it
// acts whether or not the plan runs.
func (s *Server) Inject(f chaos.Timed) error {
	if f.At < 0 || f.For <= 0 || f.At > MaxAhead || f.For > MaxAhead {
		return fmt.Errorf("%w: a fault needs 0 <= at <= %s (a delay from now) and 0 < for <= %s, got at %s, for %s", ErrControl, trim(MaxAhead), trim(MaxAhead), f.At, f.For)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.elapsed()
	s.clock.injected = prune(s.clock.injected, now)
	if n := len(s.clock.injected); n >= MaxInjected {
		return fmt.Errorf("%w: %d injected faults are active or still to come, the most there may be at once; wait for some to end, or POST /control/stop to end them all", ErrControl, n)
	}
	f.At += now
	s.clock.injected = append(s.clock.injected, f)
	if err := s.replace(); err != nil {
		s.clock.injected = s.clock.injected[:len(s.clock.injected)-1]
		return err
	}
	return nil
}

// scheduled returns the plan's faults on the server clock. Called with mu
// held, while the plan runs.
func (s *Server) scheduled() []chaos.Timed {
	var out []chaos.Timed
	if s.clock.sched == nil {
		return nil
	}
	for _, f := range s.clock.sched.Faults() {
		f.At += s.clock.start
		out = append(out, f)
	}
	return out
}

// clip cuts faults at now: those not started are dropped, active ones end
// now, past ones are kept as they were.
func clip(faults []chaos.Timed, now time.Duration) []chaos.Timed {
	var out []chaos.Timed
	for _, f := range faults {
		switch {
		case f.At >= now:
		case f.End() > now:
			f.For = now - f.At
			out = append(out, f)
		default:
			out = append(out, f)
		}
	}
	return out
}

// prune drops the faults that have ended by now, but for the outage that
// ended last: it alone sets where the cold-start ramp begins (an outage's
// recovery is the end of the latest outage before now), and nothing else
// that has ended changes what is active from now on.
func prune(faults []chaos.Timed, now time.Duration) []chaos.Timed {
	last := -1
	for i, f := range faults {
		if chaos.EffectOf(f.Fault).Outage != chaos.NoOutage && f.End() <= now && (last < 0 || f.End() > faults[last].End()) {
			last = i
		}
	}
	out := faults[:0]
	for i, f := range faults {
		if f.End() > now || i == last {
			out = append(out, f)
		}
	}
	clear(faults[len(out):])
	return out
}

func trim(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return d.String()
}

// replace compiles the effective plan from the clock and swaps it in.
// Called with mu held.
func (s *Server) replace() error {
	now := s.elapsed()
	s.clock.past = prune(s.clock.past, now)
	s.clock.injected = prune(s.clock.injected, now)
	faults := append([]chaos.Timed(nil), s.clock.past...)
	if s.clock.running {
		faults = append(faults, s.scheduled()...)
	}
	faults = append(faults, s.clock.injected...)
	p, err := chaos.NewPlan(faults, 0)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrControl, err)
	}
	s.history.update(faults, now)
	s.plan = p
	s.locked().SetPlan(p)
	select {
	case s.replan <- struct{}{}:
	default: // a wake-up is already pending
	}
	return nil
}

// Status is a server's state at one instant, for the control API and
// metrics.
type Status struct {
	PlanRunning bool
	PlanStart   time.Time     // when the plan's t = 0 is (or was), if running
	PlanElapsed time.Duration // time since the plan's t = 0, if running
	PlanDone    bool          // running, and every planned fault has ended
	Active      []string      // names of the faults active now
	Faults      []FaultState  // planned and injected faults, by start
	Proxy       bool          // a chaos proxy: the capacity figures do not apply
	GRPC        bool          // a gRPC server: Codes counts its calls
	InFlight    int64
	Answers     [NumAnswers]int64
	Codes       [NumCodes]int64 // a gRPC server's calls by the status code their clients saw (codes.Code)
	Busy        int             // slots in use
	Queued      int             // requests waiting for a slot
	Capacity    int             // slots available now
	Stats       model.Stats     // the capacity model's counters
}

// FaultState is one planned or injected fault, relative to now.
type FaultState struct {
	Name, Kind string
	Injected   bool
	StartsIn   time.Duration // negative once started
	EndsIn     time.Duration // negative once ended
	Active     bool
}

// Status returns the server's state now.
func (s *Server) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.elapsed()
	st := Status{
		PlanRunning: s.clock.running,
		Proxy:       s.next != nil || s.nextGRPC != nil,
		GRPC:        s.grpc != nil,
		InFlight:    s.counters.InFlight(),
		Answers:     s.counters.Answers(),
		Codes:       s.counters.Codes(),
		Busy:        s.locked().Busy(),
		Queued:      s.locked().QueueLen(),
		Capacity:    s.locked().Capacity(now),
		Stats:       s.locked().Stats,
		Active:      append([]string{}, s.plan.ActiveAt(now).Active...),
	}
	add := func(f chaos.Timed, injected bool) {
		st.Faults = append(st.Faults, FaultState{
			Name: f.Name, Kind: f.Kind, Injected: injected,
			StartsIn: f.At - now, EndsIn: f.End() - now, Active: f.At <= now && now < f.End(),
		})
	}
	if s.clock.running {
		st.PlanStart = s.origin.Add(s.clock.start)
		st.PlanElapsed = now - s.clock.start
		st.PlanDone = true
		for _, f := range s.scheduled() {
			add(f, false)
			st.PlanDone = st.PlanDone && f.End() <= now
		}
	}
	for _, f := range s.clock.injected {
		add(f, true)
	}
	return st
}
