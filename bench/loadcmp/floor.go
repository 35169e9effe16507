package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// The floors are the least a client can do per request, measured beside
// wrk and the swarm so that the swarm's lead or lag is split into what its
// design costs and what its own work costs: each sends the same bodiless
// POST on conns keep-alive connections in a closed loop, checks that the
// answer is a complete 200, and records its latency in one histogram
// (wrk keeps one too), nothing else.
//
//   - floor-goroutines: a goroutine per connection on net.Conn, as the
//     swarm is built (each request parks its goroutine on the network
//     poller until the answer comes);
//   - floor-epoll: one event loop per core on its own epoll set, as wrk
//     is built (one wake-up serves every ready connection).

// floorRequest is the floors' request: the swarm's probe, a bodiless POST.
func floorRequest(host string) []byte {
	return []byte("POST / HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: loadcmp\r\nContent-Length: 0\r\n\r\n")
}

// floorResult is what a floor prints: the swarm's JSON.
func floorResult(w io.Writer, h *hdrhistogram.Histogram, attempts, ok int64) error {
	return json.NewEncoder(w).Encode(struct{ P99Micros, Attempts, OK int64 }{h.ValueAtQuantile(99), attempts, ok})
}

// answerLen returns the length of the complete HTTP/1.1 answer at the
// start of b and whether it is a 200; n is 0 while the answer is
// incomplete, -1 when it is not one the floors understand (they need a
// Content-Length).
func answerLen(b []byte) (n int, ok bool) {
	end := bytes.Index(b, []byte("\r\n\r\n"))
	if end < 0 {
		return 0, false
	}
	head := b[:end]
	i := bytes.Index(head, []byte("\r\nContent-Length: "))
	if i < 0 || len(head) < 12 {
		return -1, false
	}
	v := head[i+len("\r\nContent-Length: "):]
	if j := bytes.IndexByte(v, '\r'); j >= 0 {
		v = v[:j]
	}
	cl, err := strconv.Atoi(string(v))
	if err != nil || cl < 0 {
		return -1, false
	}
	if len(b) < end+4+cl {
		return 0, false
	}
	return end + 4 + cl, string(head[9:12]) == "200"
}

// runFloorGoroutines is the floor of a goroutine per connection.
func runFloorGoroutines(addr string, conns int, d time.Duration, w io.Writer) error {
	req := floorRequest(addr)
	deadline := time.Now().Add(d)
	var (
		mu           sync.Mutex
		all          = hdrhistogram.New(1, 60_000_000, 3)
		attempts, ok int64
		wg           sync.WaitGroup
		errs         = make(chan error, conns)
	)
	for range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			h := hdrhistogram.New(1, 60_000_000, 3)
			var n, good int64
			buf := make([]byte, 4096)
			for time.Now().Before(deadline) {
				sent := time.Now()
				if _, err := c.Write(req); err != nil {
					errs <- err
					return
				}
				have := 0
				for {
					m, err := c.Read(buf[have:])
					if err != nil {
						errs <- err
						return
					}
					have += m
					if k, is200 := answerLen(buf[:have]); k > 0 {
						n++
						if is200 {
							good++
						}
						break
					} else if k < 0 || have == len(buf) {
						errs <- fmt.Errorf("an answer the floor does not read: %q", buf[:have])
						return
					}
				}
				_ = h.RecordValue(time.Since(sent).Microseconds())
			}
			mu.Lock()
			defer mu.Unlock()
			all.Merge(h)
			attempts, ok = attempts+n, ok+good
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	return floorResult(w, all, attempts, ok)
}
