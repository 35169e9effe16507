// Package memnet is an in-memory network for tests: listeners and dialers
// joined by net.Pipe, so the real HTTP server and swarm can run inside a
// testing/synctest bubble, where time is virtual and every wait is exact.
//
// Dialing an address with no open listener fails with ECONNREFUSED, as TCP
// does, so a target that stops listening refuses connections here too.
package memnet

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// Network is a set of in-memory listeners by address.
type Network struct {
	mu        sync.Mutex
	listeners map[string]*Listener
	port      int
}

// New returns an empty network.
func New() *Network { return &Network{listeners: map[string]*Listener{}, port: 40000} }

// Listen opens a listener at addr; a port of 0 picks a free one.
func (n *Network) Listen(network, addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if port == "0" {
		n.port++
		port = strconv.Itoa(n.port)
	}
	a := &Addr{addr: net.JoinHostPort(host, port)}
	if l, ok := n.listeners[a.addr]; ok && !l.isClosed() {
		return nil, &net.OpError{Op: "listen", Net: network, Addr: a, Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	}
	l := &Listener{addr: a, conns: make(chan net.Conn), done: make(chan struct{})}
	n.listeners[a.addr] = l
	return l, nil
}

// DialContext connects to the listener at addr.
func (n *Network) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.mu.Unlock()
	refused := &net.OpError{Op: "dial", Net: network, Addr: &Addr{addr: addr}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	if l == nil {
		return nil, refused
	}
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, refused
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Listener is an in-memory listener.
type Listener struct {
	addr  *Addr
	conns chan net.Conn
	once  sync.Once
	done  chan struct{}
}

// Accept waits for the next connection.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, fmt.Errorf("memnet: accept on %s: %w", l.addr, net.ErrClosed)
	}
}

// Close stops the listener; later dials are refused.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *Listener) isClosed() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// Addr returns the listener's address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Addr is an in-memory address.
type Addr struct{ addr string }

// Network implements net.Addr.
func (a *Addr) Network() string { return "memnet" }
func (a *Addr) String() string  { return a.addr }
