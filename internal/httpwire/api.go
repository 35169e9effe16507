package httpwire

import (
	"crypto/x509"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/wire"
)

// Open returns the endpoint of target URL raw for a swarm speaking p,
// its TLS trusting roots when set (an embedded target's certificate,
// wire.Cert.Pool) instead of the system's. A URL the swarm cannot use
// gives an endpoint on which every attempt fails with the error, and the
// error.
func Open(raw string, dial DialFunc, mix *clients.Mix, p wire.Protocol, roots *x509.CertPool) (*Endpoint, error) {
	ep, err := NewEndpoint(raw, dial, mix)
	if err == nil {
		err = ep.Use(p, roots)
	}
	if err != nil {
		ep = &Endpoint{err: err, mix: mix}
		if mix != nil {
			ep.reqs = make([]wireRequest, len(mix.Requests))
		}
	}
	return ep, err
}

// HTTP2 reports whether the endpoint's attempts are HTTP/2 streams.
func (e *Endpoint) HTTP2() bool { return e.proto.HTTP2() }

// Redacted is the target's URL, its password hidden.
func (e *Endpoint) Redacted() string {
	if e.url == nil {
		return ""
	}
	return e.url.Redacted()
}

// NewH2Conn returns an HTTP/2 connection to the endpoint, not yet dialled,
// for the links of the clients that share it (NewStreamLink).
func (e *Endpoint) NewH2Conn() *H2Conn { return &H2Conn{ep: e} }

// NewStreamLink returns a link whose attempts are streams on c.
func NewStreamLink(e *Endpoint, c *H2Conn) *Link {
	l := NewLink(e)
	l.h2 = c
	return l
}

// SetCalm says whether the link's next attempt follows its client's
// previous success at once, without a wait (Link.calm).
func (l *Link) SetCalm(calm bool) { l.calm = calm }

// NewPool returns an empty pool of links to e, each added to set.
func NewPool(e *Endpoint, set *LinkSet) *Pool { return &Pool{ep: e, set: set} }

// Close ends and closes every link the pool made. Call it once nothing
// is in flight.
func (p *Pool) Close() {
	p.set.Abort()
	p.set.CloseAll()
}

// Drop closes l, cut in the middle of an exchange, and forgets it.
func (p *Pool) Drop(l *Link) {
	l.close()
	p.set.Remove(l)
}

// Remove forgets l.
func (s *LinkSet) Remove(l *Link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.links {
		if x == l {
			last := len(s.links) - 1
			s.links[i], s.links[last] = s.links[last], nil
			s.links = s.links[:last]
			return
		}
	}
}
