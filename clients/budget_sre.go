package clients

import "time"

func init() {
	Budgets.Register("sre", "retries at most a ratio of requests, Google SRE book", func() BudgetSpec {
		return &SREBudgetConfig{Ratio: 0.1, Window: 2 * time.Minute}
	})
}

// SREBudgetConfig is the Google SRE book's per-client retry budget: a retry
// is allowed while retries (this one included) stay at or below Ratio
// times the requests started, both counted over Window. Its defaults are
// the book's 10%, over 2 minutes (the window of its adaptive throttling).
type SREBudgetConfig struct {
	Ratio  float64       `yaml:"ratio"`
	Window time.Duration `yaml:"window"`
}

// Resolve implements Spec.
func (c *SREBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	if !(c.Ratio > 0 && c.Ratio <= MaxRatio) { // NaN too
		p.add("ratio", "%v; retries may be at most this share of requests, more than 0 and at most %d, e.g. ratio: 0.1", c.Ratio, MaxRatio)
	}
	p.positive("window", c.Window, 2*time.Minute)
	return p
}

// New implements Spec: empty counts.
func (c *SREBudgetConfig) New() Budget { return &SRERatio{ratio: c.Ratio, win: newWindow(c.Window)} }

// SRERatio is the state of the SRE book's retry budget.
type SRERatio struct {
	ratio float64
	win   window // a: requests, b: retries
}

func (s *SRERatio) Started(now time.Duration)         { s.win.add(now, 1, 0) }
func (s *SRERatio) Ended(time.Duration)               {}
func (s *SRERatio) Answered(time.Duration, bool, int) {}
func (s *SRERatio) Released(time.Duration)            {}

// Retry allows a retry if retries, this one included, stay at or below
// Ratio times the requests in the window.
func (s *SRERatio) Retry(now time.Duration, _ bool) (int, bool) {
	requests, retries := s.win.sums(now)
	if float64(retries+1) > s.ratio*float64(requests)+1e-9 {
		return 0, false
	}
	s.win.add(now, 0, 1)
	return 1, true
}

var (
	_ BudgetSpec = (*SREBudgetConfig)(nil)
	_ Budget     = (*SRERatio)(nil)
)
