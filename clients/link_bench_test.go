package clients

import (
	"bufio"
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
				br := bufio.NewReader(c)
				end := []byte("\r\n\r\n")
				var got []byte
				buf := make([]byte, 4096)
				for {
					n, err := br.Read(buf)
					if err != nil {
						return
					}
					got = append(got, buf[:n]...)
					for {
						i := bytes.Index(got, end)
						if i < 0 {
							break
						}
						got = got[i+len(end):]
						if _, err := c.Write([]byte(answer)); err != nil {
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
	s := &Swarm{URL: url, Strategy: &Strategy{Timeout: 10 * time.Second}, Origin: time.Now()}
	ep, err := newEndpoint(url, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	l := newLink(ep)
	defer l.close()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, o, _, _, _ := s.attempt(ctx, l, nil); o != results.OK {
			b.Fatalf("outcome %s", o)
		}
	}
}
