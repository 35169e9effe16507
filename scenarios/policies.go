package scenarios

import (
	"time"

	"github.com/herdbench/herdbench/clients"
)

// BudgetFile is a retry budget: its kind, who shares it, and the kind's own
// parameters (each kind's defaults are its source's published constants).
type BudgetFile struct {
	Kind  string `yaml:"kind,omitempty"`
	Scope string `yaml:"scope,omitempty"`
	// grpc
	MaxTokens  *float64 `yaml:"max_tokens,omitempty"`
	TokenRatio *float64 `yaml:"token_ratio,omitempty"`
	// aws
	Tokens           *int `yaml:"tokens,omitempty"`
	RetryCost        *int `yaml:"retry_cost,omitempty"`
	TimeoutRetryCost *int `yaml:"timeout_retry_cost,omitempty"`
	NoRetryIncrement *int `yaml:"no_retry_increment,omitempty"`
	// finagle
	TTL              string   `yaml:"ttl,omitempty"`
	MinRetriesPerSec *int     `yaml:"min_retries_per_sec,omitempty"`
	PercentCanRetry  *float64 `yaml:"percent_can_retry,omitempty"`
	// sre
	Ratio  *float64 `yaml:"ratio,omitempty"`
	Window string   `yaml:"window,omitempty"`
	// envoy
	BudgetPercent       *float64 `yaml:"budget_percent,omitempty"`
	MinRetryConcurrency *int     `yaml:"min_retry_concurrency,omitempty"`
}

// BreakerFile is a circuit breaker. Left empty, it has resilience4j's
// defaults.
type BreakerFile struct {
	Scope               string   `yaml:"scope,omitempty"`
	ConsecutiveFailures *int     `yaml:"consecutive_failures,omitempty"`
	FailureRate         *float64 `yaml:"failure_rate,omitempty"`
	Window              string   `yaml:"window,omitempty"`
	MinCalls            *int     `yaml:"min_calls,omitempty"`
	OpenFor             string   `yaml:"open_for,omitempty"`
	HalfOpenCalls       *int     `yaml:"half_open_calls,omitempty"`
}

// ThrottleFile is client-side adaptive throttling. Left empty, it has the
// SRE book's constants.
type ThrottleFile struct {
	Scope  string   `yaml:"scope,omitempty"`
	K      *float64 `yaml:"k,omitempty"`
	Window string   `yaml:"window,omitempty"`
}

// budgetFields names each budget kind's own fields, in the order they are
// listed in messages.
var budgetFields = map[clients.BudgetKind][]string{
	clients.BudgetGRPC:    {"max_tokens", "token_ratio"},
	clients.BudgetAWS:     {"tokens", "retry_cost", "timeout_retry_cost", "no_retry_increment"},
	clients.BudgetFinagle: {"ttl", "min_retries_per_sec", "percent_can_retry"},
	clients.BudgetSRE:     {"ratio", "window"},
	clients.BudgetEnvoy:   {"budget_percent", "min_retry_concurrency"},
}

// set returns the kind-specific fields the file sets.
func (f *BudgetFile) set() []string {
	var out []string
	add := func(name string, ok bool) {
		if ok {
			out = append(out, name)
		}
	}
	add("max_tokens", f.MaxTokens != nil)
	add("token_ratio", f.TokenRatio != nil)
	add("tokens", f.Tokens != nil)
	add("retry_cost", f.RetryCost != nil)
	add("timeout_retry_cost", f.TimeoutRetryCost != nil)
	add("no_retry_increment", f.NoRetryIncrement != nil)
	add("ttl", f.TTL != "")
	add("min_retries_per_sec", f.MinRetriesPerSec != nil)
	add("percent_can_retry", f.PercentCanRetry != nil)
	add("ratio", f.Ratio != nil)
	add("window", f.Window != "")
	add("budget_percent", f.BudgetPercent != nil)
	add("min_retry_concurrency", f.MinRetryConcurrency != nil)
	return out
}

// fill sets every field of c's kind that the file leaves unset.
func (f *BudgetFile) fill(c clients.BudgetConfig) {
	f.Kind = c.Kind.String()
	fillF := func(p **float64, v float64) {
		if *p == nil {
			*p = &v
		}
	}
	fillI := func(p **int, v int) {
		if *p == nil {
			*p = &v
		}
	}
	fillD := func(p *string, v time.Duration) {
		if *p == "" {
			*p = v.String()
		}
	}
	switch c.Kind {
	case clients.BudgetGRPC:
		fillF(&f.MaxTokens, c.MaxTokens)
		fillF(&f.TokenRatio, c.TokenRatio)
	case clients.BudgetAWS:
		fillI(&f.Tokens, c.Tokens)
		fillI(&f.RetryCost, c.RetryCost)
		fillI(&f.TimeoutRetryCost, c.TimeoutRetryCost)
		fillI(&f.NoRetryIncrement, c.NoRetryIncrement)
	case clients.BudgetFinagle:
		fillD(&f.TTL, c.TTL)
		fillI(&f.MinRetriesPerSec, c.MinRetriesPerSec)
		fillF(&f.PercentCanRetry, c.PercentCanRetry)
	case clients.BudgetSRE:
		fillF(&f.Ratio, c.Ratio)
		fillD(&f.Window, c.Window)
	case clients.BudgetEnvoy:
		fillF(&f.BudgetPercent, c.BudgetPercent)
		fillI(&f.MinRetryConcurrency, c.MinRetryConcurrency)
	}
}

// preset fills the fields a strategy leaves unset from its preset, so the
// resolved scenario shows what ran. A policy of another kind than the
// preset's (e.g. budget kind aws under preset grpc) replaces the preset's.
func (c *compiler) preset(sf *StrategyFile, at func(string) []step) {
	if sf.Preset == "" {
		return
	}
	p, ok := clients.FindPreset(sf.Preset)
	if !ok {
		names := clients.PresetNames()
		if m, near := closest(sf.Preset, names); near {
			c.fail(at("preset"), "unknown preset %q (did you mean %q?); valid presets: %s", sf.Preset, m, validList(names))
		} else {
			c.fail(at("preset"), "unknown preset %q; valid presets: %s", sf.Preset, validList(names))
		}
		return
	}
	if b := p.Backoff; b != nil {
		if sf.Backoff == "" {
			sf.Backoff = b.Shape.String()
		}
		if sf.Base == "" && b.Base > 0 {
			sf.Base = b.Base.String()
		}
		if sf.Cap == "" && b.Cap > 0 {
			sf.Cap = b.Cap.String()
		}
		if sf.Multiplier == 0 && b.Multiplier > 0 {
			sf.Multiplier = b.Multiplier
		}
	}
	if sf.MaxAttempts == nil && p.MaxAttempts > 0 {
		l := Limit(p.MaxAttempts)
		sf.MaxAttempts = &l
	}
	if b := p.Budget; b != nil {
		if sf.Budget == nil {
			sf.Budget = &BudgetFile{}
		}
		if sf.Budget.Kind == "" || sf.Budget.Kind == b.Kind.String() {
			sf.Budget.fill(*b)
		}
	}
	if t := p.Throttle; t != nil {
		if sf.Throttle == nil {
			sf.Throttle = &ThrottleFile{}
		}
		if sf.Throttle.K == nil {
			k := t.K
			sf.Throttle.K = &k
		}
		if sf.Throttle.Window == "" {
			sf.Throttle.Window = t.Window.String()
		}
	}
}

// policies compiles a strategy's budget, breaker, throttle and pushback
// handling into s.
func (c *compiler) policies(sf *StrategyFile, s *clients.Strategy, at func(string) []step) {
	in := func(parent string) func(string) []step {
		return func(k string) []step { return with(at(parent), key(k)) }
	}
	if sf.Budget != nil {
		s.Budget = c.budget(sf.Budget, in("budget"))
	}
	if sf.Breaker != nil {
		s.Breaker = c.breaker(sf.Breaker, in("breaker"))
	}
	if sf.Throttle != nil {
		s.Throttle = c.throttle(sf.Throttle, in("throttle"))
	}
	switch sf.RetryAfter {
	case "", "ignore":
		if sf.RetryAfterCap != "" {
			c.fail(at("retry_after_cap"), "caps the wait a Retry-After asks for, which this strategy ignores; add retry_after: honor or remove retry_after_cap")
		}
	case "honor":
		s.RetryAfter.Honor = true
		if sf.RetryAfterCap != "" {
			s.RetryAfter.Cap = c.duration(&sf.RetryAfterCap, 0, at("retry_after_cap"))
		}
	default:
		c.fail(at("retry_after"), "unknown value %q; write honor (wait what the server's Retry-After asks instead of the backoff) or ignore (the default)", sf.RetryAfter)
	}
	// A wait that is always 0 with no limit on attempts spins at one
	// instant: a call refused at once (by the breaker or throttle, or,
	// over a network that takes no time, a full queue's 503) is retried at
	// once, forever, and virtual time never moves on.
	if s.MaxAttempts == 0 && (s.Backoff.Shape == clients.None || s.Backoff.Base == 0) {
		switch {
		case s.Breaker != nil || s.Throttle != nil:
			c.fail(at("max_attempts"), "unlimited attempts with a backoff that never waits: a call the breaker or throttle refuses counts as an attempt and is retried at once, forever; set max_attempts or a backoff that waits")
		case c.instant:
			c.fail(at("max_attempts"), "unlimited attempts with a backoff that never waits: a call answered at once (a full queue's 503 over a network that takes no time, a refused connection) is retried at the same instant, forever, and a simulated run never ends; set max_attempts or a backoff that waits")
		}
	}
}

// scope reads a policy's scope. It defaults to client, except in an open
// workload, where every arrival is a fresh client with a single request: a
// client's own budget, breaker or throttle would never see a second call,
// so there the scope is the cohort (the process that serves the arrivals).
func (c *compiler) scope(v *string, path []step) clients.Scope {
	if *v == "" {
		if c.kind == clients.Open {
			*v = clients.PerCohort.String()
			return clients.PerCohort
		}
		*v = clients.PerClient.String()
		return clients.PerClient
	}
	sc, ok := clients.ParseScope(*v)
	if !ok {
		c.fail(path, "unknown scope %q; write client (each client has its own, as an SDK in every process) or cohort (the whole cohort shares one, as a sidecar or a shared channel)", *v)
		return clients.PerClient
	}
	if sc == clients.PerClient && c.kind == clients.Open {
		c.fail(path, "an open workload starts a fresh client for every arrival, so a client's own state would only ever see one request; use scope: cohort (the default for open workloads)")
	}
	return sc
}

func (c *compiler) budget(f *BudgetFile, at func(string) []step) *clients.BudgetConfig {
	kinds := clients.BudgetKindNames()
	kind, ok := clients.ParseBudgetKind(f.Kind)
	switch {
	case f.Kind == "":
		c.fail(at("kind"), "missing; choose a budget: grpc (token bucket, gRPC A6), aws (retry quota, AWS SDK standard), finagle (share of requests plus a reserve), sre (retries at most a ratio of requests), envoy (concurrent retries)")
		return nil
	case !ok:
		if m, near := closest(f.Kind, kinds); near {
			c.fail(at("kind"), "unknown budget kind %q (did you mean %q?); valid kinds: %s", f.Kind, m, validList(kinds))
		} else {
			c.fail(at("kind"), "unknown budget kind %q; valid kinds: %s", f.Kind, validList(kinds))
		}
		return nil
	}
	for _, name := range f.set() {
		if !contains(budgetFields[kind], name) {
			owner := ""
			for k, fields := range budgetFields {
				if contains(fields, name) {
					owner = k.String()
				}
			}
			c.fail(at(name), "%s belongs to %s budgets; a %s budget takes %s", name, owner, kind, validList(budgetFields[kind]))
		}
	}
	cfg := clients.DefaultBudget(kind)
	cfg.Scope = c.scope(&f.Scope, at("scope"))
	f.fill(cfg) // the kind's defaults for what the file leaves out
	switch kind {
	case clients.BudgetGRPC:
		cfg.MaxTokens, cfg.TokenRatio = *f.MaxTokens, *f.TokenRatio
		if !(cfg.MaxTokens > 0 && cfg.MaxTokens <= MaxRatio) { // NaN too
			c.fail(at("max_tokens"), "%v tokens; gRPC accepts 0 < max_tokens <= 1000 (retries stop while tokens <= max_tokens/2)", cfg.MaxTokens)
		}
		if !(cfg.TokenRatio > 0 && cfg.TokenRatio <= MaxRatio) { // NaN too
			c.fail(at("token_ratio"), "%v; the tokens a success gives back go from more than 0 to %d, e.g. token_ratio: 0.1", cfg.TokenRatio, MaxRatio)
		}
	case clients.BudgetAWS:
		cfg.Tokens, cfg.RetryCost, cfg.TimeoutRetryCost, cfg.NoRetryIncrement = *f.Tokens, *f.RetryCost, *f.TimeoutRetryCost, *f.NoRetryIncrement
		for _, v := range []struct {
			name string
			val  int
			min  int
		}{{"tokens", cfg.Tokens, 1}, {"retry_cost", cfg.RetryCost, 1}, {"timeout_retry_cost", cfg.TimeoutRetryCost, 1}, {"no_retry_increment", cfg.NoRetryIncrement, 0}} {
			if v.val < v.min || v.val > MaxCount {
				c.fail(at(v.name), "%d; write from %d to %d", v.val, v.min, MaxCount)
			}
		}
	case clients.BudgetFinagle:
		cfg.TTL = c.duration(&f.TTL, cfg.TTL, at("ttl"))
		if cfg.TTL < time.Second || cfg.TTL > time.Minute || cfg.TTL%time.Second != 0 {
			c.fail(at("ttl"), "%s; Finagle takes a ttl of whole seconds from 1s to 60s, e.g. ttl: 10s", f.TTL)
		}
		cfg.MinRetriesPerSec, cfg.PercentCanRetry = *f.MinRetriesPerSec, *f.PercentCanRetry
		if cfg.MinRetriesPerSec < 0 || cfg.MinRetriesPerSec > MaxCount {
			c.fail(at("min_retries_per_sec"), "%d; write from 0 (no reserve) to %d", cfg.MinRetriesPerSec, MaxCount)
		}
		if !(cfg.PercentCanRetry >= 0 && cfg.PercentCanRetry <= MaxRatio) { // NaN too
			c.fail(at("percent_can_retry"), "%v; it is the retries allowed per request, a fraction from 0 to 1000 (0.2 allows one retry per five requests)", cfg.PercentCanRetry)
		}
	case clients.BudgetSRE:
		cfg.Ratio = *f.Ratio
		if !(cfg.Ratio > 0 && cfg.Ratio <= MaxRatio) { // NaN too
			c.fail(at("ratio"), "%v; retries may be at most this share of requests, more than 0 and at most %d, e.g. ratio: 0.1", cfg.Ratio, MaxRatio)
		}
		cfg.Window = c.positive(&f.Window, cfg.Window, at("window"))
	case clients.BudgetEnvoy:
		cfg.BudgetPercent, cfg.MinRetryConcurrency = *f.BudgetPercent, *f.MinRetryConcurrency
		if !(cfg.BudgetPercent >= 0 && cfg.BudgetPercent <= 100) { // NaN too
			c.fail(at("budget_percent"), "%v; a percentage of active requests, from 0 to 100, e.g. budget_percent: 20", cfg.BudgetPercent)
		}
		if cfg.MinRetryConcurrency < 0 || cfg.MinRetryConcurrency > MaxCount {
			c.fail(at("min_retry_concurrency"), "%d; write from 0 to %d", cfg.MinRetryConcurrency, MaxCount)
		}
	}
	return &cfg
}

// positive reads a duration that must be more than 0.
func (c *compiler) positive(v *string, def time.Duration, path []step) time.Duration {
	d := c.duration(v, def, path)
	if d == 0 {
		c.fail(path, "0s; write a duration more than 0, e.g. %s", def)
		return def
	}
	return d
}

func (c *compiler) breaker(f *BreakerFile, at func(string) []step) *clients.BreakerConfig {
	def := clients.DefaultBreaker()
	cfg := clients.BreakerConfig{Scope: c.scope(&f.Scope, at("scope"))}
	if f.ConsecutiveFailures == nil && f.FailureRate == nil {
		r := def.FailureRate
		f.FailureRate = &r
	}
	if f.ConsecutiveFailures != nil {
		cfg.ConsecutiveFailures = *f.ConsecutiveFailures
		if cfg.ConsecutiveFailures < 1 || cfg.ConsecutiveFailures > MaxCount {
			c.fail(at("consecutive_failures"), "%d; the breaker opens after this many failures in a row, so write from 1 to %d", cfg.ConsecutiveFailures, MaxCount)
		}
	}
	if f.FailureRate != nil {
		cfg.FailureRate = *f.FailureRate
		if !(cfg.FailureRate > 0 && cfg.FailureRate <= 1) { // NaN too
			c.fail(at("failure_rate"), "%v; the breaker opens when this share of calls fails, a fraction in (0, 1], e.g. failure_rate: 0.5", cfg.FailureRate)
		}
		cfg.Window = c.positive(&f.Window, def.Window, at("window"))
		if f.MinCalls == nil {
			n := def.MinCalls
			f.MinCalls = &n
		}
		cfg.MinCalls = *f.MinCalls
		if cfg.MinCalls < 1 || cfg.MinCalls > MaxCount {
			c.fail(at("min_calls"), "%d; the failure rate counts once this many calls were answered in the window, so write from 1 to %d", cfg.MinCalls, MaxCount)
		}
	} else {
		if f.Window != "" {
			c.fail(at("window"), "the window is for failure_rate; this breaker opens on consecutive_failures only")
		}
		if f.MinCalls != nil {
			c.fail(at("min_calls"), "min_calls is for failure_rate; this breaker opens on consecutive_failures only")
		}
	}
	cfg.OpenFor = c.positive(&f.OpenFor, def.OpenFor, at("open_for"))
	if f.HalfOpenCalls == nil {
		n := def.HalfOpenCalls
		f.HalfOpenCalls = &n
	}
	cfg.HalfOpenCalls = *f.HalfOpenCalls
	if cfg.HalfOpenCalls < 1 || cfg.HalfOpenCalls > MaxCount {
		c.fail(at("half_open_calls"), "%d; the trial calls let through after open_for, so write from 1 to %d", cfg.HalfOpenCalls, MaxCount)
	}
	return &cfg
}

func (c *compiler) throttle(f *ThrottleFile, at func(string) []step) *clients.ThrottleConfig {
	def := clients.DefaultThrottle()
	cfg := clients.ThrottleConfig{Scope: c.scope(&f.Scope, at("scope")), K: def.K}
	if f.K == nil {
		f.K = &cfg.K
	}
	cfg.K = *f.K
	if cfg.K < 1 {
		c.fail(at("k"), "%v; with k below 1 a client throttles itself even when every call is accepted; write 1 or more (2 in the SRE book; lower throttles sooner)", cfg.K)
	} else if !(cfg.K <= MaxRatio) { // NaN and +Inf too
		c.fail(at("k"), "%v; write k from 1 to %d (2 in the SRE book; lower throttles sooner)", cfg.K, MaxRatio)
	}
	cfg.Window = c.positive(&f.Window, def.Window, at("window"))
	return &cfg
}
