package netguard

import (
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// Limits bound what the clients of one server can make it hold.
type Limits struct {
	// MaxConns is how many connections the server holds at once; more
	// wait in the kernel's listen backlog until one closes. 0: no cap.
	MaxConns int
	// ReadHeaderTimeout is how long a request's headers may take to
	// arrive, from the connection's first byte or the end of the previous
	// request: a client that sends them a byte at a time (slowloris) is
	// cut off then. 0: no limit.
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long. 0: never.
	IdleTimeout time.Duration
}

// Limits of herdbench's servers.
const (
	// ControlConns is the connection cap of a control API or metrics
	// server: a game-day team, Prometheus and a few scripts.
	ControlConns = 32
	// TrafficHeaderTimeout is the traffic servers' ReadHeaderTimeout. A
	// swarm sends each request's headers in one write.
	TrafficHeaderTimeout = 10 * time.Second
	// TrafficIdleTimeout is the traffic servers' IdleTimeout: longer than
	// any think time or backoff a client sits out between requests on a
	// kept-alive connection.
	TrafficIdleTimeout = 5 * time.Minute
)

// ControlLimits returns the limits of a control API or metrics server:
// ControlConns connections, headers within 5 s, idle connections closed
// after a minute.
func ControlLimits() Limits {
	return Limits{MaxConns: ControlConns, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute}
}

// TrafficLimits returns the limits of a standalone target's or proxy's
// traffic port: TrafficHeaderTimeout, TrafficIdleTimeout, and as many
// connections as the process's open files allow (OpenFiles) once a reserve
// is kept for everything else (a quarter of the limit, from 64 to 512
// files: the control API's connections, listeners, logs), each connection
// costing perConn files (2 for the proxy: its connection to the upstream).
// With 20,000 open files a target holds 19,488 connections and a proxy
// 9,744; with the common default of 1,024, 768 and 384.
func TrafficLimits(perConn int) Limits {
	n := OpenFiles()
	reserve := min(max(n/4, 64), 512)
	return Limits{
		MaxConns:          max(1, (n-reserve)/max(1, perConn)),
		ReadHeaderTimeout: TrafficHeaderTimeout,
		IdleTimeout:       TrafficIdleTimeout,
	}
}

// OpenFiles returns how many files the process may have open (the soft
// RLIMIT_NOFILE, ulimit -n), or 1024 when it cannot be read.
func OpenFiles() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur == 0 {
		return 1024
	}
	return int(min(lim.Cur, 1<<30))
}

// Apply sets l's timeouts on srv.
func (l Limits) Apply(srv *http.Server) {
	srv.ReadHeaderTimeout = l.ReadHeaderTimeout
	srv.IdleTimeout = l.IdleTimeout
}

// Server returns an http.Server for h with l's timeouts, logging nothing
// (a client's bad request is its own business).
func (l Limits) Server(h http.Handler) *http.Server {
	srv := &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)}
	l.Apply(srv)
	return srv
}

// Listener returns ln capped at MaxConns connections held at once (ln
// itself when there is no cap). Its Accept waits while the cap is reached;
// a connection frees its place when closed. Each connection it returns
// gives the one it wraps by NetConn, so a server can still reach the
// socket (to reset it with an RST, say).
func (l Limits) Listener(ln net.Listener) net.Listener {
	if l.MaxConns <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, sem: make(chan struct{}, l.MaxConns), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, &net.OpError{Op: "accept", Net: l.Addr().Network(), Addr: l.Addr(), Err: net.ErrClosed}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitConn{Conn: c, sem: l.sem}, nil
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitConn struct {
	net.Conn
	sem  chan struct{}
	once sync.Once
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.sem })
	return err
}

// NetConn returns the connection c wraps.
func (c *limitConn) NetConn() net.Conn { return c.Conn }

// CloseWrite half-closes the connection when it can (net/http does so
// before closing, so the client reads the last answer instead of an RST).
func (c *limitConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Socket returns the TCP socket under c, unwrapping connections that give
// theirs by NetConn (this package's, crypto/tls's); nil if there is none.
func Socket(c net.Conn) *net.TCPConn {
	for {
		switch v := c.(type) {
		case *net.TCPConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
}
