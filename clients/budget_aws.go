package clients

import "time"

func init() {
	Budgets.Register("aws", "retry quota, AWS SDK standard", func() BudgetSpec {
		return &AWSBudgetConfig{Tokens: 500, RetryCost: 5, TimeoutRetryCost: 10, NoRetryIncrement: 1}
	})
	// The AWS SDK for Go v2's quota (aws/retry/standard.go, v1.48.0): a
	// retry costs 14, a timeout's too (its 5 for a throttling error is
	// not modelled: herdbench's target answers overload with a 503).
	Budgets.Register("aws-v2", "retry quota, AWS SDK for Go v2 standard", func() BudgetSpec {
		return &AWSBudgetConfig{Tokens: 500, RetryCost: 14, TimeoutRetryCost: 14, NoRetryIncrement: 1}
	})
}

// AWSBudgetConfig is the AWS SDK standard mode retry quota (botocore
// retries/quota.py and standard.py): a quota of Tokens; a retry costs
// RetryCost, or TimeoutRetryCost after a timeout; a success refunds what
// the request's last retry cost, or NoRetryIncrement if it did not retry.
// Kind aws has botocore's defaults (500, 5, 10, 1); kind aws-v2 the AWS
// SDK for Go v2's since v1.48 (500, 14, 14, 1).
type AWSBudgetConfig struct {
	Tokens           int `yaml:"tokens"`
	RetryCost        int `yaml:"retry_cost"`
	TimeoutRetryCost int `yaml:"timeout_retry_cost"`
	NoRetryIncrement int `yaml:"no_retry_increment"`
}

// Resolve implements Spec.
func (c *AWSBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	p.count("tokens", c.Tokens, 1)
	p.count("retry_cost", c.RetryCost, 1)
	p.count("timeout_retry_cost", c.TimeoutRetryCost, 1)
	p.count("no_retry_increment", c.NoRetryIncrement, 0)
	return p
}

// New implements Spec: a full quota.
func (c *AWSBudgetConfig) New() Budget { return &AWSQuota{cfg: *c, available: c.Tokens} }

// AWSQuota is the state of an AWS SDK standard mode retry quota.
type AWSQuota struct {
	cfg       AWSBudgetConfig
	available int
}

// Available returns the tokens left.
func (a *AWSQuota) Available() int { return a.available }

func (a *AWSQuota) Started(time.Duration)  {}
func (a *AWSQuota) Ended(time.Duration)    {}
func (a *AWSQuota) Released(time.Duration) {}

// Answered refunds on success: what the request's last retry cost, or
// NoRetryIncrement if it succeeded at once. Failures refund nothing.
func (a *AWSQuota) Answered(_ time.Duration, ok bool, paid int) {
	if !ok {
		return
	}
	if paid == 0 {
		paid = a.cfg.NoRetryIncrement
	}
	a.available = min(a.cfg.Tokens, a.available+paid)
}

// Retry pays RetryCost (TimeoutRetryCost after a timeout) if the quota can.
func (a *AWSQuota) Retry(_ time.Duration, timeout bool) (int, bool) {
	cost := a.cfg.RetryCost
	if timeout {
		cost = a.cfg.TimeoutRetryCost
	}
	if cost > a.available {
		return 0, false
	}
	a.available -= cost
	return cost, true
}

var (
	_ BudgetSpec = (*AWSBudgetConfig)(nil)
	_ Budget     = (*AWSQuota)(nil)
)
