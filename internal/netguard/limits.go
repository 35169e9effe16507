package netguard

import (
	"io"
	"log"
	"math"
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
	// MaxIdle, with Serve, is how many keep-alive connections may sit
	// idle at once: when one more falls idle, the one idle longest is
	// closed. 0: no cap of its own (MaxConns still holds).
	MaxIdle int
	// Reclaim, with Serve, makes room for a new connection when MaxConns
	// is reached: the connection idle longest is closed for it, or, with
	// none idle, the oldest that has not sent a whole request within
	// Reclaim of its accept (a client sends its headers in one write, so
	// one that has not is slow or gone). 0: a new connection waits until
	// one closes. A connection whose request is being handled is never
	// closed.
	Reclaim time.Duration
}

// Limits of herdbench's servers.
const (
	// ControlConns is the connection cap of a control API or metrics
	// server: a game-day team, Prometheus and a few scripts.
	ControlConns = 32
	// ControlIdleConns is how many of them may sit idle, kept alive: Go's
	// http.Client keeps an idle connection 90 s, so 32 shards or scrapers
	// would otherwise hold the whole cap between their calls.
	ControlIdleConns = 8
	// ControlIdleTimeout closes a control connection idle this long.
	ControlIdleTimeout = 10 * time.Second
	// ControlReclaim is the control servers' Reclaim: a connection that
	// has sent no whole request half a second after its accept gives its
	// place to a new one when the cap is reached.
	ControlReclaim = 500 * time.Millisecond
	// TrafficHeaderTimeout is the traffic servers' ReadHeaderTimeout. A
	// swarm sends each request's headers in one write.
	TrafficHeaderTimeout = 10 * time.Second
	// TrafficIdleTimeout is the traffic servers' IdleTimeout: longer than
	// any think time or backoff a client sits out between requests on a
	// kept-alive connection.
	TrafficIdleTimeout = 5 * time.Minute
)

// ControlLimits returns the limits of a control API or metrics server:
// ControlConns connections, of which ControlIdleConns idle, headers within
// 5 s, idle connections closed after ControlIdleTimeout, and room made for
// a new connection at the cap (ControlReclaim), so that idle and slow
// clients never lock out a POST /control/stop. Serve applies them all.
func ControlLimits() Limits {
	return Limits{MaxConns: ControlConns, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: ControlIdleTimeout,
		MaxIdle: ControlIdleConns, Reclaim: ControlReclaim}
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
// socket (to reset it with an RST, say). MaxIdle and Reclaim need the
// server's view of its connections: see Serve.
func (l Limits) Listener(ln net.Listener) net.Listener {
	if l.MaxConns <= 0 {
		return ln
	}
	return newLimitListener(ln, l, false)
}

// Serve serves srv on ln with l's cap, MaxIdle and Reclaim, which it
// learns from srv's ConnState hook (chained before any srv has): which
// connections are idle, which have sent no whole request yet, and which
// are being handled (net/http calls a connection active once it has read
// a request's headers, not before).
func (l Limits) Serve(srv *http.Server, ln net.Listener) error {
	if l.MaxConns <= 0 && l.MaxIdle <= 0 {
		return srv.Serve(ln)
	}
	if l.MaxConns <= 0 {
		l.MaxConns = math.MaxInt32
	}
	ll := newLimitListener(ln, l, true)
	next := srv.ConnState
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		ll.connState(c, st)
		if next != nil {
			next(c, st)
		}
	}
	return srv.Serve(ll)
}

func newLimitListener(ln net.Listener, l Limits, tracked bool) *limitListener {
	ll := &limitListener{Listener: ln, sem: make(chan struct{}, l.MaxConns), done: make(chan struct{})}
	if tracked {
		ll.maxIdle, ll.reclaim = l.MaxIdle, l.Reclaim
		ll.conns = map[*limitConn]struct{}{}
		ll.changed = make(chan struct{}, 1)
	}
	return ll
}

type limitListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	// With Serve: the connections held, with their states, and a signal
	// that one fell idle (a place to reclaim).
	maxIdle int
	reclaim time.Duration
	mu      sync.Mutex
	conns   map[*limitConn]struct{}
	changed chan struct{}
}

// connState is the server's ConnState hook.
func (l *limitListener) connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*limitConn)
	if !ok || l.conns == nil {
		return
	}
	var victim *limitConn
	l.mu.Lock()
	c.state, c.since = st, time.Now()
	switch st {
	case http.StateIdle:
		if l.maxIdle > 0 {
			idle, oldest := 0, (*limitConn)(nil)
			for o := range l.conns {
				if o.state == http.StateIdle {
					idle++
					if oldest == nil || o.since.Before(oldest.since) {
						oldest = o
					}
				}
			}
			if idle > l.maxIdle {
				// Out of the count at once: its Closed state comes when
				// net/http's goroutine for it runs, and a second
				// connection falling idle before that must not pick it
				// again (in one instant every since is equal) and keep
				// one idle connection too many.
				victim = oldest
				delete(l.conns, victim)
			}
		}
	case http.StateHijacked, http.StateClosed:
		delete(l.conns, c)
	}
	l.mu.Unlock()
	if victim != nil {
		_ = victim.Close()
	}
	if st == http.StateIdle {
		select {
		case l.changed <- struct{}{}:
		default:
		}
	}
}

// reclaimable returns the connection to close to make room for a new one
// (the one idle longest, else the oldest that has sent no whole request
// within Reclaim of its accept), or nil and how long until one may be (-1:
// not before a connection changes state).
func (l *limitListener) reclaimable() (*limitConn, time.Duration) {
	if l.reclaim <= 0 {
		return nil, -1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var idle, slow *limitConn
	for c := range l.conns {
		switch c.state {
		case http.StateIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		case http.StateNew:
			if slow == nil || c.since.Before(slow.since) {
				slow = c
			}
		}
	}
	if idle != nil {
		return idle, 0
	}
	if slow == nil {
		return nil, -1
	}
	if wait := l.reclaim - time.Since(slow.since); wait > 0 {
		return nil, wait
	}
	return slow, 0
}

// room waits for a free place and takes it (got). Unless take is set, it
// returns without one as soon as a place could be reclaimed; with take,
// it reclaims it. ok is false once the listener is closed.
func (l *limitListener) room(take bool) (got, ok bool) {
	for {
		select {
		case l.sem <- struct{}{}:
			return true, true
		default:
		}
		victim, wait := l.reclaimable()
		if victim != nil {
			if !take {
				return false, true
			}
			_ = victim.Close() // frees its place
			continue
		}
		var timer *time.Timer
		var expired <-chan time.Time
		if wait > 0 {
			timer = time.NewTimer(wait)
			expired = timer.C
		}
		got, ok = false, true
		select {
		case l.sem <- struct{}{}:
			got = true
		case <-l.changed:
		case <-expired:
		case <-l.done:
			ok = false
		}
		if timer != nil {
			timer.Stop()
		}
		if got || !ok {
			return got, ok
		}
	}
}

// Accept waits for a free place, or for one it could reclaim; in the
// latter case it accepts the next connection first and reclaims a place
// for it only then, so that nothing is closed unless someone is waiting.
// So at most one connection more than the cap is open: the one waiting
// for its place.
func (l *limitListener) Accept() (net.Conn, error) {
	closed := &net.OpError{Op: "accept", Net: l.Addr().Network(), Addr: l.Addr(), Err: net.ErrClosed}
	got, ok := l.room(false)
	if !ok {
		return nil, closed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		if got {
			<-l.sem
		}
		return nil, err
	}
	if !got {
		if got, _ = l.room(true); !got {
			_ = c.Close()
			return nil, closed
		}
	}
	lc := &limitConn{Conn: c, l: l, state: http.StateNew, since: time.Now()}
	if l.conns != nil {
		l.mu.Lock()
		l.conns[lc] = struct{}{}
		l.mu.Unlock()
	}
	return lc, nil
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
	// state and since (guarded by l.mu) are the server's last ConnState
	// for it and when it was set.
	state http.ConnState
	since time.Time
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		if c.l.conns != nil {
			c.l.mu.Lock()
			delete(c.l.conns, c)
			c.l.mu.Unlock()
		}
		<-c.l.sem
	})
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
