package clients

import "time"

// Throttle is the state of client-side throttling, made by its kind's
// ThrottleSpec (throttle_*.go, one file a kind, registered in Throttles).
// It is pure: every method takes the elapsed time and the caller's uniform
// draw. Not safe for concurrent use; a Cohort guards the one its clients
// share.
type Throttle interface {
	// Allow decides a call at now with the uniform draw u in [0, 1).
	Allow(now time.Duration, u float64) bool
	// Record takes the answer to a call that went out: accepted means the
	// backend took it (it answered, other than by overload or a fault).
	Record(now time.Duration, accepted bool)
}
