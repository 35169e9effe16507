package clients

import (
	"math"
	"time"
)

func init() {
	Budgets.Register("grpc", "token bucket, gRPC A6", func() BudgetSpec {
		return &GRPCBudgetConfig{MaxTokens: 10, TokenRatio: 0.1}
	})
}

// GRPCBudgetConfig is gRPC's retry throttling (gRFC A6): tokens start at
// MaxTokens; a failed attempt takes 1, a success gives TokenRatio back;
// retries only while tokens > MaxTokens/2. Its defaults are A6's example
// (10 tokens, ratio 0.1).
type GRPCBudgetConfig struct {
	MaxTokens  float64 `yaml:"max_tokens"`
	TokenRatio float64 `yaml:"token_ratio"`
}

// Resolve implements Spec.
func (c *GRPCBudgetConfig) Resolve(func(string) bool) []*ParamError {
	var p problems
	if !(c.MaxTokens > 0 && c.MaxTokens <= MaxRatio) { // NaN too
		p.add("max_tokens", "%v tokens; gRPC accepts 0 < max_tokens <= %d (retries stop while tokens <= max_tokens/2)", c.MaxTokens, MaxRatio)
	}
	if !(c.TokenRatio > 0 && c.TokenRatio <= MaxRatio) { // NaN too
		p.add("token_ratio", "%v; the tokens a success gives back go from more than 0 to %d, e.g. token_ratio: 0.1", c.TokenRatio, MaxRatio)
	}
	return p
}

// New implements Spec: a full bucket.
func (c *GRPCBudgetConfig) New() Budget { return NewGRPCTokens(c.MaxTokens, c.TokenRatio) }

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

var (
	_ BudgetSpec = (*GRPCBudgetConfig)(nil)
	_ Budget     = (*GRPCTokens)(nil)
)
