package target

//lint:file-ignore SA1019 golang.org/x/net/http2 marks its client and server deprecated in favour of net/http's own HTTP/2 (Go 1.26); herdbench's HTTP/2 is x/net's, by design: its per-server graceful GOAWAY (goAway) and its client connections used directly (no hidden re-send) are x/net's API.

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"

	"golang.org/x/net/http2"

	"github.com/herdbench/herdbench/internal/wire"
)

// This file is how the server speaks each protocol (wire.Protocol):
// HTTP/1.1 as net/http serves it; h2c (HTTP/2 with prior knowledge, and
// HTTP/1.1 on the same port) and h2 (TLS with ALPN offering h2 and
// http/1.1) by golang.org/x/net/http2's server behind net/http's
// listener, so every connection, whatever it speaks, is in Server.conns
// and a crash resets it.

// connKey carries a request's connection in its context, for a reset of
// an HTTP/2 connection (which cannot be hijacked); connInfoKey its
// connInfo.
type (
	connKey     struct{}
	connInfoKey struct{}
)

// connInfo is what the server knows of one connection: how many of its
// requests are in the handler (one at most over HTTP/1.1, every open
// stream over HTTP/2).
type connInfo struct{ inFlight atomic.Int32 }

// setupWire readies s.srv for protocol p; cert is the h2 server's
// certificate. It returns the TLS configuration to wrap the listener in,
// nil for cleartext.
func (s *Server) setupWire(p wire.Protocol, cert *wire.Cert) (*tls.Config, error) {
	s.proto = p
	s.srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		ci := &connInfo{}
		s.mu.Lock()
		s.conns[c] = ci // before its StateNew (trackConn keeps it)
		s.mu.Unlock()
		return context.WithValue(context.WithValue(ctx, connKey{}, c), connInfoKey{}, ci)
	}
	if !p.HTTP2() {
		return nil, nil
	}
	// The HTTP/2 server is configured on a server of its own that never
	// listens: its Shutdown is the graceful GOAWAY of every HTTP/2
	// connection (goAway), which the serving server's Shutdown would
	// also stop it for good. Its handlers are handed to the real one.
	h2 := &http2.Server{IdleTimeout: s.srv.IdleTimeout, MaxConcurrentStreams: MaxStreams}
	s.h2 = &http.Server{}
	if err := http2.ConfigureServer(s.h2, h2); err != nil {
		return nil, fmt.Errorf("target: HTTP/2: %w", err)
	}
	s.srv.TLSNextProto = s.h2.TLSNextProto
	if p == wire.H2C {
		var protos http.Protocols
		protos.SetHTTP1(true)
		protos.SetUnencryptedHTTP2(true)
		s.srv.Protocols = &protos
		return nil, nil
	}
	if cert == nil {
		var err error
		if cert, err = wire.NewCert(); err != nil {
			return nil, err
		}
	}
	s.cert = cert
	return cert.ServerTLS(wire.H2), nil
}

// MaxStreams is how many streams an HTTP/2 connection to the target may
// have open at once: enough for every client sharing one connection
// (connections: shared: K caps K at this).
const MaxStreams = 10000

// wrapTLS wraps ln in the server's TLS, if it has any.
func (s *Server) wrapTLS(ln net.Listener) net.Listener {
	if s.tls == nil {
		return ln
	}
	return tls.NewListener(ln, s.tls)
}

// goAway begins a goaway outage: every connection with no request in
// flight is closed (a FIN: idle, or opened and never used); HTTP/1.1
// answers in flight carry Connection: close; every HTTP/2 connection with
// streams in flight gets a GOAWAY, its streams finish and it closes. A
// gRPC server sends grpc-go's GOAWAY on every connection (goAwayGRPC).
func (s *Server) goAway() {
	s.mu.Lock()
	if s.grpc != nil {
		s.mu.Unlock()
		s.goAwayGRPC() // a gRPC server's own GOAWAY, as GracefulStop sends it
		return
	}
	for c, ci := range s.conns {
		if ci.inFlight.Load() == 0 {
			_ = c.Close()
		}
	}
	s.mu.Unlock()
	s.srv.SetKeepAlivesEnabled(false)
	if s.h2 != nil {
		_ = s.h2.Shutdown(context.Background()) // it has no listener: returns at once
	}
}

// Cert returns the certificate the server serves h2 with; nil without
// TLS. A swarm of the same process trusts it (wire.Cert.Pool).
func (s *Server) Cert() *wire.Cert { return s.cert }

// Protocol returns the protocol the server speaks.
func (s *Server) Protocol() wire.Protocol { return s.proto }
