package clients

import (
	"fmt"
	"time"
)

// BreakerConfig is an immutable circuit breaker: closed, open, half-open.
type BreakerConfig struct {
	Scope Scope
	// ConsecutiveFailures opens the breaker after this many failed calls
	// in a row; 0 turns the rule off.
	ConsecutiveFailures int
	// FailureRate opens the breaker when the failed share of the calls
	// answered over Window reaches it, once at least MinCalls were; 0
	// turns the rule off.
	FailureRate float64
	Window      time.Duration
	MinCalls    int
	// OpenFor is how long the breaker refuses every call before it lets
	// trial calls through (half-open).
	OpenFor time.Duration
	// HalfOpenCalls trial calls go through while half-open: all of them
	// succeeding closes the breaker, any failing opens it again.
	HalfOpenCalls int
}

// DefaultBreaker returns resilience4j's defaults: open at a 50% failure
// rate once 100 calls were recorded, over a window of 100 (here 100 s of
// calls), stay open 60 s, then 10 trial calls.
func DefaultBreaker() BreakerConfig {
	return BreakerConfig{FailureRate: 0.5, Window: 100 * time.Second, MinCalls: 100, OpenFor: time.Minute, HalfOpenCalls: 10}
}

// BreakerState is a breaker's state.
type BreakerState uint8

// Breaker states.
const (
	BreakerClosed   BreakerState = iota // calls go through; failures are counted
	BreakerOpen                         // calls are refused until OpenFor has passed
	BreakerHalfOpen                     // a few trial calls go through
)

var breakerStateNames = [...]string{BreakerClosed: "closed", BreakerOpen: "open", BreakerHalfOpen: "half-open"}

func (s BreakerState) String() string {
	if int(s) < len(breakerStateNames) {
		return breakerStateNames[s]
	}
	return fmt.Sprintf("BreakerState(%d)", uint8(s))
}

// Transition is what recording an answer did to a breaker.
type Transition uint8

// Transitions.
const (
	NoTransition Transition = iota
	Tripped                 // closed -> open
	Recovered               // half-open -> closed: every trial call succeeded
	Retripped               // half-open -> open: a trial call failed
)

// Breaker is a circuit breaker's state. It is pure: every method takes the
// elapsed time and none reads a clock. Not safe for concurrent use; a
// Cohort guards the one its clients share.
type Breaker struct {
	cfg      BreakerConfig
	state    BreakerState
	openedAt time.Duration
	consec   int    // consecutive failures while closed
	win      window // a: calls, b: failures, while closed
	permits  int    // trial calls let through while half-open
	passed   int    // trial calls that succeeded
}

// NewBreaker returns a closed breaker.
func NewBreaker(cfg BreakerConfig) *Breaker {
	return &Breaker{cfg: cfg, win: newWindow(max(cfg.Window, time.Millisecond))}
}

// State returns the breaker's state at now.
func (b *Breaker) State(now time.Duration) BreakerState {
	if b.state == BreakerOpen && now >= b.openedAt+b.cfg.OpenFor {
		return BreakerHalfOpen
	}
	return b.state
}

// Allow reports whether a call may go out at now. Once OpenFor has passed
// an open breaker turns half-open and lets HalfOpenCalls calls through.
func (b *Breaker) Allow(now time.Duration) bool {
	if b.state == BreakerOpen && now >= b.openedAt+b.cfg.OpenFor {
		b.state, b.permits, b.passed = BreakerHalfOpen, 0, 0
	}
	switch b.state {
	case BreakerClosed:
		return true
	case BreakerHalfOpen:
		if b.permits < b.cfg.HalfOpenCalls {
			b.permits++
			return true
		}
	}
	return false
}

// Record takes the answer to a call that Allow let through. Answers that
// arrive while the breaker is open (calls sent before it opened) are
// ignored.
func (b *Breaker) Record(now time.Duration, failed bool) Transition {
	switch b.state {
	case BreakerClosed:
		var f int64
		if failed {
			f = 1
			b.consec++
		} else {
			b.consec = 0
		}
		b.win.add(now, 1, f)
		if b.trips(now) {
			b.open(now)
			return Tripped
		}
	case BreakerHalfOpen:
		if failed {
			b.open(now)
			return Retripped
		}
		b.passed++
		if b.passed >= b.cfg.HalfOpenCalls {
			b.state, b.consec = BreakerClosed, 0
			b.win.reset()
			return Recovered
		}
	}
	return NoTransition
}

func (b *Breaker) trips(now time.Duration) bool {
	c := b.cfg
	if c.ConsecutiveFailures > 0 && b.consec >= c.ConsecutiveFailures {
		return true
	}
	if c.FailureRate > 0 {
		calls, failures := b.win.sums(now)
		return calls >= int64(max(c.MinCalls, 1)) && float64(failures) >= c.FailureRate*float64(calls)-1e-9
	}
	return false
}

func (b *Breaker) open(now time.Duration) {
	b.state, b.openedAt, b.consec = BreakerOpen, now, 0
	b.win.reset()
}
