package clients

import (
	"math"
	"time"
)

func init() {
	Budgets.Register("bucket", "token bucket that requests fill, Marc Brooker's retry simulator", func() BudgetSpec {
		return &BucketBudgetConfig{Size: 5, Deposit: 0.1, Cost: 1}
	})
}

// BucketBudgetConfig is a token bucket that requests fill: it starts full
// at Size tokens; every request started deposits Deposit, up to Size; a
// retry is allowed while the tokens are more than Cost, and takes Cost.
// Its defaults are the adaptive retry strategy of Marc Brooker's retry
// simulator (github.com/mbrooker/simulator_example,
// retry_sim/retry_strategy.py, AdaptiveRetryFactory(0.1, 5)): a tenth of
// a retry per request, at most 5 tokens in reserve, one a retry.
type BucketBudgetConfig struct {
	Size    float64 `yaml:"size"`
	Deposit float64 `yaml:"deposit"`
	Cost    float64 `yaml:"cost"`
}

// Resolve implements Spec.
func (c *BucketBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	if !(c.Size > 0 && c.Size <= MaxRatio) { // NaN too
		p.add("size", "%v tokens; the bucket holds more than 0 and at most %d, e.g. size: 5", c.Size, MaxRatio)
	}
	if !(c.Deposit > 0 && c.Deposit <= MaxRatio) {
		p.add("deposit", "%v; each request deposits more than 0 and at most %d tokens, e.g. deposit: 0.1 (a tenth of a retry)", c.Deposit, MaxRatio)
	}
	if !(c.Cost > 0 && c.Cost <= MaxRatio) {
		p.add("cost", "%v; a retry takes more than 0 and at most %d tokens, e.g. cost: 1", c.Cost, MaxRatio)
	}
	return p
}

// New implements Spec: a full bucket.
func (c *BucketBudgetConfig) New() Budget {
	milli := func(v float64) int64 { return int64(math.Round(v * 1000)) }
	return &Bucket{size: milli(c.Size), deposit: milli(c.Deposit), cost: milli(c.Cost), tokens: milli(c.Size)}
}

// Bucket is the state of a bucket budget, in thousandths of a token (so a
// deposit of up to three decimals adds up exactly).
type Bucket struct {
	size, deposit, cost, tokens int64
}

// Tokens returns the tokens in the bucket.
func (b *Bucket) Tokens() float64 { return float64(b.tokens) / 1000 }

// Started deposits.
func (b *Bucket) Started(time.Duration) { b.tokens = min(b.size, b.tokens+b.deposit) }

func (b *Bucket) Ended(time.Duration)               {}
func (b *Bucket) Answered(time.Duration, bool, int) {}
func (b *Bucket) Released(time.Duration)            {}

// Retry takes Cost while the bucket holds more than it.
func (b *Bucket) Retry(time.Duration, bool) (int, bool) {
	if b.tokens <= b.cost {
		return 0, false
	}
	b.tokens -= b.cost
	return 1, true
}

var (
	_ BudgetSpec = (*BucketBudgetConfig)(nil)
	_ Budget     = (*Bucket)(nil)
)
