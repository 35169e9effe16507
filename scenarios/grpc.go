package scenarios

import (
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/target"
)

// Whose retry code a cohort runs (StrategyFile.Client).
const (
	clientHerdbench = "herdbench"
	clientGRPCGo    = "grpc-go"
)

// MaxShared is the most clients that may share one channel (as HTTP/2's
// streams on one connection).
const MaxShared = 10_000

// protocol reads a target's (or tier's) wire into cfg: target.protocol,
// and with grpc target.method.
func (c *compiler) protocol(t *TargetFile, cfg *target.Config, at func(string) []step) {
	p, ok := target.ParseProtocol(t.Protocol)
	if !ok {
		c.fail(at("protocol"), "unknown protocol %q; valid: http (HTTP/1.1, the default), grpc (a unary gRPC method, docs/grpc.md)", t.Protocol)
	}
	cfg.Protocol = p
	if t.Method != "" {
		if p != target.GRPC {
			c.fail(at("method"), "a method is a gRPC target's; write protocol: grpc beside it, or leave method out")
		} else if err := grpcwire.CheckMethod(t.Method); err != nil {
			c.fail(at("method"), "%v", err)
		}
	}
	if p == target.GRPC && cfg.Kind == target.OCC {
		c.fail(at("kind"), "an occ target reads and writes its row over HTTP paths; a grpc target is plain (leave kind out)")
	}
}

// grpcPlan checks what a gRPC run needs of the rest of the scenario, and
// reads the method and the shared connections into p: a chain of tiers
// calls its tiers over HTTP; a grpc-go cohort needs a grpc target.
func (c *compiler) grpcPlan(f *File, p *Plan) {
	grpc := p.Target.Protocol == target.GRPC
	if grpc {
		p.Method = f.Target.Method
		if len(f.Tiers) > 0 {
			c.fail([]step{key("tiers")}, "a chain of tiers calls its tiers over HTTP; protocol grpc is for a single target")
		}
	}
	if cf := f.Connections; cf != nil {
		at := []step{key("connections"), key("shared")}
		switch {
		case !grpc:
			c.fail(at, "HTTP/1.1 carries one request at a time on a connection, so its clients cannot share one; remove connections, or set target.protocol: grpc")
		case cf.Shared < 1 || cf.Shared > MaxShared:
			c.fail(at, "%d clients per channel; write from 1 to %d (1: each client its own)", cf.Shared, MaxShared)
		case c.kind == clients.Open:
			c.fail(at, "an open workload's arrivals take the cohort's one channel; shared channels are for closed and oneshot clients; remove connections, or use kind: closed")
		default:
			p.Shared = cf.Shared
		}
	}
	for i := range f.Strategies {
		sf := &f.Strategies[i]
		at := func(k string) []step { return []step{key("strategies"), index(i), key(k)} }
		switch sf.Client {
		case "", clientHerdbench:
			if sf.ServiceConfig != "" {
				c.fail(at("service_config"), "a service config is grpc-go's retry policy; write client: grpc-go beside it, or leave service_config out")
			}
		case clientGRPCGo:
			if !grpc {
				c.fail(at("client"), "client grpc-go calls a gRPC target, and this target speaks HTTP; write target.protocol: grpc (or an HTTP strategy: leave client out)")
			}
			if strings.TrimSpace(sf.ServiceConfig) == "" {
				c.fail(at("service_config"), `missing; client grpc-go retries as its service config says: write grpc-go's JSON, e.g. service_config: '{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}'`)
			} else if err := grpcwire.CheckServiceConfig(sf.ServiceConfig); err != nil {
				c.fail(at("service_config"), "grpc-go rejects it: %v (grpc-go's rules, gRFC A6: a retryPolicy has maxAttempts 2 or more, initialBackoff and maxBackoff above 0s, backoffMultiplier above 0, at least one retryableStatusCodes; retryThrottling has maxTokens in (0, 1000] and tokenRatio above 0)", strings.TrimSpace(err.Error()))
			}
		default:
			c.fail(at("client"), "unknown client %q; valid: herdbench (its own retry loop, the default), grpc-go (grpc-go's retry from service_config)", sf.Client)
		}
	}
}

// grpcStrategy fills what a grpc-go cohort's strategy takes from its file:
// its service config. Its backoff fields are not its retry (grpc-go's is),
// so a missing backoff is no problem.
func grpcStrategy(sf *StrategyFile, s *clients.Strategy) {
	if sf.Client == clientGRPCGo {
		s.ServiceConfig = sf.ServiceConfig
	}
}
