package clients

import "time"

// ThrottleConfig is client-side adaptive throttling (Google SRE book,
// chapter 21): over the last Window, requests counts the calls the client
// wanted to make and accepts those the backend accepted; a new call is
// refused locally with probability max(0, (requests - K*accepts) /
// (requests + 1)).
type ThrottleConfig struct {
	Scope  Scope
	K      float64
	Window time.Duration
}

// DefaultThrottle returns the SRE book's constants: K = 2 over 2 minutes.
func DefaultThrottle() ThrottleConfig { return ThrottleConfig{K: 2, Window: 2 * time.Minute} }

// Throttle is the state of adaptive throttling. It is pure: every method
// takes the elapsed time and the caller's uniform draw. Not safe for
// concurrent use; a Cohort guards the one its clients share.
type Throttle struct {
	k   float64
	win window // a: requests, b: accepts
}

// NewThrottle returns a throttle with empty counts.
func NewThrottle(c ThrottleConfig) *Throttle { return &Throttle{k: c.K, win: newWindow(c.Window)} }

// Probability returns the chance that a call at now is refused.
func (t *Throttle) Probability(now time.Duration) float64 {
	requests, accepts := t.win.sums(now)
	return max(0, (float64(requests)-t.k*float64(accepts))/float64(requests+1))
}

// Allow decides a call at now with the uniform draw u in [0, 1): refused
// when u < Probability(now). The call counts as a request either way.
func (t *Throttle) Allow(now time.Duration, u float64) bool {
	p := t.Probability(now)
	t.win.add(now, 1, 0)
	return u >= p
}

// Record takes the answer to a call that went out: accepted means the
// backend took it (it answered, other than by overload or a fault).
func (t *Throttle) Record(now time.Duration, accepted bool) {
	if accepted {
		t.win.add(now, 0, 1)
	}
}
