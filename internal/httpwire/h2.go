package httpwire

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
)

// The swarm's HTTP/2 (h2 over TLS with ALPN, h2c with prior knowledge):
// a connection per client or one shared by K clients (Swarm.Shared), as a
// pooled HTTP/2 transport or a gRPC channel multiplexes, each spoken by an
// h2client (h2client.go: golang.org/x/net/http2's framing and hpack, the
// streams of a connection batched into one write). Each attempt is one
// stream carrying the request the HTTP/1.1 link writes (the same method,
// path, headers and body), sent once: a stream a GOAWAY or the server
// refused fails, to be counted, never re-sent behind the strategy's back.
// A connection that broke or was told to go away is dialled again by the
// next attempt that needs it, once for all the clients sharing it; that
// attempt's latency includes the dial.

// use sets the endpoint's protocol and, when roots is set, the
// certificates its TLS trusts (an embedded target's, wire.Cert.Pool)
// instead of the system's.
func (e *Endpoint) Use(p wire.Protocol, roots *x509.CertPool) error {
	if e.tls != nil && roots != nil {
		e.tls.RootCAs = roots
	}
	if !p.HTTP2() {
		return nil
	}
	return e.setupH2(e.url, p)
}

// setupH2 readies e for HTTP/2: the probe's request and the mix's fixed
// ones, read back from their HTTP/1.1 bytes once.
func (e *Endpoint) setupH2(u *url.URL, p wire.Protocol) error {
	switch {
	case p == wire.H2 && u.Scheme != "https":
		return fmt.Errorf("target %q: protocol h2 is HTTP/2 over TLS; use an https:// target, or protocol h2c for cleartext", secret.URL(u.String()))
	case p == wire.H2C && u.Scheme != "http":
		return fmt.Errorf("target %q: protocol h2c is HTTP/2 over cleartext; use an http:// target, or protocol h2 for TLS", secret.URL(u.String()))
	}
	e.proto = p
	if e.tls != nil {
		e.tls.NextProtos = []string{"h2"}
	}
	var err error
	if e.h2req, err = h2Message(e.plain, u.Scheme); err != nil {
		return err
	}
	e.h2req.stable = true
	e.h2fixed = make([]h2message, len(e.reqs))
	for i, w := range e.reqs {
		if w.fixed != nil {
			if e.h2fixed[i], err = h2Message(w.fixed, u.Scheme); err != nil {
				return err
			}
			e.h2fixed[i].stable = true
		}
	}
	return nil
}

// h2message returns the HTTP/2 request for req's bytes: the probe's for a
// nil req, a fixed request's as read back once, else req read back now
// (its placeholders were filled for this request).
func (e *Endpoint) h2message(req []byte) (*h2message, error) {
	if req == nil {
		return &e.h2req, nil
	}
	for i := range e.reqs {
		if f := e.reqs[i].fixed; len(f) == len(req) && len(f) > 0 && &f[0] == &req[0] {
			return &e.h2fixed[i], nil
		}
	}
	m, err := h2Message(req, e.url.Scheme)
	return &m, err
}

// H2Conn is one HTTP/2 connection that one client or K clients share.
type H2Conn struct {
	ep      *Endpoint
	mu      sync.Mutex
	cc      *h2client
	retired []*h2client // replaced, finishing their streams; closed by abort
	dialing *h2dial     // the dial under way, nil if none
	aborted bool
}

// h2dial is one dial that every client needing the connection waits for.
type h2dial struct {
	done chan struct{}
	warm bool // warm's, ahead of the first attempt
	cc   *h2client
	err  error
}

// conn returns a connection that can take a new stream, dialling one
// (or waiting for the dial under way, until deadline if not zero) when
// there is none. An attempt that waited for warm's dial and saw it fail
// dials again itself: warm's deadline (the first send) is not the
// attempt's, nor its failure an attempt's.
func (h *H2Conn) conn(ctx context.Context, deadline time.Time) (*h2client, error) {
	return h.connect(ctx, deadline, false)
}

func (h *H2Conn) connect(ctx context.Context, deadline time.Time, warm bool) (*h2client, error) {
	for {
		h.mu.Lock()
		switch {
		case h.aborted:
			h.mu.Unlock()
			return nil, errAborted
		case h.cc != nil && h.cc.canTake():
			cc := h.cc
			h.mu.Unlock()
			return cc, nil
		case h.dialing != nil:
			d := h.dialing
			h.mu.Unlock()
			if err := waitDial(ctx, d, deadline); err != nil {
				return nil, err
			}
			if d.err != nil && d.warm && !warm {
				continue
			}
			return d.cc, d.err
		}
		// A connection told to go away finishes its streams and closes
		// itself; a broken one is closed already.
		if h.cc != nil {
			h.retire(h.cc)
		}
		d := &h2dial{done: make(chan struct{}), warm: warm}
		h.cc, h.dialing = nil, d
		h.mu.Unlock()
		dctx := ctx
		if !deadline.IsZero() {
			var cancel context.CancelFunc
			dctx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
		}
		d.cc, d.err = h.ep.dialH2(dctx)
		h.mu.Lock()
		h.dialing = nil
		if d.err == nil {
			if h.aborted {
				d.cc.close()
				d.cc, d.err = nil, errAborted
			} else {
				h.cc = d.cc
			}
		}
		h.mu.Unlock()
		close(d.done)
		return d.cc, d.err
	}
}

// waitDial waits for d, until deadline (if not zero) or ctx's end.
func waitDial(ctx context.Context, d *h2dial, deadline time.Time) error {
	var tc <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		tc = t.C
	}
	select {
	case <-d.done:
		return nil
	case <-tc:
		return context.DeadlineExceeded
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retire keeps cc, replaced, for abort to close, dropping those that have
// closed since. h.mu is held.
func (h *H2Conn) retire(cc *h2client) {
	kept := h.retired[:0]
	for _, r := range h.retired {
		if !r.failed() {
			kept = append(kept, r)
		}
	}
	h.retired = append(kept, cc)
}

// dialH2 opens an HTTP/2 connection to the endpoint.
func (e *Endpoint) dialH2(ctx context.Context) (*h2client, error) {
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
	cc, err := newH2Client(ctx, nc)
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
func (h *H2Conn) Warm(ctx context.Context, deadline time.Time) {
	_, _ = h.connect(ctx, deadline, true)
}

// abort ends the connection and every stream on it: the run has ended.
func (h *H2Conn) Abort() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.aborted = true
	if h.cc != nil {
		h.cc.close()
		h.cc = nil
	}
	for _, r := range h.retired {
		r.close()
	}
	h.retired = nil
}

// attemptH2 sends one attempt as a stream on l's HTTP/2 connection; see
// Swarm.attempt for what it returns.
func (s *Attempts) attemptH2(ctx context.Context, l *Link, req []byte) (sent, end time.Duration, o results.Outcome, status int, pushback time.Duration) {
	now := time.Now()
	sent = s.Slow.Between(s.Origin, now)
	var deadline time.Time
	if t := s.Timeout; t > 0 {
		deadline = now.Add(s.Slow.Wall(t))
	}
	status, pushback, err := l.exchangeH2(ctx, req, deadline)
	end = s.Slow.Since(s.Origin)
	if err != nil {
		return sent, end, Classify(err), 0, 0
	}
	return sent, end, results.FromStatus(status), status, pushback
}

// exchangeH2 sends the request (req's, or the endpoint's probe for a nil
// req) on l's HTTP/2 connection and reads the answer, its body up to
// MaxResponseBody, until deadline (if not zero).
func (l *Link) exchangeH2(ctx context.Context, req []byte, deadline time.Time) (status int, pushback time.Duration, err error) {
	if l.ep.err != nil {
		return 0, 0, l.ep.err
	}
	m, err := l.ep.h2message(req)
	if err != nil {
		return 0, 0, err
	}
	cc, err := l.h2.conn(ctx, deadline)
	if err != nil {
		return 0, 0, err
	}
	status, ra, err := cc.roundTrip(ctx, m, deadline)
	if err != nil {
		return 0, 0, err
	}
	if ra != "" {
		pushback, _ = ParseRetryAfter(ra, time.Now())
	}
	return status, pushback, nil
}
