package clients

import (
	"testing"
	"time"
)

// countRetries counts how many retries b permits in a row with no success in
// between, calling fail before each ask (as the client does after every
// failed attempt), up to limit.
func countRetries(b Budget, now time.Duration, timeout bool, limit int) int {
	n := 0
	for n < limit {
		b.Answered(now, false, 0)
		if _, ok := b.Retry(now, timeout); !ok {
			break
		}
		n++
	}
	return n
}

func TestAWSQuotaPublishedConstants(t *testing.T) {
	def := defaultSpec(t, Budgets, "aws").(*AWSBudgetConfig)
	if def.Tokens != 500 || def.RetryCost != 5 || def.TimeoutRetryCost != 10 || def.NoRetryIncrement != 1 {
		t.Fatalf("aws's defaults = %+v; want botocore's 500, 5, 10, 1", def)
	}
	tests := []struct {
		name    string
		timeout bool
		want    int
	}{
		{"a full quota pays for exactly 100 retries of cost 5", false, 100},
		{"and for exactly 50 retries after timeouts (cost 10)", true, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := def.New().(*AWSQuota)
			if got := countRetries(q, 0, tt.timeout, 1000); got != tt.want {
				t.Errorf("retries = %d, want %d", got, tt.want)
			}
			if q.Available() != 0 {
				t.Errorf("left %d tokens, want 0", q.Available())
			}
		})
	}
}

func TestAWSQuotaRefunds(t *testing.T) {
	q := defaultSpec(t, Budgets, "aws").New().(*AWSQuota)
	steps := []struct {
		do   string // "retry", "retry-timeout", "ok" (with paid), "fail"
		paid int
		want int // tokens after the step
		ok   bool
	}{
		{"retry", 0, 495, true},
		{"retry-timeout", 0, 485, true},
		{"ok", 10, 495, true}, // success after retries: refund the last retry's cost
		{"ok", 0, 496, true},  // success at once: refund 1
		{"fail", 0, 496, true},
		{"ok", 0, 497, true},
		{"ok", 5, 500, true}, // capped at the maximum
		{"ok", 0, 500, true},
	}
	for i, s := range steps {
		switch s.do {
		case "retry", "retry-timeout":
			if _, ok := q.Retry(0, s.do == "retry-timeout"); ok != s.ok {
				t.Fatalf("step %d (%s): permitted %v, want %v", i, s.do, ok, s.ok)
			}
		case "ok":
			q.Answered(0, true, s.paid)
		case "fail":
			q.Answered(0, false, 0)
		}
		if q.Available() != s.want {
			t.Fatalf("step %d (%s, paid %d): %d tokens, want %d", i, s.do, s.paid, q.Available(), s.want)
		}
	}
	// An empty quota refuses, and a success refills it enough for one more.
	q = &AWSQuota{cfg: *defaultSpec(t, Budgets, "aws").(*AWSBudgetConfig), available: 4}
	if _, ok := q.Retry(0, false); ok {
		t.Fatal("4 tokens paid for a retry of cost 5")
	}
	q.Answered(0, true, 0)
	if cost, ok := q.Retry(0, false); !ok || cost != 5 || q.Available() != 0 {
		t.Fatalf("after a refund of 1: Retry = %d, %v with %d left; want 5, true, 0", cost, ok, q.Available())
	}
}

func TestGRPCTokensStopAndResume(t *testing.T) {
	def := defaultSpec(t, Budgets, "grpc").(*GRPCBudgetConfig)
	if def.MaxTokens != 10 || def.TokenRatio != 0.1 {
		t.Fatalf("grpc's defaults = %+v; want A6's example 10, 0.1", def)
	}
	g := def.New().(*GRPCTokens)
	// Each failure takes a token, and retries go on while tokens > 5:
	// 10 -> 9, 8, 7, 6 allow a retry; at 5 they stop.
	want := []struct {
		tokens float64
		retry  bool
	}{{9, true}, {8, true}, {7, true}, {6, true}, {5, false}, {4, false}}
	for i, w := range want {
		g.Answered(0, false, 0)
		_, ok := g.Retry(0, false)
		if g.Tokens() != w.tokens || ok != w.retry {
			t.Fatalf("failure %d: tokens %v, retry %v; want %v, %v", i+1, g.Tokens(), ok, w.tokens, w.retry)
		}
	}
	// From 4 tokens, successes give 0.1 each: retries resume once tokens
	// exceed 5, i.e. after exactly 11 successes (5.1), not 10 (5.0).
	for i := 1; i <= 11; i++ {
		g.Answered(0, true, 0)
		_, ok := g.Retry(0, false)
		if ok != (i == 11) {
			t.Fatalf("after %d successes (tokens %v): retry %v", i, g.Tokens(), ok)
		}
	}
	if g.Tokens() != 5.1 {
		t.Fatalf("tokens %v, want 5.1 exactly (milli-tokens)", g.Tokens())
	}
	// Tokens stay in [0, max].
	for range 100 {
		g.Answered(0, true, 0)
	}
	if g.Tokens() != 10 {
		t.Fatalf("tokens %v after many successes, want the maximum 10", g.Tokens())
	}
	for range 100 {
		g.Answered(0, false, 0)
	}
	if g.Tokens() != 0 {
		t.Fatalf("tokens %v after many failures, want 0", g.Tokens())
	}
}

func TestFinagleBudget(t *testing.T) {
	def := defaultSpec(t, Budgets, "finagle").(*FinagleBudgetConfig)
	if def.TTL != 10*time.Second || def.MinRetriesPerSec != 10 || def.PercentCanRetry != 0.2 {
		t.Fatalf("finagle's defaults = %+v; want 10s, 10, 0.2", def)
	}
	t.Run("the reserve alone pays for min_retries_per_sec * ttl retries", func(t *testing.T) {
		f := def.New().(*FinagleBudget)
		if got := countRetries(f, time.Second, false, 1000); got != 100 {
			t.Errorf("retries = %d, want 10/s * 10 s = 100", got)
		}
	})
	t.Run("each request pays for percent_can_retry of a retry", func(t *testing.T) {
		f := NewFinagleBudget(10*time.Second, 0, 0.2)
		for range 100 {
			f.Started(time.Second)
		}
		if got := countRetries(f, time.Second, false, 1000); got != 20 {
			t.Errorf("retries after 100 requests = %d, want 20", got)
		}
	})
	t.Run("deposits and withdrawals expire after ttl", func(t *testing.T) {
		f := NewFinagleBudget(10*time.Second, 0, 0.5)
		for range 10 {
			f.Started(0)
		}
		if got := countRetries(f, 0, false, 1000); got != 5 {
			t.Fatalf("retries = %d, want 5", got)
		}
		// At 9.9 s the slice of t = 0 is still in the window: nothing new.
		if got := countRetries(f, 9900*time.Millisecond, false, 1000); got != 0 {
			t.Fatalf("retries at 9.9s = %d, want 0", got)
		}
		// At 10 s it has expired, with its deposits and withdrawals.
		if f.Balance(10*time.Second) != 0 {
			t.Fatalf("balance at 10s = %d, want 0", f.Balance(10*time.Second))
		}
		for range 4 {
			f.Started(10 * time.Second)
		}
		if got := countRetries(f, 10*time.Second, false, 1000); got != 2 {
			t.Fatalf("retries at 10s after 4 requests = %d, want 2", got)
		}
	})
}

func TestSRERatio(t *testing.T) {
	def := defaultSpec(t, Budgets, "sre").(*SREBudgetConfig)
	if def.Ratio != 0.1 {
		t.Fatalf("sre's defaults.Ratio = %v, want 0.1", def.Ratio)
	}
	s := def.New()
	if _, ok := s.Retry(0, false); ok {
		t.Fatal("a retry with no request in the window")
	}
	for range 100 {
		s.Started(time.Second)
	}
	if got := countRetries(s, time.Second, false, 1000); got != 10 {
		t.Fatalf("retries after 100 requests = %d, want 10 (10%%)", got)
	}
	for range 10 {
		s.Started(2 * time.Second)
	}
	if got := countRetries(s, 2*time.Second, false, 1000); got != 1 {
		t.Fatalf("retries after 10 more requests = %d, want 1", got)
	}
	// Two minutes later the window has moved past all of it.
	for range 10 {
		s.Started(3 * time.Minute)
	}
	if got := countRetries(s, 3*time.Minute, false, 1000); got != 1 {
		t.Fatalf("retries in a fresh window after 10 requests = %d, want 1", got)
	}
}

func TestEnvoyBudget(t *testing.T) {
	def := defaultSpec(t, Budgets, "envoy").(*EnvoyBudgetConfig)
	if def.BudgetPercent != 20 || def.MinRetryConcurrency != 3 {
		t.Fatalf("envoy's defaults = %+v; want 20%%, 3", def)
	}
	e := def.New()
	for range 10 {
		e.Started(0)
	}
	// 20% of 10 active requests is 2, below the minimum of 3.
	if got := countRetries(e, 0, false, 100); got != 3 {
		t.Fatalf("concurrent retries with 10 active = %d, want 3", got)
	}
	e.Released(0)
	if _, ok := e.Retry(0, false); !ok {
		t.Fatal("no retry after one was released")
	}
	for range 40 {
		e.Started(0)
	}
	// 50 active: 20% is 10, of which 3 are out.
	if got := countRetries(e, 0, false, 100); got != 7 {
		t.Fatalf("more concurrent retries with 50 active = %d, want 7", got)
	}
}

func TestWindowOutOfOrder(t *testing.T) {
	w := newWindow(time.Second)        // slices of 100 ms
	w.add(250*time.Millisecond, 1, 0)  // slice 2
	w.add(1200*time.Millisecond, 2, 0) // slice 12, ahead of the others: it takes slice 2's slot
	w.add(50*time.Millisecond, 4, 0)   // slice 0: its slot is free, so it still counts
	w.add(300*time.Millisecond, 8, 0)  // slice 3
	if a, _ := w.sums(1200 * time.Millisecond); a != 2+8 {
		t.Fatalf("sum at 1.2s = %d, want 10 (slices 3..12)", a)
	}
	if a, _ := w.sums(300 * time.Millisecond); a != 4+8 {
		t.Fatalf("sum at 0.3s = %d, want 12 (slices 0..3, slice 2 gone)", a)
	}
	w.add(200*time.Millisecond, 16, 0) // slice 2's slot now holds slice 12: too old, dropped
	if a, _ := w.sums(1200 * time.Millisecond); a != 10 {
		t.Fatalf("sum at 1.2s after a stale add = %d, want 10", a)
	}
}
