package clients

//lint:file-ignore SA1019 golang.org/x/net/http2 marks its client and server deprecated in favour of net/http's own HTTP/2 (Go 1.26); herdbench's HTTP/2 is x/net's, by design: its per-server graceful GOAWAY (goAway) and its client connections used directly (no hidden re-send) are x/net's API.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/net/http2"

	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
)

// The swarm's HTTP/2 (h2 over TLS with ALPN, h2c with prior knowledge):
// golang.org/x/net/http2's client connection, one per client or one
// shared by K clients (Swarm.Shared), as a pooled HTTP/2 transport or a
// gRPC channel multiplexes. Each attempt is one stream carrying the
// request the HTTP/1.1 link writes (POST, no body, the same headers), sent
// once: the connection is used directly, not through http2.Transport's
// RoundTrip, which would re-send a stream a GOAWAY refused and hide the
// attempt from the count. A connection that broke or was told to go away
// is dialled again by the next attempt that needs it, once for all the
// clients sharing it; that attempt's latency includes the dial.

// h2Transport holds the settings of every client connection: no
// compression (no Accept-Encoding header the HTTP/1.1 request has not).
var h2Transport = &http2.Transport{AllowHTTP: true, DisableCompression: true}

// maxBody is how much of an answer's body an HTTP/2 attempt reads; the
// rest is discarded by closing the stream.
const maxBody = 1 << 20

// use sets the endpoint's protocol and, when roots is set, the
// certificates its TLS trusts (an embedded target's, wire.Cert.Pool)
// instead of the system's.
func (e *endpoint) use(p wire.Protocol, roots *x509.CertPool) error {
	if e.tls != nil && roots != nil {
		e.tls.RootCAs = roots
	}
	if !p.HTTP2() {
		return nil
	}
	return e.setupH2(e.url, p, e.auth)
}

// setupH2 readies e for HTTP/2: the request every attempt sends.
func (e *endpoint) setupH2(u *url.URL, p wire.Protocol, auth string) error {
	switch {
	case p == wire.H2 && u.Scheme != "https":
		return fmt.Errorf("target %q: protocol h2 is HTTP/2 over TLS; use an https:// target, or protocol h2c for cleartext", u.Redacted())
	case p == wire.H2C && u.Scheme != "http":
		return fmt.Errorf("target %q: protocol h2c is HTTP/2 over cleartext; use an http:// target, or protocol h2 for TLS", u.Redacted())
	}
	e.proto = p
	if e.tls != nil {
		e.tls.NextProtos = []string{"h2"}
	}
	h := http.Header{"User-Agent": {"herdbench"}}
	if auth != "" {
		h.Set("Authorization", auth)
	}
	ru := *u
	ru.User = nil
	e.h2req = &http.Request{Method: http.MethodPost, URL: &ru, Host: u.Host, Header: h, Proto: "HTTP/2.0", ProtoMajor: 2}
	return nil
}

// h2conn is one HTTP/2 connection that one client or K clients share.
type h2conn struct {
	ep      *endpoint
	mu      sync.Mutex
	cc      *http2.ClientConn
	dialing *h2dial // the dial under way, nil if none
	aborted bool
}

// h2dial is one dial that every client needing the connection waits for.
type h2dial struct {
	done chan struct{}
	cc   *http2.ClientConn
	err  error
}

// conn returns a connection that can take a new stream, dialling one
// (or waiting for the dial under way) when there is none.
func (h *h2conn) conn(ctx context.Context) (*http2.ClientConn, error) {
	h.mu.Lock()
	switch {
	case h.aborted:
		h.mu.Unlock()
		return nil, errAborted
	case h.cc != nil && h.cc.CanTakeNewRequest():
		cc := h.cc
		h.mu.Unlock()
		return cc, nil
	case h.dialing != nil:
		d := h.dialing
		h.mu.Unlock()
		select {
		case <-d.done:
			return d.cc, d.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	// A connection told to go away finishes its streams and closes itself;
	// a broken one is closed already.
	d := &h2dial{done: make(chan struct{})}
	h.cc, h.dialing = nil, d
	h.mu.Unlock()
	d.cc, d.err = h.ep.dialH2(ctx)
	h.mu.Lock()
	h.dialing = nil
	if d.err == nil {
		if h.aborted {
			_ = d.cc.Close()
			d.cc, d.err = nil, errAborted
		} else {
			h.cc = d.cc
		}
	}
	h.mu.Unlock()
	close(d.done)
	return d.cc, d.err
}

// dialH2 opens an HTTP/2 connection to the endpoint.
func (e *endpoint) dialH2(ctx context.Context) (*http2.ClientConn, error) {
	nc, err := e.dial(ctx, "tcp", e.addr)
	if err != nil {
		return nil, err
	}
	if e.tls != nil {
		tc := tls.Client(nc, e.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return nil, err
		}
		if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
			_ = nc.Close()
			return nil, fmt.Errorf("%w (ALPN gave %q)", errNoH2, p)
		}
		nc = tc
	}
	cc, err := h2Transport.NewClientConn(nc)
	if err != nil {
		_ = nc.Close()
		return nil, err
	}
	return cc, nil
}

// errNoH2 is a TLS target that would not speak HTTP/2.
var errNoH2 = errors.New("clients: the target did not agree to HTTP/2 over ALPN")

// warm opens the connection ahead of the first attempt, giving up at
// deadline. A failure is not an attempt: the first attempt dials again.
func (h *h2conn) warm(ctx context.Context, deadline time.Time) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	_, _ = h.conn(ctx)
}

// abort ends the connection and every stream on it: the run has ended.
func (h *h2conn) abort() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.aborted = true
	if h.cc != nil {
		_ = h.cc.Close()
		h.cc = nil
	}
}

// attemptH2 sends one attempt as a stream on l's HTTP/2 connection; see
// Swarm.attempt for what it returns.
func (s *Swarm) attemptH2(ctx context.Context, l *link, req []byte) (sent, end time.Duration, o results.Outcome, status int, pushback time.Duration) {
	now := time.Now()
	sent = now.Sub(s.Origin)
	if t := s.Strategy.Timeout; t > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, now.Add(t))
		defer cancel()
	}
	status, pushback, err := l.exchangeH2(ctx, req)
	end = time.Since(s.Origin)
	if err != nil {
		return sent, end, Classify(err), 0, 0
	}
	return sent, end, results.FromStatus(status), status, pushback
}

// exchangeH2 sends the request (req's, or the endpoint's probe for a nil
// req: h2Request) on l's HTTP/2 connection and reads the answer, its body
// up to maxBody.
func (l *link) exchangeH2(ctx context.Context, req []byte) (status int, pushback time.Duration, err error) {
	if l.ep.err != nil {
		return 0, 0, l.ep.err
	}
	r, err := l.h2Request(ctx, req)
	if err != nil {
		return 0, 0, err
	}
	cc, err := l.h2.conn(ctx)
	if err != nil {
		return 0, 0, err
	}
	resp, err := cc.RoundTrip(r)
	if err != nil {
		return 0, 0, err
	}
	if resp.StatusCode >= 400 {
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			pushback, _ = ParseRetryAfter(ra, time.Now())
		}
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	_ = resp.Body.Close()
	return resp.StatusCode, pushback, err
}

// h2Request is the request to send on l's HTTP/2 connection: the probe
// for a nil req, else the request of a strategy's mix whose bytes req are
// (written as the HTTP/1.1 path sends them, its placeholders filled), read
// back and pointed at the endpoint, so both protocols send the very same
// requests.
func (l *link) h2Request(ctx context.Context, req []byte) (*http.Request, error) {
	base := l.ep.h2req
	if req == nil {
		return base.WithContext(ctx), nil
	}
	r, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(req)))
	if err != nil {
		return nil, err
	}
	r.RequestURI = ""
	r.URL.Scheme, r.URL.Host, r.Host = base.URL.Scheme, base.URL.Host, base.Host
	r.Proto, r.ProtoMajor, r.ProtoMinor = base.Proto, base.ProtoMajor, base.ProtoMinor
	return r.WithContext(ctx), nil
}
