package clients

import (
	"fmt"
	"math"
	"time"
)

// Scope says who shares a policy's state.
type Scope uint8

// Scopes.
const (
	PerClient Scope = iota // every client has its own (an SDK in each process)
	PerCohort              // the whole cohort shares one (a sidecar or a shared channel)
)

var scopeNames = [...]string{PerClient: "client", PerCohort: "cohort"}

func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return fmt.Sprintf("Scope(%d)", uint8(s))
}

// ParseScope reads a scope name.
func ParseScope(name string) (Scope, bool) { return parseName(scopeNames[:], name, Scope(0)) }

// ScopeNames lists the valid scope names.
func ScopeNames() []string { return scopeNames[:] }

// BudgetKind names a retry budget design.
type BudgetKind uint8

// Budget kinds. Each reproduces one published design; the constants are in
// DefaultBudget.
const (
	NoBudget      BudgetKind = iota
	BudgetGRPC               // gRPC A6 retry throttling: a token bucket
	BudgetAWS                // AWS SDK standard mode retry quota
	BudgetFinagle            // Finagle RetryBudget: a percentage of requests plus a reserve
	BudgetSRE                // Google SRE book: retries at most a ratio of requests
	BudgetEnvoy              // Envoy retry budget: concurrent retries against active requests
)

var budgetNames = [...]string{NoBudget: "none", BudgetGRPC: "grpc", BudgetAWS: "aws", BudgetFinagle: "finagle", BudgetSRE: "sre", BudgetEnvoy: "envoy"}

func (k BudgetKind) String() string {
	if int(k) < len(budgetNames) {
		return budgetNames[k]
	}
	return fmt.Sprintf("BudgetKind(%d)", uint8(k))
}

// ParseBudgetKind reads a budget kind name ("none" is not one).
func ParseBudgetKind(name string) (BudgetKind, bool) {
	k, ok := parseName(budgetNames[:], name, BudgetKind(0))
	return k, ok && k != NoBudget
}

// BudgetKindNames lists the valid budget kind names.
func BudgetKindNames() []string { return budgetNames[1:] }

func parseName[T ~uint8](names []string, name string, _ T) (T, bool) {
	for i, n := range names {
		if n == name {
			return T(i), true
		}
	}
	return 0, false
}

// BudgetConfig is an immutable retry budget. Only the fields of its Kind
// are used.
type BudgetConfig struct {
	Kind  BudgetKind
	Scope Scope

	// gRPC A6: tokens start at MaxTokens; a failed attempt takes 1, a
	// success gives TokenRatio back; retries only while tokens > MaxTokens/2.
	MaxTokens  float64
	TokenRatio float64

	// AWS standard: a quota of Tokens; a retry costs RetryCost, or
	// TimeoutRetryCost after a timeout; a success refunds what the
	// request's last retry cost, or NoRetryIncrement if it did not retry.
	Tokens           int
	RetryCost        int
	TimeoutRetryCost int
	NoRetryIncrement int

	// Finagle: each request deposits 1, each retry withdraws
	// 1/PercentCanRetry; deposits and withdrawals expire after TTL; a
	// reserve of MinRetriesPerSec * TTL retries comes on top.
	TTL              time.Duration
	MinRetriesPerSec int
	PercentCanRetry  float64

	// SRE: a retry is allowed while retries (this one included) stay at or
	// below Ratio times the requests started, both counted over Window.
	Ratio  float64
	Window time.Duration

	// Envoy: concurrent retries at most max(MinRetryConcurrency,
	// BudgetPercent% of active requests).
	BudgetPercent       float64
	MinRetryConcurrency int
}

// DefaultBudget returns the published constants of a budget kind (see
// reference/retry-designs.md): gRPC A6's example (10 tokens, ratio 0.1);
// botocore's standard quota (500, 5, 10, 1); Finagle's RetryBudget default
// (10 s, 10 per second, 20%); the SRE book's 10% (over 2 minutes, the window
// of its adaptive throttling); Envoy's retry budget defaults (20%, 3).
func DefaultBudget(k BudgetKind) BudgetConfig {
	c := BudgetConfig{Kind: k}
	switch k {
	case BudgetGRPC:
		c.MaxTokens, c.TokenRatio = 10, 0.1
	case BudgetAWS:
		c.Tokens, c.RetryCost, c.TimeoutRetryCost, c.NoRetryIncrement = 500, 5, 10, 1
	case BudgetFinagle:
		c.TTL, c.MinRetriesPerSec, c.PercentCanRetry = 10*time.Second, 10, 0.2
	case BudgetSRE:
		c.Ratio, c.Window = 0.1, 2*time.Minute
	case BudgetEnvoy:
		c.BudgetPercent, c.MinRetryConcurrency = 20, 3
	}
	return c
}

// Budget caps retries. It is pure: every method takes the elapsed time and
// none reads a clock. A Budget is not safe for concurrent use; a Cohort
// guards the one its clients share.
type Budget interface {
	// Started records the start of a logical request.
	Started(now time.Duration)
	// Ended records the end of a logical request, however it ended.
	Ended(now time.Duration)
	// Answered records the target's answer to an attempt. paid is what the
	// request's latest retry cost (0 if it has not retried).
	Answered(now time.Duration, ok bool, paid int)
	// Retry asks to retry after a failed or locally refused attempt;
	// timeout says the attempt timed out. It reports permission and what
	// the retry took from the budget.
	Retry(now time.Duration, timeout bool) (cost int, ok bool)
	// Released says a retry that Retry permitted has been answered, or
	// refused by a breaker or throttle.
	Released(now time.Duration)
}

// NewBudget returns fresh state for c, or nil for NoBudget.
func NewBudget(c BudgetConfig) Budget {
	switch c.Kind {
	case BudgetGRPC:
		return NewGRPCTokens(c.MaxTokens, c.TokenRatio)
	case BudgetAWS:
		return &AWSQuota{cfg: c, available: c.Tokens}
	case BudgetFinagle:
		return NewFinagleBudget(c.TTL, c.MinRetriesPerSec, c.PercentCanRetry)
	case BudgetSRE:
		return &SRERatio{ratio: c.Ratio, win: newWindow(c.Window)}
	case BudgetEnvoy:
		return &EnvoyBudget{percent: c.BudgetPercent, min: c.MinRetryConcurrency}
	}
	return nil
}

// GRPCTokens is gRPC's retry throttling (gRFC A6). Tokens are kept in
// thousandths, as gRPC's C core does, so a token ratio of up to three
// decimals is exact.
type GRPCTokens struct {
	max, ratio, tokens int64 // milli-tokens
}

// NewGRPCTokens returns a full bucket.
func NewGRPCTokens(maxTokens, tokenRatio float64) *GRPCTokens {
	m := int64(math.Round(maxTokens * 1000))
	return &GRPCTokens{max: m, ratio: int64(math.Round(tokenRatio * 1000)), tokens: m}
}

// Tokens returns the tokens left.
func (g *GRPCTokens) Tokens() float64 { return float64(g.tokens) / 1000 }

func (g *GRPCTokens) Started(time.Duration)  {}
func (g *GRPCTokens) Ended(time.Duration)    {}
func (g *GRPCTokens) Released(time.Duration) {}

// Answered takes a token for a failure and gives TokenRatio back for a
// success.
func (g *GRPCTokens) Answered(_ time.Duration, ok bool, _ int) {
	if ok {
		g.tokens = min(g.max, g.tokens+g.ratio)
	} else {
		g.tokens = max(0, g.tokens-1000)
	}
}

// Retry allows a retry while tokens > MaxTokens/2. It takes nothing: the
// failure already did.
func (g *GRPCTokens) Retry(time.Duration, bool) (int, bool) { return 0, 2*g.tokens > g.max }

// AWSQuota is the AWS SDK standard mode retry quota (botocore
// retries/quota.py and standard.py).
type AWSQuota struct {
	cfg       BudgetConfig
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

// SRERatio is the Google SRE book's per-client retry budget: retries at
// most Ratio of the requests, counted over a window.
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

// EnvoyBudget is Envoy's retry budget: at most max(min_retry_concurrency,
// budget_percent% of active requests) retries outstanding at once.
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
	_ Budget = (*GRPCTokens)(nil)
	_ Budget = (*AWSQuota)(nil)
	_ Budget = (*FinagleBudget)(nil)
	_ Budget = (*SRERatio)(nil)
	_ Budget = (*EnvoyBudget)(nil)
)
