package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrRemote is wrapped by the errors for an address off loopback when the
// guard does not allow remote addresses.
var ErrRemote = errors.New("not on loopback")

// ErrNumericHost is wrapped by the error for a host that ends in a number but
// is not a plain IP address.
var ErrNumericHost = errors.New("ambiguous numeric host")

// Loopback reports whether a is a loopback address: 127.0.0.0/8, ::1, or
// 127.0.0.0/8 written as an IPv4-mapped IPv6 address (::ffff:127.0.0.1).
func Loopback(a netip.Addr) bool { return a.Unmap().IsLoopback() }

// CheckHost checks how host is written, before anything resolves it: an IP
// address is returned as such (ok true); a host that ends in a number (its
// last label all digits, or 0x and hex digits) but is not a plain IP
// address is refused with ErrNumericHost; any other name is left to the
// resolver (ok false). Brackets around an IPv6 address and an IPv6 zone are
// accepted.
func CheckHost(host string) (addr netip.Addr, ok bool, err error) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if a, err := netip.ParseAddr(h); err == nil {
		return a.WithZone(""), true, nil
	}
	if host == "" {
		return netip.Addr{}, false, nil
	}
	if endsInNumber(h) {
		return netip.Addr{}, false, fmt.Errorf("%w: %q ends in a number but is not an IP address written in full; browsers and the C library read such a host as an IPv4 address, Go as a name: write the address as four decimal numbers, e.g. 127.0.0.1", ErrNumericHost, host)
	}
	return netip.Addr{}, false, nil
}

// endsInNumber is the URL standard's "ends in a number" test: the last
// label (ignoring one trailing dot) is all decimal digits, or 0x/0X then
// hex digits.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.Trim(last, "0123456789") == "" {
		return true
	}
	if len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return false
}

// checkAddrs returns an error wrapping ErrRemote naming every address of
// host off loopback; nil when all are loopback.
func checkAddrs(host string, addrs []netip.Addr) error {
	var off []string
	for _, a := range addrs {
		switch {
		case Loopback(a):
		case a.IsUnspecified():
			off = append(off, a.Unmap().String()+" (every interface)")
		default:
			off = append(off, a.Unmap().String())
		}
	}
	if len(off) == 0 {
		return nil
	}
	what := fmt.Sprintf("%s is", off[0])
	if len(off) > 1 {
		what = fmt.Sprintf("%s are", strings.Join(off, ", "))
	}
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil && len(addrs) == 1 && a == addrs[0] {
		return fmt.Errorf("%w: %s off this machine's loopback (127.0.0.0/8, ::1)", ErrRemote, what)
	}
	return fmt.Errorf("%w: %s resolves to %s, and %s off this machine's loopback (127.0.0.0/8, ::1)", ErrRemote, host, strings.Join(off, ", "), what)
}

// Guard is the loopback interlock with the resolver it decides by.
type Guard struct {
	// AllowRemote lifts the interlock: any address may be dialled or
	// served on.
	AllowRemote bool
	// Resolver resolves names, for the check and for the dialer;
	// net.DefaultResolver when nil. Tests pass one with their own DNS.
	Resolver *net.Resolver
}

func (g Guard) resolver() *net.Resolver {
	if g.Resolver != nil {
		return g.Resolver
	}
	return net.DefaultResolver
}

// Check resolves host and returns its addresses. With the interlock on,
// every address must be loopback, or the error wraps ErrRemote and names
// them; an empty host (every interface, for a listener) is off loopback.
// A numeric host that is not a plain IP address is refused either way
// (ErrNumericHost).
func (g Guard) Check(ctx context.Context, host string) ([]netip.Addr, error) {
	a, isIP, err := CheckHost(host)
	if err != nil {
		return nil, err
	}
	if host == "" {
		if g.AllowRemote {
			return nil, nil
		}
		return nil, fmt.Errorf("%w: an empty host means every interface of this machine", ErrRemote)
	}
	addrs := []netip.Addr{a}
	if !isIP {
		addrs, err = g.resolver().LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("resolving %s: %w", host, err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("resolving %s: no address", host)
		}
	}
	if g.AllowRemote {
		return addrs, nil
	}
	return addrs, checkAddrs(host, addrs)
}

// control is the socket hook of the dialer and the listener: it refuses an
// address off loopback just before the socket connects to it or binds it.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	if g.AllowRemote {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q", ErrRemote, address)
	}
	return checkAddrs(ap.Addr().String(), []netip.Addr{ap.Addr()})
}

// Dialer returns a dialer that resolves with the guard's resolver and, with
// the interlock on, refuses to connect to any address off loopback: the
// check is made on the address each connection is about to be made to.
func (g Guard) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Resolver: g.Resolver, Control: g.control}
}

// DialContext dials as net.Dialer.DialContext with a 5 s connect timeout
// and the interlock.
func (g Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return g.Dialer(5*time.Second).DialContext(ctx, network, addr)
}

// Listen listens on addr, host:port, as net.Listen does. With the interlock
// on, the host is checked first (every address it resolves to must be
// loopback; an empty host or 0.0.0.0 is every interface) and the address
// actually bound is checked again.
func (g Guard) Listen(network, addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if _, err := g.Check(context.Background(), host); err != nil {
		return nil, err
	}
	lc := net.ListenConfig{Control: g.control}
	return lc.Listen(context.Background(), network, addr)
}
