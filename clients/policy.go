package clients

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/herdbench/herdbench/results"
)

// Cohort is the run-time state that the clients of one cohort share in one
// run: the budget, breaker and throttle of its strategy whose scope is
// PerCohort. Make one per cohort per run (a fresh one for every run, so runs
// never share state) and every client of the cohort with its NewClient.
//
// The shared state sits behind one mutex, held only for a single policy
// call, so real-time clients on many goroutines can use it cheaply; the
// simulator's single goroutine never contends for it.
type Cohort struct {
	strategy *Strategy
	mu       sync.Mutex
	budget   Budget // the cohort-scope policies, wrapped with mu; nil otherwise
	breaker  Breaker
	throttle Throttle
}

// NewCohort returns the shared state of a cohort running strategy s.
func NewCohort(s *Strategy) *Cohort {
	k := &Cohort{strategy: s}
	if c := s.Budget; c != nil && c.Scope.Shared() {
		k.budget = lockedBudget{&k.mu, c.Spec.New()}
	}
	if c := s.Breaker; c != nil && c.Scope.Shared() {
		k.breaker = lockedBreaker{&k.mu, c.Spec.New()}
	}
	if c := s.Throttle; c != nil && c.Scope.Shared() {
		k.throttle = lockedThrottle{&k.mu, c.Spec.New()}
	}
	return k
}

// NewClient returns client id of the cohort. end is the run's duration: no
// request starts and no attempt is sent at or after it.
func (k *Cohort) NewClient(id int, w *Workload, end time.Duration, rng *rand.Rand, sink results.Sink) *Client {
	c := &Client{}
	k.InitClient(c, id, w, end, rng, sink)
	return c
}

// InitClient makes *c client id of the cohort, as NewClient returns it,
// in place: the simulator keeps a million clients in its own slabs without
// an allocation each.
func (k *Cohort) InitClient(c *Client, id int, w *Workload, end time.Duration, rng *rand.Rand, sink results.Sink) {
	*c = Client{ID: id, strategy: k.strategy, workload: w, end: end, rng: rng, sink: sink}
	s := k.strategy
	if s.Budget == nil && s.Breaker == nil && s.Throttle == nil {
		return // no policy: the step function stays as cheap as without them
	}
	p := &policies{budget: k.budget, breaker: k.breaker, throttle: k.throttle}
	if p.budget == nil && s.Budget != nil {
		p.budget = s.Budget.Spec.New()
	}
	if p.breaker == nil && s.Breaker != nil {
		p.breaker = s.Breaker.Spec.New()
	}
	if p.throttle == nil && s.Throttle != nil {
		p.throttle = s.Throttle.Spec.New()
	}
	p.events, _ = sink.(results.PolicySink)
	c.pol = p
}

// sharesState reports whether the strategy has a cohort-scope policy.
func (s *Strategy) sharesState() bool {
	return (s.Budget != nil && s.Budget.Scope.Shared()) ||
		(s.Breaker != nil && s.Breaker.Scope.Shared()) ||
		(s.Throttle != nil && s.Throttle.Scope.Shared())
}

func errShared(s *Strategy) string {
	return fmt.Sprintf("clients: strategy %q has cohort-scope policies; make its clients with NewCohort(s).NewClient so they share them", s.Name)
}

// policies is one client's view of its strategy's policies: its own
// per-client state, or the cohort's shared state behind its lock.
type policies struct {
	budget   Budget
	breaker  Breaker
	throttle Throttle
	events   results.PolicySink // nil when the sink records no policy events
	held     bool               // a retry the budget permitted is outstanding
}

func (p *policies) event(at time.Duration, e results.PolicyEvent) {
	if p.events != nil {
		p.events.Policy(at, e)
	}
}

func (p *policies) started(now time.Duration) {
	if p.budget != nil {
		p.budget.Started(now)
	}
}

func (p *policies) ended(now time.Duration) {
	if p.budget != nil {
		p.budget.Ended(now)
	}
}

func (p *policies) release(now time.Duration) {
	if p.held {
		p.held = false
		p.budget.Released(now)
	}
}

// answered takes the target's answer to an attempt. paid is what the
// request's latest retry cost its budget.
func (p *policies) answered(now time.Duration, o results.Outcome, paid int) {
	if p.budget != nil {
		p.release(now)
		p.budget.Answered(now, o == results.OK, paid)
	}
	// The target took the call if it answered it, unless the answer was
	// overload or a fault: what the SRE book counts as an accept, and what
	// a breaker must not count as a failure.
	accepted := o == results.OK || o == results.HTTP4xx
	if p.breaker != nil {
		switch p.breaker.Record(now, !accepted) {
		case Tripped:
			p.event(now, results.BreakerOpened)
		case Recovered:
			p.event(now, results.BreakerClosed)
		}
	}
	if p.throttle != nil {
		p.throttle.Record(now, accepted)
	}
}

// retry asks the budget for a retry at now; timeout says the attempt
// before it timed out.
func (p *policies) retry(now time.Duration, timeout bool) (cost int, ok bool) {
	if p.budget == nil {
		return 0, true
	}
	cost, ok = p.budget.Retry(now, timeout)
	if !ok {
		p.event(now, results.BudgetDenied)
		return 0, false
	}
	p.held = true
	return cost, true
}

// admit decides whether a call at its intended send time at goes out:
// throttling first (every call it sees counts as a request), then the
// breaker (so a half-open breaker's trial permit is only taken by a call
// that really goes out). A refused call is recorded at at.
func (p *policies) admit(at time.Duration, rng *rand.Rand) bool {
	if p.throttle != nil && !p.throttle.Allow(at, rng.Float64()) {
		p.event(at, results.Throttled)
		return false
	}
	if p.breaker != nil && !p.breaker.Allow(at) {
		p.event(at, results.BreakerRejected)
		return false
	}
	return true
}

// The locked wrappers guard a cohort's shared state.

type lockedBudget struct {
	mu *sync.Mutex
	b  Budget
}

func (l lockedBudget) Started(now time.Duration) { l.mu.Lock(); l.b.Started(now); l.mu.Unlock() }
func (l lockedBudget) Ended(now time.Duration)   { l.mu.Lock(); l.b.Ended(now); l.mu.Unlock() }
func (l lockedBudget) Released(now time.Duration) {
	l.mu.Lock()
	l.b.Released(now)
	l.mu.Unlock()
}

func (l lockedBudget) Answered(now time.Duration, ok bool, paid int) {
	l.mu.Lock()
	l.b.Answered(now, ok, paid)
	l.mu.Unlock()
}

func (l lockedBudget) Retry(now time.Duration, timeout bool) (int, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Retry(now, timeout)
}

type lockedBreaker struct {
	mu *sync.Mutex
	b  Breaker
}

func (l lockedBreaker) Allow(now time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Allow(now)
}

func (l lockedBreaker) Record(now time.Duration, failed bool) Transition {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Record(now, failed)
}

type lockedThrottle struct {
	mu *sync.Mutex
	t  Throttle
}

func (l lockedThrottle) Allow(now time.Duration, u float64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.t.Allow(now, u)
}

func (l lockedThrottle) Record(now time.Duration, accepted bool) {
	l.mu.Lock()
	l.t.Record(now, accepted)
	l.mu.Unlock()
}
