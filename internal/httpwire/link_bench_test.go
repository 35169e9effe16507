package httpwire

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// fixedServer answers every request on 127.0.0.1 with the same bytes, at
// almost no cost of its own, so a benchmark measures the client.
func fixedServer(tb testing.TB, answer string) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Skip("no loopback:", err)
	}
	tb.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// Nothing here allocates per request, so that what a
				// benchmark or test counts is the client's.
				end := []byte("\r\n\r\n")
				ans := []byte(answer)
				got := make([]byte, 0, 64<<10)
				for {
					if len(got) == cap(got) {
						return // a request that never ends
					}
					n, err := c.Read(got[len(got):cap(got)])
					if err != nil {
						return
					}
					got = got[:len(got)+n]
					for {
						i := bytes.Index(got, end)
						if i < 0 {
							break
						}
						got = got[:copy(got, got[i+len(end):])]
						if _, err := c.Write(ans); err != nil {
							return
						}
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/"
}

// BenchmarkAttempt is one attempt of the real-time swarm on its client's
// kept-alive connection, with a timeout: the request written from the
// client's goroutine, the answer read and parsed, against a server that
// costs almost nothing. Allocations are the client's.
func BenchmarkAttempt(b *testing.B) {
	url := fixedServer(b, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\nok\n")
	s := &Attempts{Timeout: 10 * time.Second, Origin: time.Now()}
	ep, err := NewEndpoint(url, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	l := NewLink(ep)
	defer l.close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, o, _, _, _ := s.Send(ctx, l, nil); o != results.OK {
			b.Fatalf("outcome %s", o)
		}
	}
}

// An attempt on a kept-alive connection allocates nothing: not the
// request, not the answer's parse, not the deadline, not the error path's
// variables (made only on failure).
func TestAttemptAllocatesNothing(t *testing.T) {
	url := fixedServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\nok\n")
	s := &Attempts{Timeout: 10 * time.Second, Origin: time.Now()}
	ep, err := NewEndpoint(url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLink(ep)
	defer l.close()
	ctx := context.Background()
	attempt := func() {
		if _, _, o, _, _, _ := s.Send(ctx, l, nil); o != results.OK {
			t.Fatalf("outcome %s", o)
		}
	}
	attempt() // connects
	if n := testing.AllocsPerRun(200, attempt); n > 0 {
		t.Errorf("%.2f allocations per attempt, want none", n)
	}
}
