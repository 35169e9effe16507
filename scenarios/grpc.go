package scenarios

import (
	"errors"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/internal/grpcraw"

	"github.com/herdbench/herdbench/target/model"
	"go.yaml.in/yaml/v3"
)

// A gRPC scenario: the target speaks gRPC (target.protocol: grpc), and a
// cohort may retry with grpc-go's own code (client: grpc-go, its retries
// from service_config, the JSON grpc-go's documentation writes), which the
// simulator models (clients.GRPCServiceConfig, docs/grpc.md).

// Protocols a target speaks.
const (
	ProtocolHTTP = "http"
	ProtocolGRPC = "grpc"
)

// ClientGRPCGo is the client: a strategy writes for grpc-go's own retries.
const ClientGRPCGo = "grpc-go"

// protocol checks a target's protocol, with grpc its method, and reports
// whether it is gRPC; it sets cfg.Protocol, the wire the embedded target
// speaks.
func (c *compiler) protocol(t *TargetFile, cfg *model.Config, base []step) bool {
	at := func(k string) []step { return with(base, key(k)) }
	grpc := false
	switch t.Protocol {
	case "", ProtocolHTTP:
	case ProtocolGRPC:
		grpc = true
		cfg.Protocol = model.GRPC
	default:
		c.fail(at("protocol"), "unknown protocol %q; write http (the default) or grpc", t.Protocol)
	}
	c.method = t.Method
	if t.Method != "" {
		if !grpc {
			c.fail(at("method"), "a method is a gRPC target's; write protocol: grpc beside it, or leave method out")
		} else if err := grpcwire.CheckMethod(t.Method); err != nil {
			c.fail(at("method"), "%v", err)
		}
	}
	if grpc && cfg.Kind == model.OCC {
		c.fail(at("kind"), "an occ target reads and writes its row over HTTP paths; a grpc target is plain (leave kind out)")
	}
	return grpc
}

// grpcPlan reads a gRPC run's method into p, and refuses shared channels
// (wire.go) to a grpc-go cohort whose throttler is each client's.
func (c *compiler) grpcPlan(f *File, p *Plan) {
	if c.grpc {
		p.Method = f.Target.Method
	}
	if p.Shared > 1 {
		for i := range f.Strategies {
			sf := &f.Strategies[i]
			for _, s := range p.Strategies {
				if s.Name == sf.Name && s.GRPC != nil && s.GRPC.Throttling != nil && s.Budget != nil && !s.Budget.Scope.Shared() {
					c.fail([]step{key("strategies"), index(i), key("channel")}, "client: each client its own grpc-go channel and retry throttler, and connections.shared puts %d clients on a channel, whose throttler they would share; write channel: cohort (one channel, one throttler), or remove connections", p.Shared)
				}
			}
		}
	}
}

// herdbenchLoopFields are a strategy's fields that configure herdbench's
// own retry loop, which a grpc-go cohort does not run.
var herdbenchLoopFields = []struct {
	key string
	set func(sf *StrategyFile) bool
}{
	{"preset", func(sf *StrategyFile) bool { return sf.Preset != "" }},
	{"backoff", func(sf *StrategyFile) bool { return sf.Backoff != "" }},
	{"base", func(sf *StrategyFile) bool { return sf.Base != "" }},
	{"cap", func(sf *StrategyFile) bool { return sf.Cap != "" }},
	{"multiplier", func(sf *StrategyFile) bool { return sf.Multiplier != 0 }},
	{"jitter", func(sf *StrategyFile) bool { return sf.Jitter != nil }},
	{"max_attempts", func(sf *StrategyFile) bool { return sf.MaxAttempts != nil }},
	{"reset", func(sf *StrategyFile) bool { return sf.Reset != "" }},
	{"budget", func(sf *StrategyFile) bool { return sf.Budget != nil }},
	{"breaker", func(sf *StrategyFile) bool { return sf.Breaker != nil }},
	{"throttle", func(sf *StrategyFile) bool { return sf.Throttle != nil }},
	{"retry_after", func(sf *StrategyFile) bool { return sf.RetryAfter != "" }},
	{"retry_after_cap", func(sf *StrategyFile) bool { return sf.RetryAfterCap != "" }},
	{"tiers", func(sf *StrategyFile) bool { return sf.Tiers != nil }},
	{"hedge", func(sf *StrategyFile) bool { return sf.Hedge != nil }},
}

// grpcStrategy compiles a strategy with a client: grpc-go's own retries,
// from its service config, each RPC within its timeout (the caller's
// deadline), and its throttler per channel (channel: client, the default,
// or cohort).
func (c *compiler) grpcStrategy(sf *StrategyFile, at func(string) []step) clients.Strategy {
	s := clients.Strategy{Name: sf.Name}
	if sf.Client != ClientGRPCGo {
		c.fail(at("client"), "unknown client %q; write client: %s (grpc-go's own retries, from service_config), or leave it out for herdbench's retry loop", sf.Client, ClientGRPCGo)
		return s
	}
	bad := false
	for _, f := range herdbenchLoopFields {
		if f.set(sf) {
			c.fail(at(f.key), "%s configures herdbench's own retry loop; a client: grpc-go cohort retries as its service_config says (retryPolicy, retryThrottling: docs/grpc.md); remove it", f.key)
			bad = true
		}
	}
	switch {
	case !c.grpc && !c.external:
		c.fail(at("client"), "grpc-go speaks gRPC, and the embedded target speaks HTTP; add target.protocol: grpc")
		bad = true
	case c.tiered:
		c.fail(at("client"), "a chain of tiers speaks HTTP between its tiers; a client: grpc-go cohort calls a single gRPC target (target.protocol: grpc)")
		bad = true
	}
	deadline := c.duration(&sf.Timeout, DefaultTimeout, at("timeout"))
	scope := c.scope(&sf.Channel, at("channel"))
	if sf.ServiceConfig == "" {
		c.fail(at("service_config"), `missing; a client: grpc-go cohort needs the service config grpc-go is given, e.g.
    service_config: |
      {"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s",
        "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}`)
		return s
	}
	method := c.method
	if method == "" {
		method = grpcwire.Method
	}
	sc, err := clients.ParseGRPCServiceConfig(sf.ServiceConfig, method, grpcraw.CheckServiceConfig)
	if err != nil {
		var ce *clients.GRPCConfigError
		line := c.s.lineOf(at("service_config"))
		if errors.As(err, &ce) && ce.Line > 0 {
			if n := valueAt(c.s.root, at("service_config")); n != nil && (n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle) {
				line = n.Line + ce.Line // a block's text starts on the line after its | or >
			}
		}
		c.errs.Problems = append(c.errs.Problems, Problem{Line: line, Path: pathOf(at("service_config")), Msg: strings.TrimSpace(err.Error())})
		return s
	}
	if bad {
		return s
	}
	return clients.GRPCStrategy(sf.Name, sc, deadline, scope)
}

// pushbackNeedsGRPC refuses a fault's pushback_ms, gRPC's pushback,
// against a target that speaks HTTP.
func (c *compiler) pushbackNeedsGRPC(params *yaml.Node, base []step) {
	pushback := false
	for i := 0; params.Kind == yaml.MappingNode && i+1 < len(params.Content); i += 2 {
		pushback = pushback || params.Content[i].Value == "pushback_ms"
	}
	if pushback && !c.grpc && !c.external {
		c.fail(with(base, key("pushback_ms")), "is gRPC's grpc-retry-pushback-ms, and the target speaks HTTP (Retry-After: retry_after); add target.protocol: grpc, or remove pushback_ms")
	}
}

// valueAt returns the value of the key at path (nodeAt returns the key).
func valueAt(root *yaml.Node, path []step) *yaml.Node {
	m := nodeAt(root, path[:len(path)-1])
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == path[len(path)-1].key {
			return m.Content[i+1]
		}
	}
	return nil
}
