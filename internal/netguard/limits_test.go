package netguard

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/memnet"
)

// TestLimitListener: past the cap, a connection waits (here: its dial, as
// in a full backlog) until one held closes.
func TestLimitListener(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		inner, err := n.Listen("tcp", "srv:80")
		if err != nil {
			t.Fatal(err)
		}
		ln := Limits{MaxConns: 2}.Listener(inner)
		defer ln.Close()
		accepted := make(chan net.Conn, 3)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				accepted <- c
			}
		}()
		var clients []net.Conn
		for range 2 {
			c, err := n.Dial(context.Background(), "tcp", "srv:80")
			if err != nil {
				t.Fatal(err)
			}
			clients = append(clients, c)
		}
		third := make(chan net.Conn)
		go func() {
			c, _ := n.Dial(context.Background(), "tcp", "srv:80")
			third <- c
		}()
		synctest.Wait()
		if len(accepted) != 2 {
			t.Fatalf("%d connections accepted, want 2 (the cap)", len(accepted))
		}
		select {
		case <-third:
			t.Fatal("a third connection got in past the cap of 2")
		default:
		}
		first := <-accepted
		if _, ok := first.(interface{ NetConn() net.Conn }); !ok {
			t.Error("a capped connection does not give its socket by NetConn")
		}
		first.Close()
		first.Close() // a second Close frees nothing more
		c := <-third
		synctest.Wait()
		if len(accepted) != 2 {
			t.Errorf("after one closed: %d accepted and held, want 2 (the second and the third)", len(accepted))
		}
		for _, c := range append(clients, c) {
			c.Close()
		}
		ln.Close()
		if _, err := ln.Accept(); err == nil {
			t.Error("Accept after Close: no error")
		}
	})
}

func TestSocket(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	capped := Limits{MaxConns: 1}.Listener(ln)
	defer capped.Close()
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			defer c.Close()
			_, _ = c.Read(make([]byte, 1))
		}
	}()
	c, err := capped.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if Socket(c) == nil {
		t.Error("Socket of a capped TCP connection: nil")
	}
	if p, _ := net.Pipe(); Socket(p) != nil {
		t.Error("Socket of a pipe: not nil")
	}
}

func TestLimitsOfServers(t *testing.T) {
	for _, c := range []struct {
		name string
		l    Limits
	}{{"control", ControlLimits()}, {"target traffic", TrafficLimits(1)}, {"proxy traffic", TrafficLimits(2)}} {
		if c.l.MaxConns <= 0 || c.l.ReadHeaderTimeout <= 0 || c.l.IdleTimeout <= 0 {
			t.Errorf("%s: %+v, want a cap and both timeouts", c.name, c.l)
		}
		srv := c.l.Server(http.NotFoundHandler())
		if srv.ReadHeaderTimeout != c.l.ReadHeaderTimeout || srv.IdleTimeout != c.l.IdleTimeout {
			t.Errorf("%s: server timeouts %s, %s", c.name, srv.ReadHeaderTimeout, srv.IdleTimeout)
		}
	}
	n := OpenFiles()
	if tr := TrafficLimits(1); tr.MaxConns >= n || tr.MaxConns < n/2 {
		t.Errorf("traffic cap %d with %d open files: want below the limit, keeping a reserve, and at least half of it", tr.MaxConns, n)
	}
	if p, tr := TrafficLimits(2), TrafficLimits(1); p.MaxConns != tr.MaxConns/2 {
		t.Errorf("proxy cap %d, target cap %d: want half (each proxied connection has an upstream one)", p.MaxConns, tr.MaxConns)
	}
	if TrafficIdleTimeout < time.Minute {
		t.Errorf("traffic idle timeout %s: shorter than a client's backoff may be", TrafficIdleTimeout)
	}
}

// capped serves h over memnet with l (by Serve) at "ctl:80", counting the
// server's connections by state through a ConnState hook of its own (Serve
// chains it after the listener's).
type capped struct {
	n      *memnet.Network
	srv    *http.Server
	mu     sync.Mutex
	states map[net.Conn]http.ConnState
	seen   int // connections the server has accepted
}

func serveCapped(t *testing.T, l Limits, h http.Handler) *capped {
	t.Helper()
	cs := &capped{n: &memnet.Network{}, states: map[net.Conn]http.ConnState{}}
	ln, err := cs.n.Listen("tcp", "ctl:80")
	if err != nil {
		t.Fatal(err)
	}
	cs.srv = l.Server(h)
	cs.srv.ConnState = func(c net.Conn, st http.ConnState) {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if st == http.StateNew {
			cs.seen++
		}
		if st == http.StateClosed || st == http.StateHijacked {
			delete(cs.states, c)
			return
		}
		cs.states[c] = st
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = l.Serve(cs.srv, ln) }()
	t.Cleanup(func() { _ = cs.srv.Close(); <-done })
	return cs
}

// count returns how many connections the server holds in state st.
func (cs *capped) count(st http.ConnState) int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	n := 0
	for _, s := range cs.states {
		if s == st {
			n++
		}
	}
	return n
}

// client returns an HTTP client with a connection pool of its own over
// cs's network, keeping its connection alive as Go's default one does.
func (cs *capped) client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: &http.Transport{DialContext: cs.n.Dial}}
}

func (cs *capped) get(t *testing.T, c *http.Client, path string) error {
	t.Helper()
	resp, err := c.Get("http://ctl:80" + path)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", resp.Status)
	}
	return nil
}

// idle leaves n keep-alive connections that have each made one request,
// as n shards or scrapers between their calls do.
func (cs *capped) idle(t *testing.T, n int) []*http.Client {
	t.Helper()
	var clients []*http.Client
	for i := range n {
		c := cs.client(5 * time.Second)
		if err := cs.get(t, c, "/status"); err != nil {
			t.Fatalf("idle client %d: %v", i, err)
		}
		clients = append(clients, c)
	}
	synctest.Wait()
	return clients
}

// slow opens n connections that send half their headers and never the rest
// (a slowloris), each accepted by the server before the next.
func (cs *capped) slow(t *testing.T, n int) []net.Conn {
	t.Helper()
	var conns []net.Conn
	for i := range n {
		c, err := cs.n.Dial(context.Background(), "tcp", "ctl:80") // returns once accepted
		if err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
		if _, err := io.WriteString(c, "POST /stop HTTP/1.1\r\nHost: ctl\r\n"); err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	synctest.Wait()
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	return conns
}

// stop sends the call that must get through, with a second to answer,
// and returns how long it took.
func (cs *capped) stop(t *testing.T) time.Duration {
	t.Helper()
	start := time.Now()
	resp, err := cs.client(time.Second).Post("http://ctl:80/stop", "application/json", nil)
	if err != nil {
		t.Fatalf("POST /stop with the cap held: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /stop: %s", resp.Status)
	}
	return time.Since(start)
}

func okHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok\n") })
}

// TestIdleConnectionsDoNotLockOut: more idle keep-alive connections than
// the cap (Go's http.Client keeps one 90 s; a shard or scraper each) do
// not keep a new call out: the one idle longest is closed for it at once.
// MaxIdle is as large as the cap here, so that only the reclaim at the cap
// lets the call in.
func TestIdleConnectionsDoNotLockOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := ControlLimits()
		l.MaxIdle = l.MaxConns
		cs := serveCapped(t, l, okHandler())
		clients := cs.idle(t, l.MaxConns+8)
		if got := cs.count(http.StateIdle); got != l.MaxConns {
			t.Errorf("%d idle connections held, want the cap, %d", got, l.MaxConns)
		}
		if took := cs.stop(t); took != 0 {
			t.Errorf("POST /stop with %d idle connections took %s, want at once", l.MaxConns, took)
		}
		// The last idle client still has its connection: the one idle
		// longest went, not the newest.
		seen := cs.seen
		if err := cs.get(t, clients[len(clients)-1], "/status"); err != nil || cs.seen != seen {
			t.Errorf("the newest idle client: %v, %d new connections; want its connection reused", err, cs.seen-seen)
		}
	})
}

// TestMaxIdle: at most MaxIdle connections sit idle; one more falling idle
// closes the one idle longest, and the cap's other places stay free.
func TestMaxIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := ControlLimits()
		cs := serveCapped(t, l, okHandler())
		cs.idle(t, 3*l.MaxIdle)
		if got := cs.count(http.StateIdle); got != l.MaxIdle {
			t.Errorf("%d idle connections held, want MaxIdle, %d", got, l.MaxIdle)
		}
		time.Sleep(l.IdleTimeout + time.Millisecond)
		synctest.Wait()
		if got := cs.count(http.StateIdle); got != 0 {
			t.Errorf("%d idle connections after the idle timeout, want 0", got)
		}
	})
}

// TestSlowAndIdleDoNotLockOut: the cap held by idle and slow connections
// (half-sent headers), and by calls being handled, still lets a new call
// in within a second: an idle one goes first, then the oldest slow one
// once it has sent no whole request for Reclaim. A call being handled is
// never closed.
func TestSlowAndIdleDoNotLockOut(t *testing.T) {
	for _, c := range []struct {
		name             string
		idle, slow, held int
		want             time.Duration // how long the stop waits
	}{
		{"idle and slow", ControlIdleConns, ControlConns - ControlIdleConns, 0, 0},
		{"idle, slow and handled", 4, ControlConns - 8, 4, 0},
		{"slow only", 0, ControlConns, 0, ControlReclaim},
		{"slow and handled", 0, ControlConns - 4, 4, ControlReclaim},
		{"more slow than the cap", 0, 3 * ControlConns, 0, ControlReclaim},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				var releaseOnce sync.Once
				free := func() { releaseOnce.Do(func() { close(release) }) }
				defer free() // a failed check still lets the handlers end
				h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.URL.Path == "/hold" {
						<-release
					}
					_, _ = io.WriteString(w, "ok\n")
				})
				cs := serveCapped(t, ControlLimits(), h)
				cs.idle(t, c.idle)
				held := make(chan error, c.held)
				for range c.held {
					go func() { held <- cs.get(t, cs.client(time.Minute), "/hold") }()
				}
				synctest.Wait()
				start := time.Now()
				var slow []net.Conn
				more := make(chan struct{})
				if c.slow <= ControlConns {
					slow = cs.slow(t, c.slow)
					close(more)
				} else {
					// Past the cap the dials wait to be accepted: open them
					// all at once, each reclaimed in turn.
					go func() { defer close(more); slow = cs.slow(t, c.slow) }()
					synctest.Wait()
				}
				if held := cs.count(http.StateIdle) + cs.count(http.StateNew) + cs.count(http.StateActive); held != ControlConns {
					t.Fatalf("the server holds %d connections, want the cap, %d", held, ControlConns)
				}
				if took := cs.stop(t); took != c.want {
					t.Errorf("POST /stop took %s, want %s", took, c.want)
				}
				if time.Since(start) > time.Second {
					t.Errorf("POST /stop answered %s after the slow connections began, want within 1 s", time.Since(start))
				}
				free()
				for range c.held {
					if err := <-held; err != nil {
						t.Errorf("a call being handled: %v, want it answered", err)
					}
				}
				<-more
				if len(slow) != c.slow {
					t.Errorf("%d slow connections accepted, want %d", len(slow), c.slow)
				}
			})
		})
	}
}
