package clients

import (
	"fmt"
	"time"
)

func init() {
	Breakers.Register("standard", "closed, open, half-open; opens on consecutive failures or a failure rate", func() BreakerSpec {
		return &StandardBreakerConfig{FailureRate: 0.5, Window: 100 * time.Second, MinCalls: 100, OpenFor: time.Minute, HalfOpenCalls: 10}
	})
}

// StandardBreakerConfig is the circuit breaker every resilience library
// has: closed, open, half-open. It opens after ConsecutiveFailures failed
// calls in a row, or when the failed share of the calls answered over
// Window reaches FailureRate, once at least MinCalls were (0 turns either
// rule off). It refuses every call for OpenFor, then lets HalfOpenCalls
// trial calls through (half-open): all of them succeeding closes it, any
// failing opens it again.
//
// Its defaults are resilience4j's: a 50% failure rate once 100 calls were
// recorded, over a window of 100 (here 100 s of calls), open 60 s, then 10
// trial calls. A scenario that sets consecutive_failures alone turns the
// failure rate off.
type StandardBreakerConfig struct {
	ConsecutiveFailures int           `yaml:"consecutive_failures,omitempty"`
	FailureRate         float64       `yaml:"failure_rate,omitempty"`
	Window              time.Duration `yaml:"window,omitempty"`
	MinCalls            int           `yaml:"min_calls,omitempty"`
	OpenFor             time.Duration `yaml:"open_for,omitempty"`
	HalfOpenCalls       int           `yaml:"half_open_calls,omitempty"`
}

// Resolve implements Spec.
func (c *StandardBreakerConfig) Resolve(set func(string) bool) []*ParamError {
	var p problems
	if set("consecutive_failures") && (c.ConsecutiveFailures < 1 || c.ConsecutiveFailures > MaxCount) {
		p.add("consecutive_failures", "%d; the breaker opens after this many failures in a row, so write from 1 to %d", c.ConsecutiveFailures, MaxCount)
	}
	if set("failure_rate") || !set("consecutive_failures") {
		if !(c.FailureRate > 0 && c.FailureRate <= 1) { // NaN too
			p.add("failure_rate", "%v; the breaker opens when this share of calls fails, a fraction in (0, 1], e.g. failure_rate: 0.5", c.FailureRate)
		}
		p.positive("window", c.Window, 100*time.Second)
		if c.MinCalls < 1 || c.MinCalls > MaxCount {
			p.add("min_calls", "%d; the failure rate counts once this many calls were answered in the window, so write from 1 to %d", c.MinCalls, MaxCount)
		}
	} else {
		if set("window") {
			p.add("window", "the window is for failure_rate; this breaker opens on consecutive_failures only")
		}
		if set("min_calls") {
			p.add("min_calls", "min_calls is for failure_rate; this breaker opens on consecutive_failures only")
		}
		c.FailureRate, c.Window, c.MinCalls = 0, 0, 0
	}
	p.positive("open_for", c.OpenFor, time.Minute)
	if c.HalfOpenCalls < 1 || c.HalfOpenCalls > MaxCount {
		p.add("half_open_calls", "%d; the trial calls let through after open_for, so write from 1 to %d", c.HalfOpenCalls, MaxCount)
	}
	return p
}

// New implements Spec: a closed breaker.
func (c *StandardBreakerConfig) New() Breaker { return NewStandardBreaker(*c) }

// BreakerState is a standard breaker's state.
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

// StandardBreaker is a standard circuit breaker's state.
type StandardBreaker struct {
	cfg      StandardBreakerConfig
	state    BreakerState
	openedAt time.Duration
	consec   int    // consecutive failures while closed
	win      window // a: calls, b: failures, while closed
	permits  int    // trial calls let through while half-open
	passed   int    // trial calls that succeeded
}

// NewStandardBreaker returns a closed breaker.
func NewStandardBreaker(cfg StandardBreakerConfig) *StandardBreaker {
	return &StandardBreaker{cfg: cfg, win: newWindow(max(cfg.Window, time.Millisecond))}
}

// State returns the breaker's state at now.
func (b *StandardBreaker) State(now time.Duration) BreakerState {
	if b.state == BreakerOpen && now >= b.openedAt+b.cfg.OpenFor {
		return BreakerHalfOpen
	}
	return b.state
}

// Allow reports whether a call may go out at now. Once OpenFor has passed
// an open breaker turns half-open and lets HalfOpenCalls calls through.
func (b *StandardBreaker) Allow(now time.Duration) bool {
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
func (b *StandardBreaker) Record(now time.Duration, failed bool) Transition {
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

func (b *StandardBreaker) trips(now time.Duration) bool {
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

func (b *StandardBreaker) open(now time.Duration) {
	b.state, b.openedAt, b.consec = BreakerOpen, now, 0
	b.win.reset()
}

var (
	_ BreakerSpec = (*StandardBreakerConfig)(nil)
	_ Breaker     = (*StandardBreaker)(nil)
)
