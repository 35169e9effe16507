package httpwire

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
)

// deadlineCounter is a connection that counts the read deadlines set on it.
type deadlineCounter struct {
	net.Conn
	sets *int
}

func (c deadlineCounter) SetReadDeadline(t time.Time) error {
	*c.sets++
	return c.Conn.SetReadDeadline(t)
}

// In virtual time: a connection keeps the read deadline of an earlier
// attempt while it comes no later than the current attempt's own, and
// every attempt still ends exactly at its own timeout, never at the kept
// one: an answer that comes after the kept deadline but before the
// attempt's own is an answer, one that never comes a timeout exactly the
// timeout after the send. A deadline is set only when none is, when the
// kept one has passed, and when a read reaches the kept one.
func TestLinkKeepsEarlierDeadlineExactly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		ln, err := n.Listen("tcp", "target:80")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d, _ := strconv.Atoi(r.URL.Query().Get("ms"))
			select {
			case <-time.After(time.Duration(d) * time.Millisecond):
			case <-r.Context().Done():
			}
		})}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()

		sets := 0
		dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := n.Dial(ctx, network, addr)
			return deadlineCounter{c, &sets}, err
		}
		const timeout = 100 * time.Millisecond
		s := &Attempts{Timeout: timeout, Origin: time.Now()}
		ep, err := NewEndpoint("http://target:80/", dial, nil)
		if err != nil {
			t.Fatal(err)
		}
		l := NewLink(ep)
		defer l.close()
		for i, tc := range []struct {
			idle time.Duration // before the attempt
			ms   int           // the server's delay
			want results.Outcome
			sets int // read deadlines the attempt set
		}{
			{0, 30, results.OK, 1},                     // sent at 0: deadline 100 ms
			{0, 30, results.OK, 0},                     // at 30 ms: keeps 100 ms
			{0, 80, results.OK, 1},                     // at 60 ms: resumed at the kept 100 ms with its own 160 ms
			{0, 500, results.Timeout, 1},               // at 140 ms: resumed at 160 ms with 240 ms, times out then
			{0, 10, results.OK, 1},                     // at 240 ms: a new connection (a timeout closes it), 340 ms
			{0, 95, results.OK, 1},                     // at 250 ms: resumed at 340 ms with 350 ms
			{20 * time.Millisecond, 10, results.OK, 1}, // at 365 ms: the kept 350 ms has passed
			{0, 500, results.Timeout, 1},               // at 375 ms: resumed at 465 ms, times out at its own 475 ms
			{0, 0, results.OK, 1},                      // at 475 ms: a new connection
		} {
			time.Sleep(tc.idle)
			before := sets
			req := []byte("GET /?ms=" + strconv.Itoa(tc.ms) + " HTTP/1.1\r\nHost: target\r\nContent-Length: 0\r\n\r\n")
			sent, end, o, _, _, _ := s.Send(context.Background(), l, req)
			latency := time.Duration(tc.ms) * time.Millisecond
			if o == results.Timeout {
				latency = timeout
			}
			if o != tc.want || end-sent != latency {
				t.Errorf("attempt %d (server delay %d ms): %s after %s, want %s after %s", i+1, tc.ms, o, end-sent, tc.want, latency)
			}
			if got := sets - before; got != tc.sets {
				t.Errorf("attempt %d (sent at %s): %d read deadlines set, want %d", i+1, sent, got, tc.sets)
			}
		}
	})
}
