package httpwire

import (
	"bufio"
	"context"
	"net"
	"testing"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
)

// With the net/http transport, an attempt whose reused connection is reset
// before the answer's first byte is sent again at once on a new
// connection, and the target sees it; herdbench's own transport sends it
// once; a reset on a fresh connection (its first exchange) is never re-sent.
func TestNetHTTPTransportResendsOnAReusedConnection(t *testing.T) {
	// Each connection answers its first request and resets at its second,
	// before any byte of the answer: a crash while the request is in flight.
	serve := func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		if _, ok := s.readRequest(br); !ok {
			return
		}
		if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")); err != nil {
			return
		}
		if _, ok := s.readRequest(br); ok {
			reset(c)
		}
	}
	for _, tc := range []struct {
		transport clients.Transport
		want      results.Outcome
		resent    bool
		requests  int64
	}{
		{clients.RawTransport, results.Reset, false, 2},
		{clients.NetHTTP, results.OK, true, 3},
	} {
		srv := newRawServer(t, serve)
		s, l := newTestLink(t, srv.url(), nil)
		s.Transport = tc.transport
		if _, _, o, _, _, first := s.Send(context.Background(), l, nil); o != results.OK || first != nil {
			t.Fatalf("%s: the first attempt: %s, re-sent %v; want ok, not re-sent", tc.transport, o, first != nil)
		}
		_, _, o, _, _, first := s.Send(context.Background(), l, nil)
		if o != tc.want || (first != nil) != tc.resent {
			t.Errorf("%s: the attempt reset on a reused connection: %s, re-sent %v; want %s, %v", tc.transport, o, first != nil, tc.want, tc.resent)
		}
		if first != nil && first.Outcome != results.Reset {
			t.Errorf("%s: the first try's outcome %s, want reset", tc.transport, first.Outcome)
		}
		l.close()
		if got := srv.requests.Load(); got != tc.requests {
			t.Errorf("%s: the target saw %d requests, want %d", tc.transport, got, tc.requests)
		}
	}

	// A fresh connection reset at its first request: net/http does not
	// re-send (the server may be refusing this very request).
	srv := newRawServer(t, func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		if _, ok := s.readRequest(br); ok {
			reset(c)
		}
	})
	s, l := newTestLink(t, srv.url(), nil)
	s.Transport = clients.NetHTTP
	if _, _, o, _, _, first := s.Send(context.Background(), l, nil); o != results.Reset || first != nil {
		t.Errorf("a reset on a fresh connection: %s, re-sent %v; want reset, not re-sent", o, first != nil)
	}
	l.close()
	if got := srv.requests.Load(); got != 1 {
		t.Errorf("the target saw %d requests, want 1", got)
	}
}

// net/http's isReplayable: the idempotent methods, or an idempotency key
// under either of its names, in any case; the swarm reads both from the
// request's bytes.
func TestReplayable(t *testing.T) {
	plain := []byte("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
	for _, c := range []struct {
		req  string
		want bool
	}{
		{"GET /a HTTP/1.1\r\nHost: x\r\n\r\n", true},
		{"HEAD /a HTTP/1.1\r\nHost: x\r\n\r\n", true},
		{"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", true},
		{"PUT /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi", false},
		{"DELETE /a HTTP/1.1\r\nHost: x\r\n\r\n", false},
		{"POST /o HTTP/1.1\r\nHost: x\r\nidempotency-key: 1\r\nContent-Length: 2\r\n\r\nhi", true},
		{"POST /o HTTP/1.1\r\nHost: x\r\nX-Idempotency-Key: 1\r\n\r\n", true},
		{"POST /o HTTP/1.1\r\nHost: x\r\nContent-Length: 18\r\n\r\nIdempotency-Key: 1", false}, // in the body: not a header
		{string(plain), true}, // the probe counts as replayable (Client.Replayable)
	} {
		if got := replayable([]byte(c.req), plain); got != c.want {
			t.Errorf("%q: replayable %v, want %v", c.req, got, c.want)
		}
	}
}
