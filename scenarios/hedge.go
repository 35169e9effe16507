package scenarios

import (
	"time"

	"github.com/herdbench/herdbench/clients"
)

// HedgeFile is a strategy's hedge as written: after delay without an
// answer, another attempt of the request, up to max per try (1 when left
// out), as gRPC's hedging policy and failsafe-go's hedge policy send them
// (clients.Hedge).
type HedgeFile struct {
	Delay string `yaml:"delay"`
	Max   *int   `yaml:"max,omitempty"`
}

// hedge compiles a strategy's hedge into s. A tier's calls and a strategy
// whose transport re-sends by itself do not hedge: each of their attempts
// has one connection's worth of state to keep.
func (c *compiler) hedge(sf *StrategyFile, s *clients.Strategy, at func(string) []step) {
	h := sf.Hedge
	if h == nil {
		return
	}
	path := func(k string) []step { return with(at("hedge"), key(k)) }
	switch {
	case c.atTier:
		c.fail(at("hedge"), "a tier's calls are not hedged; hedge the clients' strategy, or remove it")
		return
	case s.Transport == clients.NetHTTP:
		c.fail(at("hedge"), "transport: net/http re-sends an attempt by itself, which a hedge's attempt in flight beside it cannot; drop one of them")
		return
	case h.Delay == "":
		c.fail(path("delay"), "missing; write how long an attempt goes unanswered before its hedge is sent, e.g. delay: 10ms (about the 95th percentile of the latency, as in The Tail at Scale)")
		return
	}
	if _, err := time.ParseDuration(h.Delay); err != nil {
		c.duration(&h.Delay, 0, path("delay")) // says what is wrong
		return
	}
	d := c.duration(&h.Delay, 0, path("delay"))
	if d <= 0 {
		c.fail(path("delay"), "%s; a hedge goes out after its attempt has been unanswered that long: write more than 0s, e.g. delay: 10ms", h.Delay)
	}
	n := 1
	if h.Max != nil {
		n = *h.Max
		if n < 1 || n > clients.MaxHedges {
			c.fail(path("max"), "%d hedges; write from 1 to %d hedges per try (each one more attempt of the request), or leave it out for 1", n, clients.MaxHedges)
		}
	}
	s.Hedge = clients.Hedge{Delay: d, Max: n}
}
