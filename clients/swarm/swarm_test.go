package swarm

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
)

// In virtual time: an attempt that gets no answer times out exactly at its
// timeout; a run's end unblocks an attempt without a timeout, which is not
// recorded; the swarm returns at the run's end, and no goroutine outlives
// it (the bubble would not end).
func TestSwarmTimeoutAndEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		ln, err := n.Listen("tcp", "target:80")
		if err != nil {
			t.Fatal(err)
		}
		hang := make(chan struct{})
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/hang" {
				select {
				case <-hang:
				case <-r.Context().Done():
				}
				return
			}
			time.Sleep(30 * time.Millisecond)
		})}
		go func() { _ = srv.Serve(ln) }()
		defer func() { close(hang); _ = srv.Close() }()

		// A closed loop thinking 500 ms: sends at 0.5 s, then 500 ms after
		// each attempt ends, until 1.5 s.
		for _, tc := range []struct {
			path    string
			timeout time.Duration
			want    string        // bucket:outcome:latency of each attempt
			end     time.Duration // when the swarm returns
		}{
			// The next request would start at 1.56 s, after the run: the
			// client stops when the second ends.
			{"/ok", 0, "50:ok:30ms 103:ok:30ms", 1060 * time.Millisecond},
			{"/hang", 100 * time.Millisecond, "50:timeout:100ms 110:timeout:100ms", 1200 * time.Millisecond},
			{"/hang", 0, "", 1500 * time.Millisecond}, // cut by the end of the run, not recorded
		} {
			const run = 1500 * time.Millisecond
			rec := results.NewRecorder(run, 1)
			sw := &Swarm{
				URL:      "http://target:80" + tc.path,
				Strategy: &clients.Strategy{Name: "s", Backoff: clients.Backoff{Shape: clients.None}, MaxAttempts: 1, Timeout: tc.timeout},
				Workload: &clients.Workload{Kind: clients.Closed, Clients: 1, Think: dist.Const(500 * time.Millisecond)},
				Seed:     1, Origin: time.Now(), Duration: run, Rec: rec, Dial: n.Dial,
			}
			sw.Run(context.Background())
			if el := time.Since(sw.Origin); el != tc.end {
				t.Errorf("%s: the swarm returned after %s, want %s", tc.path, el, tc.end)
			}
			var got []string
			for b, row := range rec.Timeline(results.Bucket).Rows {
				for o := results.Outcome(0); o < results.NumOutcomes; o++ {
					for range row[o] {
						got = append(got, fmt.Sprintf("%d:%s", b, o))
					}
				}
			}
			h, _ := rec.Histograms()
			lat := time.Duration(h.ValueAtQuantile(50)) * time.Microsecond
			for i := range got {
				got[i] += ":" + lat.Round(time.Millisecond).String()
			}
			if g := strings.Join(got, " "); g != tc.want {
				t.Errorf("%s, timeout %s: %q, want %q", tc.path, tc.timeout, g, tc.want)
			}
			if !h.ValuesAreEquivalent(h.Min(), h.Max()) {
				t.Errorf("%s: latencies from %d to %d µs, want all equal", tc.path, h.Min(), h.Max())
			}
			if f := rec.Live().InFlight; f != 0 {
				t.Errorf("%s: %d attempts in flight after the run", tc.path, f)
			}
		}
	})
}

// An open workload's arrivals share a pool of connections: as many as are
// busy at once, not one per arrival.
func TestSwarmOpenSharesConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		ln, err := n.Listen("tcp", "target:80")
		if err != nil {
			t.Fatal(err)
		}
		var conns atomic.Int64
		srv := &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { time.Sleep(20 * time.Millisecond) }),
			ConnState: func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			},
		}
		go func() { _ = srv.Serve(ln) }()
		defer func() { _ = srv.Shutdown(context.Background()) }() // waits for the handlers
		const run = 2 * time.Second
		rec := results.NewRecorder(run, 4)
		sw := &Swarm{
			URL:      "http://target:80/",
			Strategy: &clients.Strategy{Name: "s", Backoff: clients.Backoff{Shape: clients.None}, MaxAttempts: 1, Timeout: time.Second},
			Workload: &clients.Workload{Kind: clients.Open, Rate: 200},
			Seed:     1, Origin: time.Now(), Duration: run, Rec: rec, Dial: n.Dial,
		}
		sw.Run(context.Background())
		l := rec.Live()
		if l.Attempts < 300 || l.OK != l.Attempts {
			t.Fatalf("%d attempts, %d ok; want about 400, all ok", l.Attempts, l.OK)
		}
		// 200 arrivals a second, each busy 20 ms: about 4 at once; Poisson
		// bursts need a few more.
		t.Logf("%d attempts on %d connections", l.Attempts, conns.Load())
		if c := conns.Load(); c > 20 {
			t.Errorf("%d connections for %d attempts, want a small pool", c, l.Attempts)
		}
	})
}

// Closed-loop and one-shot clients open their connections before the run
// starts, so that a wave at t = 0 pays no handshakes: every dial happens
// before the origin, one per client, and every attempt is sent at t = 0.
func TestSwarmOpensConnectionsBeforeTheStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		ln, err := n.Listen("tcp", "target:80")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})}
		go func() { _ = srv.Serve(ln) }()
		defer func() { _ = srv.Shutdown(context.Background()) }()
		origin := time.Now().Add(100 * time.Millisecond)
		var mu sync.Mutex
		var dials []time.Duration
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			mu.Lock()
			dials = append(dials, time.Since(origin))
			mu.Unlock()
			return n.Dial(ctx, network, addr)
		}
		const many = 300 // more than warmDials at once
		rec := results.NewRecorder(time.Second, 4)
		sw := &Swarm{
			URL:      "http://target:80/",
			Strategy: &clients.Strategy{Name: "s", Backoff: clients.Backoff{Shape: clients.None}, MaxAttempts: 1},
			Workload: &clients.Workload{Kind: clients.OneShot, Clients: many},
			Seed:     1, Origin: origin, Duration: time.Second, Rec: rec, Dial: dial,
		}
		sw.Run(context.Background())
		if len(dials) != many {
			t.Errorf("%d dials, want %d (one per client)", len(dials), many)
		}
		for _, d := range dials {
			if d >= 0 {
				t.Errorf("a dial at %s, want all before the start", d)
				break
			}
		}
		if got := rec.Timeline(results.Bucket).Rows[0][results.OK]; got != many {
			t.Errorf("%d attempts answered ok in the first bucket, want %d", got, many)
		}
	})
}

// An attempt that fails ends when its client reads the failure, not after
// the work that follows (closing the connection, which on a real socket a
// reading goroutine of its own may make wait, and the other clients woken
// by the same crash): a crash's clients then schedule their retries from
// when each learned of it, and the spread measures that alone.
func TestAttemptEndsWhenTheFailureIsRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		ln, err := n.Listen("tcp", "target:80")
		if err != nil {
			t.Fatal(err)
		}
		origin := time.Now().Add(100 * time.Millisecond)
		const crash = 200 * time.Millisecond
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Until(origin.Add(crash)))
			c, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = c.Close()
			}
		})}
		go func() { _ = srv.Serve(ln) }()
		defer func() { _ = srv.Close() }()
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := n.Dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return slowClose{c}, nil
		}
		rec := results.NewRecorder(time.Second, 1)
		rec.SetEdges([]time.Duration{crash})
		sw := &Swarm{
			URL:      "http://target:80/",
			Strategy: &clients.Strategy{Name: "s", Backoff: clients.Backoff{Shape: clients.None}, MaxAttempts: 1},
			Workload: &clients.Workload{Kind: clients.OneShot, Clients: 1},
			Seed:     1, Origin: origin, Duration: time.Second, Rec: rec, Dial: dial,
		}
		sw.Run(context.Background())
		sp := rec.Spread()
		if len(sp) != 1 || sp[0].H.TotalCount() != 1 {
			t.Fatalf("spread %v, want one attempt across the crash", sp)
		}
		if got := sp[0].H.Max(); got != 0 {
			t.Errorf("the attempt ended %d µs after the crash, want 0 (when its failure was read, not after its close)", got)
		}
	})
}

// slowClose is a connection whose Close takes 5 ms.
type slowClose struct{ net.Conn }

func (c slowClose) Close() error {
	time.Sleep(5 * time.Millisecond)
	return c.Conn.Close()
}
