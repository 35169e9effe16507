package clients

import "time"

func init() {
	Budgets.Register("fixed", "a fixed number of retries per window", func() BudgetSpec {
		return &FixedBudgetConfig{Retries: 10, Window: time.Second}
	})
}

// FixedBudgetConfig allows Retries retries per Window.
type FixedBudgetConfig struct {
	Retries int           `yaml:"retries"`
	Window  time.Duration `yaml:"window"`
}

// Resolve implements Spec.
func (c *FixedBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	p.count("retries", c.Retries, 1)
	p.positive("window", c.Window, time.Second)
	return p
}

// New implements Spec.
func (c *FixedBudgetConfig) New() Budget {
	return &FixedBudget{max: int64(c.Retries), win: newWindow(c.Window)}
}

// FixedBudget is the state of a fixed budget.
type FixedBudget struct {
	max int64
	win window // a: retries
}

func (f *FixedBudget) Started(time.Duration)             {}
func (f *FixedBudget) Ended(time.Duration)               {}
func (f *FixedBudget) Answered(time.Duration, bool, int) {}
func (f *FixedBudget) Released(time.Duration)            {}

// Retry allows a retry while the window holds fewer than max.
func (f *FixedBudget) Retry(now time.Duration, _ bool) (int, bool) {
	if n, _ := f.win.sums(now); n >= f.max {
		return 0, false
	}
	f.win.add(now, 1, 0)
	return 1, true
}
