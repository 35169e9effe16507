package clients

import "time"

func init() {
	Throttles.Register("sre", "client-side adaptive throttling, Google SRE book", func() ThrottleSpec {
		return &SREThrottleConfig{K: 2, Window: 2 * time.Minute}
	})
}

// SREThrottleConfig is client-side adaptive throttling (Google SRE book,
// chapter 21): over the last Window, requests counts the calls the client
// wanted to make and accepts those the backend accepted; a new call is
// refused locally with probability max(0, (requests - K*accepts) /
// (requests + 1)). Its defaults are the book's: K = 2 over 2 minutes.
type SREThrottleConfig struct {
	K      float64       `yaml:"k"`
	Window time.Duration `yaml:"window"`
}

// Resolve implements Spec.
func (c *SREThrottleConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	if c.K < 1 {
		p.add("k", "%v; with k below 1 a client throttles itself even when every call is accepted; write 1 or more (2 in the SRE book; lower throttles sooner)", c.K)
	} else if !(c.K <= MaxRatio) { // NaN and +Inf too
		p.add("k", "%v; write k from 1 to %d (2 in the SRE book; lower throttles sooner)", c.K, MaxRatio)
	}
	p.positive("window", c.Window, 2*time.Minute)
	return p
}

// New implements Spec: empty counts.
func (c *SREThrottleConfig) New() Throttle { return NewSREThrottle(*c) }

// SREThrottle is the state of adaptive throttling.
type SREThrottle struct {
	k   float64
	win window // a: requests, b: accepts
}

// NewSREThrottle returns a throttle with empty counts.
func NewSREThrottle(c SREThrottleConfig) *SREThrottle {
	return &SREThrottle{k: c.K, win: newWindow(c.Window)}
}

// Probability returns the chance that a call at now is refused.
func (t *SREThrottle) Probability(now time.Duration) float64 {
	requests, accepts := t.win.sums(now)
	return max(0, (float64(requests)-t.k*float64(accepts))/float64(requests+1))
}

// Allow decides a call at now with the uniform draw u in [0, 1): refused
// when u < Probability(now). The call counts as a request either way.
func (t *SREThrottle) Allow(now time.Duration, u float64) bool {
	p := t.Probability(now)
	t.win.add(now, 1, 0)
	return u >= p
}

// Record takes the answer to a call that went out: accepted means the
// backend took it (it answered, other than by overload or a fault).
func (t *SREThrottle) Record(now time.Duration, accepted bool) {
	if accepted {
		t.win.add(now, 0, 1)
	}
}

var (
	_ ThrottleSpec = (*SREThrottleConfig)(nil)
	_ Throttle     = (*SREThrottle)(nil)
)
