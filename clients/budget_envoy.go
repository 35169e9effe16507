package clients

import "time"

func init() {
	Budgets.Register("envoy", "concurrent retries, Envoy", func() BudgetSpec {
		return &EnvoyBudgetConfig{BudgetPercent: 20, MinRetryConcurrency: 3}
	})
}

// EnvoyBudgetConfig is Envoy's retry budget: concurrent retries at most
// max(MinRetryConcurrency, BudgetPercent% of active requests). Its defaults
// are Envoy's (20%, 3).
type EnvoyBudgetConfig struct {
	BudgetPercent       float64 `yaml:"budget_percent"`
	MinRetryConcurrency int     `yaml:"min_retry_concurrency"`
}

// Resolve implements Spec.
func (c *EnvoyBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	if !(c.BudgetPercent >= 0 && c.BudgetPercent <= 100) { // NaN too
		p.add("budget_percent", "%v; a percentage of active requests, from 0 to 100, e.g. budget_percent: 20", c.BudgetPercent)
	}
	p.count("min_retry_concurrency", c.MinRetryConcurrency, 0)
	return p
}

// New implements Spec: no request active.
func (c *EnvoyBudgetConfig) New() Budget {
	return &EnvoyBudget{percent: c.BudgetPercent, min: c.MinRetryConcurrency}
}

// EnvoyBudget is the state of Envoy's retry budget.
type EnvoyBudget struct {
	percent         float64
	min             int
	active, retries int
}

func (e *EnvoyBudget) Started(time.Duration)             { e.active++ }
func (e *EnvoyBudget) Ended(time.Duration)               { e.active-- }
func (e *EnvoyBudget) Answered(time.Duration, bool, int) {}
func (e *EnvoyBudget) Released(time.Duration)            { e.retries-- }

// Retry allows a retry while outstanding retries stay within the budget.
func (e *EnvoyBudget) Retry(time.Duration, bool) (int, bool) {
	limit := max(float64(e.min), e.percent/100*float64(e.active))
	if float64(e.retries+1) > limit+1e-9 {
		return 0, false
	}
	e.retries++
	return 1, true
}

var (
	_ BudgetSpec = (*EnvoyBudgetConfig)(nil)
	_ Budget     = (*EnvoyBudget)(nil)
)
