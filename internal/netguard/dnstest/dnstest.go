// Package dnstest is a DNS server in memory, for tests of code that
// resolves names: Resolver returns a net.Resolver whose queries are answered
// from a function, over an in-memory connection, so a test can make any
// name resolve to any address (a public one for "localhost.", a different
// one on the second query) without a network.
package dnstest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// Resolver returns a resolver whose every query for a name is answered
// with answer(name) (the name lower-cased, without its final dot: DNS is
// asked only for names /etc/hosts does not have, and always with the dot): its
// IPv4 addresses for an A query, its IPv6 ones for AAAA. No address at
// all is a "no such host" answer.
func Resolver(answer func(name string) []netip.Addr) *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		client, server := net.Pipe()
		go serve(server, answer)
		return client, nil
	}}
}

// serve answers queries on c, framed as on TCP (a two-byte length before
// each message: c is not a PacketConn), until c is closed.
func serve(c net.Conn, answer func(string) []netip.Addr) {
	defer c.Close()
	for {
		var n [2]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		q := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		reply, err := respond(q, answer)
		if err != nil {
			return
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(reply)))
		if _, err := c.Write(append(out, reply...)); err != nil {
			return
		}
	}
}

func respond(query []byte, answer func(string) []netip.Addr) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(strings.TrimSuffix(q.Name.String(), "."))
	addrs := answer(name)
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if len(addrs) == 0 {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	rr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 0}
	for _, a := range addrs {
		switch {
		case q.Type == dnsmessage.TypeA && a.Unmap().Is4():
			err = b.AResource(rr, dnsmessage.AResource{A: a.Unmap().As4()})
		case q.Type == dnsmessage.TypeAAAA && a.Is6() && !a.Is4In6():
			err = b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: a.As16()})
		}
		if err != nil {
			return nil, err
		}
	}
	return b.Finish()
}
