package netguard

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/herdbench/herdbench/internal/netguard/dnstest"
	"go.uber.org/goleak"
)

func TestLoopback(t *testing.T) {
	for s, want := range map[string]bool{
		"127.0.0.1": true, "127.255.255.254": true, "::1": true, "::ffff:127.0.0.1": true, "::ffff:127.9.9.9": true,
		"0.0.0.0": false, "::": false, "10.0.0.1": false, "128.0.0.1": false, "192.0.2.1": false, "::2": false,
		"::ffff:10.0.0.1": false, "fe80::1": false, "::127.0.0.1": false, "64:ff9b::7f00:1": false,
	} {
		if got := Loopback(netip.MustParseAddr(s)); got != want {
			t.Errorf("Loopback(%s) = %v, want %v", s, got, want)
		}
	}
}

// TestCheckHost: how a host is written, before any resolving. Hosts that
// end in a number are IPv4 addresses to browsers, curl and the C library,
// and names to Go: refused unless written as a plain IP address.
func TestCheckHost(t *testing.T) {
	for _, c := range []struct {
		host    string
		ip      string // "" for a name left to the resolver
		numeric bool   // refused with ErrNumericHost
	}{
		{host: "127.0.0.1", ip: "127.0.0.1"},
		{host: "::1", ip: "::1"},
		{host: "[::1]", ip: "::1"},
		{host: "[::ffff:127.0.0.1]", ip: "::ffff:127.0.0.1"},
		{host: "fe80::1%lo", ip: "fe80::1"},
		{host: "localhost"},
		{host: "localhost."},
		{host: "LOCALHOST."},
		{host: "staging.example.internal"},
		{host: "1.example.com"},
		{host: "127.1", numeric: true},
		{host: "127.0.1", numeric: true},
		{host: "0x7f.1", numeric: true},
		{host: "0X7F.0.0.1", numeric: true},
		{host: "0x7f000001", numeric: true},
		{host: "2130706433", numeric: true},
		{host: "017700000001", numeric: true},
		{host: "0177.0.0.1", numeric: true},
		{host: "127.0.0.1.", numeric: true},
		{host: "evil.example.127", numeric: true},
		{host: "evil.0x7f", numeric: true},
	} {
		a, isIP, err := CheckHost(c.host)
		switch {
		case c.numeric:
			if !errors.Is(err, ErrNumericHost) || !strings.Contains(err.Error(), "127.0.0.1") {
				t.Errorf("CheckHost(%q): %v, want ErrNumericHost suggesting 127.0.0.1", c.host, err)
			}
		case err != nil:
			t.Errorf("CheckHost(%q): %v", c.host, err)
		case c.ip == "" && isIP, c.ip != "" && (!isIP || a != netip.MustParseAddr(c.ip)):
			t.Errorf("CheckHost(%q) = %v, %v; want %q", c.host, a, isIP, c.ip)
		}
	}
}

// fakeDNS answers from a table: names not in it do not exist.
func fakeDNS(table map[string][]string) *net.Resolver {
	return dnstest.Resolver(func(name string) []netip.Addr {
		var out []netip.Addr
		for _, s := range table[name] {
			out = append(out, netip.MustParseAddr(s))
		}
		return out
	})
}

// TestCheckResolves: the decision is made on every address a name
// resolves to, whatever its spelling.
func TestCheckResolves(t *testing.T) {
	defer goleak.VerifyNone(t)
	g := Guard{Resolver: fakeDNS(map[string][]string{
		// DNS's answer for "localhost." (with its dot the name is not
		// looked up in /etc/hosts); plain "localhost" is found there first.
		"localhost":  {"203.0.113.7"},
		"local.test": {"127.0.0.1", "::1"},
		"evil.test":  {"198.51.100.1"},
		"mixed.test": {"127.0.0.1", "192.0.2.1"},
		"v6.test":    {"2001:db8::1"},
	})}
	ctx := context.Background()
	for _, c := range []struct {
		host string
		ok   bool
		want string // in the error
	}{
		{host: "127.0.0.1", ok: true},
		{host: "::ffff:127.0.0.1", ok: true},
		{host: "local.test", ok: true},
		{host: "localhost", ok: true},
		{host: "localhost.", want: "localhost. resolves to 203.0.113.7"},
		{host: "LocalHost.", want: "LocalHost. resolves to 203.0.113.7"},
		{host: "LOCALHOST.", want: "resolves to 203.0.113.7"},
		{host: "evil.test", want: "evil.test resolves to 198.51.100.1"},
		{host: "mixed.test", want: "192.0.2.1 is off"},
		{host: "v6.test", want: "2001:db8::1"},
		{host: "0.0.0.0", want: "0.0.0.0 (every interface)"},
		{host: "::", want: ":: (every interface)"},
		{host: "", want: "every interface"},
		{host: "10.1.2.3", want: "10.1.2.3 is off this machine's loopback"},
		{host: "::ffff:10.1.2.3", want: "10.1.2.3"},
		{host: "127.1", want: "ends in a number"},
		{host: "nx.test", want: "resolving nx.test"},
	} {
		addrs, err := g.Check(ctx, c.host)
		if c.ok {
			if err != nil || len(addrs) == 0 {
				t.Errorf("Check(%q) = %v, %v; want its loopback addresses", c.host, addrs, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check(%q) = %v, %v; want an error with %q", c.host, addrs, err, c.want)
		}
		if strings.Contains(c.want, "off") || strings.Contains(c.want, "resolves to") || strings.Contains(c.want, "every interface") {
			if !errors.Is(err, ErrRemote) {
				t.Errorf("Check(%q): %v does not wrap ErrRemote", c.host, err)
			}
		}
	}
	// Allowed: any address; an ambiguous numeric host is still refused.
	g.AllowRemote = true
	if addrs, err := g.Check(ctx, "evil.test"); err != nil || len(addrs) != 1 || addrs[0].String() != "198.51.100.1" {
		t.Errorf("Check(evil.test) allowing remote = %v, %v", addrs, err)
	}
	if _, err := g.Check(ctx, "0x7f.1"); !errors.Is(err, ErrNumericHost) {
		t.Errorf("Check(0x7f.1) allowing remote: %v, want ErrNumericHost", err)
	}
}

// TestDialerRechecks: the dialer checks the address it connects to, not
// the answer the earlier check saw: a name that resolved to loopback for
// the check and to a public address for the dial (DNS rebinding) is not
// dialled, and neither is an address off loopback given directly.
func TestDialerRechecks(t *testing.T) {
	defer goleak.VerifyNone(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	var rebound atomic.Bool
	g := Guard{Resolver: dnstest.Resolver(func(name string) []netip.Addr {
		switch {
		case name == "rebind.test" && rebound.Load():
			return []netip.Addr{netip.MustParseAddr("192.0.2.1")}
		case name == "rebind.test", name == "local.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
		}
		return nil
	})}
	ctx := context.Background()
	if _, err := g.Check(ctx, "rebind.test"); err != nil {
		t.Fatalf("before rebinding: %v", err)
	}
	c, err := g.DialContext(ctx, "tcp", net.JoinHostPort("rebind.test", port))
	if err != nil {
		t.Fatalf("dial before rebinding: %v", err)
	}
	c.Close()
	rebound.Store(true)
	if c, err := g.DialContext(ctx, "tcp", net.JoinHostPort("rebind.test", port)); !errors.Is(err, ErrRemote) {
		if c != nil {
			c.Close()
		}
		t.Errorf("dial after rebinding to 192.0.2.1: %v, want ErrRemote", err)
	}
	for _, addr := range []string{"192.0.2.1:80", "[2001:db8::1]:80", "[::ffff:192.0.2.1]:80", "0.0.0.0:" + port} {
		if c, err := g.DialContext(ctx, "tcp", addr); !errors.Is(err, ErrRemote) {
			if c != nil {
				c.Close()
			}
			t.Errorf("dial %s: %v, want ErrRemote", addr, err)
		}
	}
	if c, err := g.DialContext(ctx, "tcp", net.JoinHostPort("local.test", port)); err != nil {
		t.Errorf("dial local.test: %v", err)
	} else {
		c.Close()
	}
}

// TestListen: a listener binds loopback only, unless allowed.
func TestListen(t *testing.T) {
	g := Guard{Resolver: fakeDNS(map[string][]string{"localhost": {"203.0.113.7"}})}
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "localhost.:0", "127.1:0", "192.0.2.1:0"} {
		ln, err := g.Listen("tcp", addr)
		if err == nil {
			ln.Close()
			t.Errorf("Listen(%s) succeeded; want it refused", addr)
		} else if !errors.Is(err, ErrRemote) && !errors.Is(err, ErrNumericHost) {
			t.Errorf("Listen(%s): %v, want ErrRemote or ErrNumericHost", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ln, err := g.Listen("tcp", addr)
		if err != nil {
			t.Errorf("Listen(%s): %v", addr, err)
			continue
		}
		if ap := netip.MustParseAddrPort(ln.Addr().String()); !Loopback(ap.Addr()) {
			t.Errorf("Listen(%s) bound %s", addr, ap)
		}
		ln.Close()
	}
}

// TestControlRefusesBind: the listener's socket hook refuses to bind an
// address off loopback even when the name's check was passed.
func TestControlRefusesBind(t *testing.T) {
	g := Guard{}
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:0"} {
		if err := g.control("tcp", addr, nil); !errors.Is(err, ErrRemote) {
			t.Errorf("control(%s): %v, want ErrRemote", addr, err)
		}
	}
	if err := g.control("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("control(127.0.0.1:80): %v", err)
	}
	if err := (Guard{AllowRemote: true}).control("tcp", "192.0.2.1:80", nil); err != nil {
		t.Errorf("control allowing remote: %v", err)
	}
}
