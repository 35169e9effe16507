package clients

import "time"

func init() {
	Budgets.Register("finagle", "share of requests plus a reserve, Finagle", func() BudgetSpec {
		return &FinagleBudgetConfig{TTL: 10 * time.Second, MinRetriesPerSec: 10, PercentCanRetry: 0.2}
	})
}

// FinagleBudgetConfig is Finagle's RetryBudget: each request deposits 1,
// each retry withdraws 1/PercentCanRetry; deposits and withdrawals expire
// after TTL; a reserve of MinRetriesPerSec * TTL retries comes on top. Its
// defaults are Finagle's (10 s, 10 per second, 20%).
type FinagleBudgetConfig struct {
	TTL              time.Duration `yaml:"ttl"`
	MinRetriesPerSec int           `yaml:"min_retries_per_sec"`
	PercentCanRetry  float64       `yaml:"percent_can_retry"`
}

// Resolve implements Spec.
func (c *FinagleBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	if c.TTL < time.Second || c.TTL > time.Minute || c.TTL%time.Second != 0 {
		p.add("ttl", "%s; Finagle takes a ttl of whole seconds from 1s to 60s, e.g. ttl: 10s", c.TTL)
	}
	if c.MinRetriesPerSec < 0 || c.MinRetriesPerSec > MaxCount {
		p.add("min_retries_per_sec", "%d; write from 0 (no reserve) to %d", c.MinRetriesPerSec, MaxCount)
	}
	if !(c.PercentCanRetry >= 0 && c.PercentCanRetry <= MaxRatio) { // NaN too
		p.add("percent_can_retry", "%v; it is the retries allowed per request, a fraction from 0 to %d (0.2 allows one retry per five requests)", c.PercentCanRetry, MaxRatio)
	}
	return p
}

// New implements Spec: an empty budget with its reserve.
func (c *FinagleBudgetConfig) New() Budget {
	return NewFinagleBudget(c.TTL, c.MinRetriesPerSec, c.PercentCanRetry)
}

// FinagleBudget is Finagle's RetryBudget: a leaky token bucket over a
// window of ttl, with Finagle's scale (a deposit is 1000, a withdrawal
// 1000/percentCanRetry).
type FinagleBudget struct {
	deposit, withdrawal, reserve int64
	win                          window // a: deposits minus withdrawals
}

// NewFinagleBudget returns an empty budget with its reserve.
func NewFinagleBudget(ttl time.Duration, minRetriesPerSec int, percentCanRetry float64) *FinagleBudget {
	const scale = 1000
	w := int64(scale + 1) // percentCanRetry 0: no deposit ever pays for a retry
	if percentCanRetry > 0 {
		w = int64(scale / percentCanRetry)
	}
	return &FinagleBudget{
		deposit: scale, withdrawal: w,
		reserve: int64(minRetriesPerSec) * int64(ttl/time.Second) * w,
		win:     newWindow(ttl),
	}
}

// Balance returns the retries the budget would allow at now.
func (f *FinagleBudget) Balance(now time.Duration) int64 {
	sum, _ := f.win.sums(now)
	return (f.reserve + sum) / f.withdrawal
}

// Started deposits.
func (f *FinagleBudget) Started(now time.Duration) { f.win.add(now, f.deposit, 0) }

func (f *FinagleBudget) Ended(time.Duration)               {}
func (f *FinagleBudget) Answered(time.Duration, bool, int) {}
func (f *FinagleBudget) Released(time.Duration)            {}

// Retry withdraws if the balance allows it.
func (f *FinagleBudget) Retry(now time.Duration, _ bool) (int, bool) {
	sum, _ := f.win.sums(now)
	if f.reserve+sum < f.withdrawal {
		return 0, false
	}
	f.win.add(now, -f.withdrawal, 0)
	return 1, true
}

var (
	_ BudgetSpec = (*FinagleBudgetConfig)(nil)
	_ Budget     = (*FinagleBudget)(nil)
)
