package memnet

import (
	"context"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
)

// Network is a set of in-memory listeners by address. The zero value is
// ready to use.
type Network struct {
	mu        sync.Mutex
	listeners map[string]*Listener
	port      int
}

// Listen starts listening at addr, with the signature of net.Listen (the
// network is ignored). A port of 0 picks a free one. It fails with
// EADDRINUSE while another listener holds addr.
func (n *Network) Listen(_, addr string) (net.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners == nil {
		n.listeners = map[string]*Listener{}
	}
	if host, port, err := net.SplitHostPort(addr); err == nil && port == "0" {
		for {
			n.port++
			addr = net.JoinHostPort(host, strconv.Itoa(40000+n.port))
			if _, taken := n.listeners[addr]; !taken {
				break
			}
		}
	}
	if _, ok := n.listeners[addr]; ok {
		return nil, &net.OpError{Op: "listen", Net: "mem", Addr: Addr(addr), Err: os.NewSyscallError("bind", syscall.EADDRINUSE)}
	}
	l := &Listener{net: n, addr: Addr(addr), conns: make(chan net.Conn), done: make(chan struct{})}
	n.listeners[addr] = l
	return l, nil
}

// Dial connects to the listener at addr; it has the signature of
// net.Dialer.DialContext, so it fits http.Transport.DialContext. With no
// listener at addr it fails with ECONNREFUSED.
func (n *Network) Dial(ctx context.Context, _, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.mu.Unlock()
	refused := &net.OpError{Op: "dial", Net: "mem", Addr: Addr(addr), Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
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
		return nil, &net.OpError{Op: "dial", Net: "mem", Addr: Addr(addr), Err: ctx.Err()}
	}
}

// Listener is an in-memory listener.
type Listener struct {
	net   *Network
	addr  Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

var _ net.Listener = (*Listener)(nil)

// Accept waits for the next connection.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: "mem", Addr: l.addr, Err: net.ErrClosed}
	}
}

// Close stops listening and frees the address.
func (l *Listener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.net.mu.Lock()
		if l.net.listeners[string(l.addr)] == l {
			delete(l.net.listeners, string(l.addr))
		}
		l.net.mu.Unlock()
	})
	return nil
}

// Addr returns the listener's address.
func (l *Listener) Addr() net.Addr { return l.addr }

// Addr is an in-memory address.
type Addr string

// Network implements net.Addr.
func (a Addr) Network() string { return "mem" }

// String implements net.Addr.
func (a Addr) String() string { return string(a) }
