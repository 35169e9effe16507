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

// tally is a floor's figures, each connection's (or loop's) added as it
// ends, and the first error of any.
type tally struct {
	mu           sync.Mutex
	all          *hdrhistogram.Histogram
	attempts, ok int64
	errs         chan error
}

func newTally(workers int) *tally {
	return &tally{all: newFloorHist(), errs: make(chan error, workers)}
}

// newFloorHist is a floor's latency histogram: microseconds to a minute.
func newFloorHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60_000_000, 3) }

// add adds one worker's latencies, answers and 200s.
func (t *tally) add(h *hdrhistogram.Histogram, n, good int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.all.Merge(h)
	t.attempts, t.ok = t.attempts+n, t.ok+good
}

// fail keeps a worker's error (the first of each worker's).
func (t *tally) fail(err error) { t.errs <- err }

// write prints the floor's figures as the swarm's JSON, or returns the
// first error a worker met. Call it once every worker has ended.
func (t *tally) write(w io.Writer) error {
	select {
	case err := <-t.errs:
		return err
	default:
	}
	return json.NewEncoder(w).Encode(struct{ P99Micros, Attempts, OK int64 }{t.all.ValueAtQuantile(99), t.attempts, t.ok})
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
	t := newTally(conns)
	var wg sync.WaitGroup
	for range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			h := newFloorHist()
			var n, good int64
			buf := make([]byte, 4096)
			for time.Now().Before(deadline) {
				sent := time.Now()
				if _, err := c.Write(req); err != nil {
					t.fail(err)
					return
				}
				have := 0
				for {
					m, err := c.Read(buf[have:])
					if err != nil {
						t.fail(err)
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
						t.fail(fmt.Errorf("an answer the floor does not read: %q", buf[:have]))
						return
					}
				}
				_ = h.RecordValue(time.Since(sent).Microseconds())
			}
			t.add(h, n, good)
		}()
	}
	wg.Wait()
	return t.write(w)
}
