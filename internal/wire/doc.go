// Package wire names the protocols herdbench speaks to a target (HTTP/1.1,
// HTTP/2 over TLS with ALPN, HTTP/2 over cleartext with prior knowledge)
// and makes the TLS certificate an embedded target serves: made in memory
// at start, never written to disk, and trusted by the swarm of the same
// process. The swarm (clients), the target and the proxy (target.Listen)
// read the protocol from here; the HTTP/2 code itself is
// golang.org/x/net/http2.
package wire
