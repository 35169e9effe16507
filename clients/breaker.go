package clients

import "time"

// Breaker is the state of a circuit breaker, made by its kind's BreakerSpec
// (breaker_*.go, one file a kind, registered in Breakers). It is pure:
// every method takes the elapsed time and none reads a clock. Not safe for
// concurrent use; a Cohort guards the one its clients share.
type Breaker interface {
	// Allow reports whether a call may go out at now.
	Allow(now time.Duration) bool
	// Record takes the answer to a call that Allow let through; failed
	// says the target did not take it (any outcome but ok and http_4xx).
	Record(now time.Duration, failed bool) Transition
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
