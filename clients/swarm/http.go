package swarm

import (
	"context"
	"sync"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/httpwire"
	"github.com/herdbench/herdbench/results"
)

// httpTransport is a swarm's HTTP/1.1 or HTTP/2 (internal/httpwire): a
// link per closed-loop client (its own connection, or a stream on one
// that Shared clients share over HTTP/2), a pool of them for an open
// workload's arrivals.
type httpTransport struct {
	s      *Swarm
	ep     *httpwire.Endpoint
	att    httpwire.Attempts
	links  *httpwire.LinkSet
	pool   *httpwire.Pool
	shared map[int]*httpwire.H2Conn
	dials  chan struct{} // warmDials at once
	// stop and aborting end every exchange at once at the run's end (or
	// ctx's): close waits for it.
	stop     func() bool
	aborting sync.WaitGroup
}

// warmDials is how many connections a swarm opens at once before its
// clients' first sends: enough to open thousands in well under a second,
// few enough to stay inside the listener's backlog (beyond it, handshakes
// are dropped and retried a second later).
const warmDials = 128

// openHTTP readies the swarm's HTTP: its endpoint (a URL it cannot use
// fails every attempt, and the run shows it) and the links' set, aborted
// when ctx ends.
func (s *Swarm) openHTTP(ctx context.Context) *httpTransport {
	ep, _ := httpwire.Open(s.URL, s.Dial, s.Strategy.Requests, s.Protocol, s.Roots)
	t := &httpTransport{
		s: s, ep: ep, links: &httpwire.LinkSet{}, shared: map[int]*httpwire.H2Conn{}, dials: make(chan struct{}, warmDials),
		att: httpwire.Attempts{Origin: s.Origin, Slow: s.Slow, Timeout: s.Strategy.Timeout, OCC: s.OCC, Transport: s.Strategy.Transport},
	}
	t.pool = httpwire.NewPool(ep, t.links)
	t.aborting.Add(1)
	t.stop = context.AfterFunc(ctx, func() {
		defer t.aborting.Done()
		t.links.Abort()
	})
	return t
}

func (t *httpTransport) strategy() *clients.Strategy         { return t.s.Strategy }
func (t *httpTransport) sink(sh *results.Shard) results.Sink { return sh }

func (t *httpTransport) client(id int, c *clients.Client) Sender {
	l := httpwire.NewLink(t.ep)
	if t.ep.HTTP2() {
		g := id / max(1, t.s.Shared)
		if t.shared[g] == nil {
			t.shared[g] = t.ep.NewH2Conn()
		}
		l = httpwire.NewStreamLink(t.ep, t.shared[g]) // streams: one link takes a hedge's too
	} else if c.Hedges() {
		// A hedge needs a connection of its own beside its attempt's: a
		// pool of them for the client, the first opened ahead.
		p := httpwire.NewPool(t.ep, t.links)
		p.Put(t.links.Add(l))
		return &httpSender{t: t, c: c, src: p, hedged: true}
	}
	t.links.Add(l)
	return &httpSender{t: t, c: c, src: l, hedged: c.Hedges()}
}

// warm opens a client's connection ahead of its first attempt, at at.
func (t *httpTransport) warm(ctx context.Context, s Sender, at time.Duration) {
	t.dials <- struct{}{}
	src := s.(*httpSender).src
	l := src.Get()
	l.Warm(ctx, t.s.Slow.At(t.s.Origin, at))
	src.Put(l)
	<-t.dials
}

func (t *httpTransport) arrival(_ int, c *clients.Client) Sender {
	return &httpSender{t: t, c: c, src: t.pool, hedged: c.Hedges()}
}

func (t *httpTransport) close() {
	if t.stop() {
		t.aborting.Done()
	}
	t.aborting.Wait()
	t.links.CloseAll()
}

// httpSender sends one client's attempts, each on a link from src, with
// the bytes of its current logical request (a mix's, placeholders filled
// once per request: its retries resend them). A hedging client's
// (hedged) are sent at once, each in a goroutine of its own: Prepare
// takes each request's bytes, in a buffer of its own, in the driver's.
type httpSender struct {
	t        *httpTransport
	c        *clients.Client
	src      httpwire.Source
	req, buf []byte
	hedged   bool
}

var _ Preparer = (*httpSender)(nil)

// Prepare gives a hedging client's attempt its request's bytes.
func (h *httpSender) Prepare(a Attempt) Attempt {
	if h.hedged {
		if a.Attempt == 1 {
			h.req, _ = h.t.ep.Request(h.c, h.t.s.Seed, nil) // a fresh buffer: the request's attempts may still be in flight
		}
		a.Bytes = h.req
	}
	return a
}

func (h *httpSender) Send(ctx context.Context, a Attempt) (clients.Reply, *clients.Reply, bool) {
	if h.hedged {
		return h.send(ctx, a.Bytes, false)
	}
	if a.Attempt == 1 {
		h.req, h.buf = h.t.ep.Request(h.c, h.t.s.Seed, h.buf)
	}
	return h.send(ctx, h.req, a.Calm)
}

// send sends req on a link from src.
func (h *httpSender) send(ctx context.Context, req []byte, calm bool) (clients.Reply, *clients.Reply, bool) {
	l := h.src.Get()
	if !h.hedged { // a hedging client's stream link carries its attempts at once
		l.SetCalm(calm) // the next request of a closed loop, sent at once
	}
	sent, end, o, status, retryAfter, first := h.t.att.Send(ctx, l, req)
	h.src.Put(l)
	return clients.Reply{Sent: sent, Latency: end - sent, Outcome: o, RetryAfter: retryAfter, Status: status, Resend: first != nil}, first, false
}
