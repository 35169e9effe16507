package scenarios

import (
	"net/url"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// ConnectionsFile is how the swarm's clients hold connections: each its
// own (the default), or Shared clients to one HTTP/2 connection, as a
// pooled HTTP/2 transport multiplexes, or with target.protocol grpc to
// one grpc-go channel.
type ConnectionsFile struct {
	Shared int `yaml:"shared"`
}

// wire compiles the protocol and the connection model, once the target,
// its URL and the workload are known.
func (c *compiler) wire(f *File, p *Plan) {
	proto, err := wire.Parse(f.Protocol)
	if err != nil {
		c.fail([]step{key("protocol")}, "%v", err)
		return
	}
	p.Protocol = proto
	if proto.HTTP2() {
		if p.Target.Kind == model.OCC && p.TargetURL == "" {
			c.fail([]step{key("protocol")}, "protocol %s: the OCC target's read-then-write is sent over HTTP/1.1 only; remove protocol, or use kind: plain", proto)
		}
		if len(p.Tiers) > 0 {
			c.fail([]step{key("protocol")}, "protocol %s: the tiers of a chain call each other over HTTP/1.1 only; remove protocol, or drop tiers", proto)
		}
		if u, err := url.Parse(p.TargetURL); err == nil && p.TargetURL != "" && u.Scheme != proto.Scheme() {
			c.fail([]step{key("protocol")}, "protocol %s speaks %s, but the target is %s; write a %s:// URL, or protocol %s", proto, proto.Scheme(), secret.URL(p.TargetURL), proto.Scheme(), map[wire.Protocol]string{wire.H2: "h2c", wire.H2C: "h2"}[proto])
		}
	}
	if c.grpc && proto != wire.HTTP1 {
		c.fail([]step{key("protocol")}, "protocol %s: a gRPC target (target.protocol: grpc) speaks grpc-go's own HTTP/2 in cleartext; remove protocol", proto)
	}
	if f.Connections == nil {
		return
	}
	at := []step{key("connections"), key("shared")}
	k := f.Connections.Shared
	switch {
	case !proto.HTTP2() && !c.grpc:
		c.fail(at, "HTTP/1.1 carries one request at a time on a connection, so its clients cannot share one; remove connections, or set protocol: h2c (or h2), or target.protocol: grpc (K clients on a channel)")
	case k < 1 || k > target.MaxStreams:
		c.fail(at, "%d clients per %s; write from 1 to %d (1: each client its own)", k, map[bool]string{false: "connection", true: "channel"}[c.grpc], target.MaxStreams)
	case c.kind == clients.Open:
		c.fail(at, "an open workload's arrivals take connections from a pool (a gRPC cohort's, its one channel); shared connections are for closed and oneshot clients; remove connections, or use kind: closed")
	default:
		p.Shared = k
	}
}
