package clients

import "time"

func init() {
	Budgets.Register("failure-ratio", "no retries once failures pass a ratio of requests, Marc Brooker's retry simulator", func() BudgetSpec {
		return &FailureRatioBudgetConfig{Ratio: 0.1}
	})
}

// FailureRatioBudgetConfig stops retrying once the failed attempts are more
// than Ratio times the requests started, both counted since the client
// began (never reset), and retries again when they fall back: a breaker on
// retries alone, first tries always going out. Its default is the circuit
// breaker of Marc Brooker's retry simulator
// (github.com/mbrooker/simulator_example, retry_sim/retry_strategy.py,
// CircuitBreakerRetryFactory(NRetriesFactory(3), 0.1), whose own retries
// are the strategy's max_attempts here).
type FailureRatioBudgetConfig struct {
	Ratio float64 `yaml:"ratio"`
}

// Resolve implements Spec.
func (c *FailureRatioBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	if !(c.Ratio > 0 && c.Ratio <= MaxRatio) { // NaN too
		p.add("ratio", "%v; retries stop while failed attempts are more than this times the requests, more than 0 and at most %d, e.g. ratio: 0.1", c.Ratio, MaxRatio)
	}
	return p
}

// New implements Spec: no request and no failure yet.
func (c *FailureRatioBudgetConfig) New() Budget { return &FailureRatio{ratio: c.Ratio} }

// FailureRatio is the state of a failure-ratio budget.
type FailureRatio struct {
	ratio              float64
	requests, failures int64
}

// Started counts a request.
func (f *FailureRatio) Started(time.Duration) { f.requests++ }

// Answered counts a failed attempt.
func (f *FailureRatio) Answered(_ time.Duration, ok bool, _ int) {
	if !ok {
		f.failures++
	}
}

func (f *FailureRatio) Ended(time.Duration)    {}
func (f *FailureRatio) Released(time.Duration) {}

// Retry allows a retry unless failures / requests is more than the ratio,
// computed as the simulator computes it.
func (f *FailureRatio) Retry(time.Duration, bool) (int, bool) {
	if f.requests == 0 || float64(f.failures)/float64(f.requests) > f.ratio {
		return 0, false
	}
	return 0, true // it takes nothing: the failure was counted
}

var (
	_ BudgetSpec = (*FailureRatioBudgetConfig)(nil)
	_ Budget     = (*FailureRatio)(nil)
)
