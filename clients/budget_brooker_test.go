package clients

import "testing"

// The bucket budget is retry_sim's AdaptiveRetryStrategy(0.1, 5): full at
// 5, a retry while more than 1 is left (4 from a full bucket), 0.1 a
// request up to 5, exactly in thousandths (ten deposits make one retry).
func TestBucketIsBrookersAdaptiveStrategy(t *testing.T) {
	def := defaultSpec(t, Budgets, "bucket").(*BucketBudgetConfig)
	if def.Size != 5 || def.Deposit != 0.1 || def.Cost != 1 {
		t.Fatalf("bucket's defaults = %+v; want the simulator's 5, 0.1, 1", def)
	}
	b := def.New().(*Bucket)
	if got := countRetries(b, 0, false, 100); got != 4 || b.Tokens() != 1 {
		t.Fatalf("from full: %d retries, %v tokens left; want 4 and 1 (a retry needs more than 1)", got, b.Tokens())
	}
	b.Started(0) // 1.1: more than 1
	if _, ok := b.Retry(0, false); !ok || b.Tokens() != 0.1 {
		t.Fatalf("1.1 tokens: a retry denied (or %v left, want 0.1)", b.Tokens())
	}
	for range 9 {
		b.Started(0)
	}
	if _, ok := b.Retry(0, false); ok {
		t.Errorf("9 deposits of 0.1 on 0.1: %v tokens, and a retry allowed", b.Tokens())
	}
	b.Started(0)
	if _, ok := b.Retry(0, false); !ok {
		t.Errorf("10 deposits: a retry denied (%v tokens)", b.Tokens())
	}
	for range 1000 {
		b.Started(0)
	}
	if b.Tokens() != 5 {
		t.Errorf("deposits past the size: %v tokens, want 5", b.Tokens())
	}
	bad := &BucketBudgetConfig{Size: 0, Deposit: -1, Cost: 2000}
	if ps := bad.Resolve(func(string) bool { return true }); len(ps) != 3 {
		t.Errorf("a bad bucket: %v", ps)
	}
}

// The failure-ratio budget is retry_sim's CircuitBreakerRetryStrategy with
// max_rate 0.1: no retry while failures / requests > 0.1, since the start.
func TestFailureRatioIsBrookersBreaker(t *testing.T) {
	def := defaultSpec(t, Budgets, "failure-ratio").(*FailureRatioBudgetConfig)
	if def.Ratio != 0.1 {
		t.Fatalf("failure-ratio's default = %v; want 0.1", def.Ratio)
	}
	f := def.New().(*FailureRatio)
	if _, ok := f.Retry(0, false); ok {
		t.Error("a retry with no request")
	}
	for range 10 {
		f.Started(0)
	}
	f.Answered(0, false, 0) // 1 of 10: not more than 0.1
	if _, ok := f.Retry(0, false); !ok {
		t.Error("1 failure in 10 requests: retry denied")
	}
	f.Answered(0, false, 0) // 2 of 10
	if _, ok := f.Retry(0, false); ok {
		t.Error("2 failures in 10 requests: retry allowed")
	}
	f.Answered(0, true, 0)
	for range 10 {
		f.Started(0)
	}
	if _, ok := f.Retry(0, false); !ok {
		t.Error("2 failures in 20 requests: retry denied (the breaker closes again)")
	}
	one := def.New()
	one.Started(0)
	if got := countRetries(one, 0, false, 10); got != 0 {
		t.Errorf("a client's first request failing: %d retries; a small client's breaker trips at its first failure", got)
	}
}
