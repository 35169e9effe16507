package netguard

import (
	"context"
	"net"
	"net/http"
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
