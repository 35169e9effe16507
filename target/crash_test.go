package target

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/target/model"
)

// A crash is a transition into a reset or refuse outage. The plan loop
// looks at the plan when its timer fires; a crash that began and ended
// between two looks (a short outage, a late timer on a busy machine) must
// still crash the server.
func TestCrossed(t *testing.T) {
	ms := time.Millisecond
	out := func(at, length time.Duration, m chaos.OutageMode) chaos.Timed {
		return chaos.Timed{Kind: "outage", At: at, For: length, Fault: chaos.Outage{Mode: m}}
	}
	short, err := chaos.NewPlan([]chaos.Timed{out(500*ms, ms, chaos.Reset)}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	refuse, err := chaos.NewPlan([]chaos.Timed{out(100*ms, 100*ms, chaos.Refuse), out(200*ms, 100*ms, chaos.Reset), out(400*ms, 100*ms, chaos.Unavailable)}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		p         *chaos.Plan
		cur       chaos.OutageMode
		from, now time.Duration
		crash     bool
		next      chaos.OutageMode
	}{
		{"before the short crash", short, chaos.NoOutage, -1, 499 * ms, false, chaos.NoOutage},
		{"on time for the short crash", short, chaos.NoOutage, 499 * ms, 500 * ms, true, chaos.Reset},
		{"late: the short crash is over", short, chaos.NoOutage, 499 * ms, 503 * ms, true, chaos.NoOutage},
		{"after the short crash", short, chaos.Reset, 500 * ms, 501 * ms, false, chaos.NoOutage},
		{"long after it", short, chaos.NoOutage, 503 * ms, 900 * ms, false, chaos.NoOutage},
		{"refuse begins", refuse, chaos.NoOutage, 50 * ms, 150 * ms, true, chaos.Refuse},
		{"refuse to reset crashes again", refuse, chaos.Refuse, 150 * ms, 250 * ms, true, chaos.Reset},
		{"a 503 outage is no crash", refuse, chaos.NoOutage, 350 * ms, 450 * ms, false, chaos.Unavailable},
		{"late past all of them", refuse, chaos.NoOutage, 50 * ms, 600 * ms, true, chaos.NoOutage},
	} {
		crash, next := crossed(c.p, c.cur, c.from, c.now)
		if crash != c.crash || next != c.next {
			t.Errorf("%s: crossed(%s, %s, %s) = %v, %s; want %v, %s", c.name, c.cur, c.from, c.now, crash, next, c.crash, c.next)
		}
	}
}

// resetAll resets every connection, however many workers it splits them
// among: each one's far end reads a reset, not an orderly close.
func TestResetAllResetsEvery(t *testing.T) {
	for _, n := range []int{1, 300} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var far, near []net.Conn
		for range n {
			c, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			far = append(far, c)
			s, err := ln.Accept()
			if err != nil {
				t.Fatal(err)
			}
			near = append(near, s)
		}
		_ = ln.Close()
		resetAll(near)
		for i, c := range far {
			_, err := c.Read(make([]byte, 1))
			if !isReset(err) {
				t.Errorf("%d connections: connection %d read %v; want a reset", n, i, err)
			}
			_ = c.Close()
		}
	}
}

func isReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

// A plan started by hand with its t = 0 in the past does not replay a
// crash that was over before it started: nothing is reset.
func TestStartPlanInThePastReplaysNoCrash(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		crash := chaos.Timed{Name: "crash", Kind: "outage", At: 500 * time.Millisecond, For: 100 * time.Millisecond, Fault: chaos.Outage{Mode: chaos.Reset}}
		s := newStandalone(t, Options{Plan: plan(t, crash), Hold: true})
		s.at(2 * time.Second)
		if err := s.srv.StartPlan(s.start); err != nil {
			t.Fatal(err)
		}
		s.expect(2100*time.Millisecond, 200)
		if at := s.srv.lastCrash.Load(); at != 0 {
			t.Errorf("the server crashed at %s, replaying a crash that ended at 600ms", time.Unix(0, at).Sub(s.start))
		}
		// The same plan started now crashes it on time.
		if err := s.srv.StartPlan(time.Time{}); err != nil {
			t.Fatal(err)
		}
		s.at(2600 * time.Millisecond)
		if at := s.srv.lastCrash.Load(); at == 0 || time.Unix(0, at).Sub(s.start) != 2600*time.Millisecond {
			t.Errorf("started at 2.1s, the plan's crash at 500ms came at %s; want 2.6s", time.Unix(0, at).Sub(s.start))
		}
	})
}

// Clients that dial at the very instant a refuse outage ends are served,
// as the model serves them, however the goroutines at that instant are
// ordered: the listener is open again by the edge, not after the plan
// loop's turn at it (a synchronized wave of retries lands exactly there).
func TestRefuseEndsBeforeTheWaveAtItsEdge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		down := chaos.Timed{Name: "down", Kind: "outage", At: time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Refuse}}
		s := newStandalone(t, Options{Plan: plan(t, down)})
		s.at(1500 * time.Millisecond)
		if got, err := s.get(0); err == nil {
			t.Fatalf("during the outage: status %d, want refused", got)
		}
		const wave = 100
		codes := make([]int, wave)
		var wg sync.WaitGroup
		for i := range wave {
			wg.Add(1)
			go func() {
				defer wg.Done()
				time.Sleep(time.Until(s.start.Add(2 * time.Second)))
				codes[i], _ = s.get(0)
			}()
		}
		wg.Wait()
		refused := 0
		for _, c := range codes {
			if c != 200 {
				refused++
			}
		}
		if refused > 0 {
			t.Errorf("%d of %d clients that dialled as the outage ended were refused; want none", refused, wave)
		}
	})
}

// A plan that begins with a refuse (or goaway) outage lets no client
// connect: clients that dial ahead of t = 0, as the swarm opens its
// connections in its lead, are all refused, as the model refuses them,
// whatever the order of the goroutines at that instant, and the listener
// opens when the outage ends. (When the plan loop's first look closed
// the listener, the clients raced it: in a synctest bubble a client that
// connected first was reset where the model refuses it, about one run in
// a hundred.)
func TestOutageFromTheStartAcceptsNoConnection(t *testing.T) {
	for _, mode := range []chaos.OutageMode{chaos.Refuse, chaos.Goaway} {
		connected := 0
		for range 200 {
			synctest.Test(t, func(t *testing.T) {
				n := &memnet.Network{}
				down := chaos.Timed{Name: "down", Kind: "outage", At: 0, For: time.Second, Fault: chaos.Outage{Mode: mode}}
				start := time.Now().Add(200 * time.Millisecond) // t = 0, after the clients' lead
				srv, err := Listen(Options{Addr: "target:80", Listen: n.Listen, Origin: start, Plan: plan(t, down),
					Config: model.Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}})
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				var mu sync.Mutex
				var wg sync.WaitGroup
				for range 4 {
					wg.Go(func() {
						c, err := n.Dial(context.Background(), "tcp", "target:80")
						if err == nil {
							mu.Lock()
							connected++
							mu.Unlock()
							_ = c.Close()
						} else if !errors.Is(err, syscall.ECONNREFUSED) {
							t.Errorf("dial during the outage: %v, want refused", err)
						}
					})
				}
				wg.Wait()
				time.Sleep(time.Until(start.Add(time.Second))) // the outage is over
				synctest.Wait()
				c, err := n.Dial(context.Background(), "tcp", "target:80")
				if err != nil {
					t.Fatalf("after the outage: %v, want the listener open again", err)
				}
				_ = c.Close()
			})
		}
		if connected > 0 {
			t.Errorf("%s from t = 0: %d of 800 connections made ahead of t = 0 were accepted; want none", mode, connected)
		}
	}
}

// A crash's sweep puts every connection's RST on the wire before it
// closes any of them: closing a socket that a goroutine is reading (a
// handler's, net/http's background read) waits for that goroutine to
// run, so a sweep of closes tells the peers one goroutine switch apart,
// on a busy 2-core machine tens of milliseconds for a thousand. By the
// first close, every peer must already read a reset.
func TestResetAllResetsEveryPeerBeforeClosingAny(t *testing.T) {
	if !abortSocket(nil) && !canAbort(t) {
		t.Skip("this system resets a connection only by closing it")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const n = 50
	var far []net.Conn
	var near []net.Conn
	var wg sync.WaitGroup
	checked := false
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		far = append(far, c)
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { // a handler's read, as net/http's on every connection
			defer wg.Done()
			_, _ = s.Read(make([]byte, 1))
		}()
		near = append(near, &closeHook{Conn: s, before: func() {
			if checked {
				return
			}
			checked = true
			for i, c := range far {
				if !resetPending(t, c) {
					t.Errorf("at the sweep's first close, connection %d of %d had no reset yet", i, n)
				}
			}
		}})
	}
	resetAll(near)
	wg.Wait()
	if !checked {
		t.Fatal("the sweep closed no connection")
	}
	for _, c := range far {
		_ = c.Close()
	}
}

// closeHook calls before when closed.
type closeHook struct {
	net.Conn
	before func()
}

func (c *closeHook) Close() error { c.before(); return c.Conn.Close() }

func (c *closeHook) NetConn() net.Conn { return c.Conn }

// canAbort reports whether abortSocket works on this system's TCP.
func canAbort(t *testing.T) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return abortSocket(s)
}

// resetPending reports whether c's socket holds a reset, without waiting
// (and takes it: a later read sees the end of the stream).
func resetPending(t *testing.T, c net.Conn) bool {
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var rerr error
	_ = rc.Read(func(fd uintptr) bool {
		_, _, rerr = syscall.Recvfrom(int(fd), make([]byte, 1), syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true
	})
	return errors.Is(rerr, syscall.ECONNRESET)
}
