package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
)

// flaky is an upstream that answers each request with the next status of
// a script (the last one for ever after), hanging instead on a 0, and
// keeps what it saw.
type flaky struct {
	mu     sync.Mutex
	script []int
	bodies []string
	paths  []string
	at     []time.Duration
	start  time.Time
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, string(b))
	f.paths = append(f.paths, r.URL.Path)
	f.at = append(f.at, time.Since(f.start))
	status := f.script[min(n, len(f.script)-1)]
	f.mu.Unlock()
	if status == 0 {
		<-r.Context().Done()
		return
	}
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "2")
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, "answer "+http.StatusText(status))
}

// retryFixture runs fn with a retrying proxy (strategy s) in front of an
// upstream following script, on an in-memory network in a bubble.
func retryFixture(t *testing.T, s *clients.Strategy, script []int, fn func(client *http.Client, up *flaky, p *Proxy, n *memnet.Network)) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		up := &flaky{script: script, start: time.Now()}
		srv := httptest.NewUnstartedServer(up)
		ln, err := n.Listen("tcp", "upstream:80")
		if err != nil {
			t.Fatal(err)
		}
		srv.Listener = ln
		srv.Start()
		defer srv.Close()
		u, err := ParseUpstream(srv.URL + "/base")
		if err != nil {
			t.Fatal(err)
		}
		upTransport := &http.Transport{DialContext: n.Dial}
		defer upTransport.CloseIdleConnections()
		p, err := Start(Options{Addr: "proxy:80", Upstream: u, Transport: upTransport, Listen: n.Listen, Retry: s, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ct := &http.Transport{DialContext: n.Dial}
		defer ct.CloseIdleConnections()
		fn(&http.Client{Transport: ct}, up, p, n)
	})
}

// put sends a PUT (idempotent: the strategy may retry it) through the
// proxy and returns the answer's status, its body and how long it took.
func put(t *testing.T, c *http.Client, body string) (int, string, time.Duration) {
	t.Helper()
	return send(t, c, http.MethodPut, body, nil)
}

// send sends a request of method with body and headers through the proxy.
func send(t *testing.T, c *http.Client, method, body string, header http.Header) (int, string, time.Duration) {
	t.Helper()
	start := time.Now()
	req, err := http.NewRequest(method, "http://proxy:80/call?x=1", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), time.Since(start)
}

var constant = clients.Backoff{Shape: clients.Constant, Base: 100 * time.Millisecond, Multiplier: 2}

// TestRetryingProxyRetriesUntilSuccess: two 503s, then 200: the client
// gets the 200, 200 ms later (two waits of 100 ms), and the upstream saw
// three attempts of the same request, body included.
func TestRetryingProxyRetriesUntilSuccess(t *testing.T) {
	s := &clients.Strategy{Name: "p", Backoff: constant, MaxAttempts: 4}
	retryFixture(t, s, []int{503, 503, 200}, func(c *http.Client, up *flaky, p *Proxy, _ *memnet.Network) {
		status, body, took := put(t, c, "payload")
		if status != 200 || body != "answer OK" || took != 200*time.Millisecond {
			t.Errorf("got %d %q after %s, want 200 after 200ms", status, body, took)
		}
		if len(up.bodies) != 3 || up.bodies[0] != "payload" || up.bodies[2] != "payload" || up.paths[2] != "/base/call" {
			t.Errorf("the upstream saw %q on %q", up.bodies, up.paths)
		}
		if a, r, g := p.Retries(); a != 3 || r != 2 || g != 0 {
			t.Errorf("Retries() = %d, %d, %d; want 3 attempts, 2 retries, none given up", a, r, g)
		}
	})
}

// TestRetryingProxyGivesUp: an upstream that always fails: after
// max_attempts, the client gets the last failure as the upstream sent it.
func TestRetryingProxyGivesUp(t *testing.T) {
	s := &clients.Strategy{Name: "p", Backoff: constant, MaxAttempts: 3}
	retryFixture(t, s, []int{500}, func(c *http.Client, up *flaky, p *Proxy, _ *memnet.Network) {
		status, body, _ := put(t, c, "")
		if status != 500 || body != "answer Internal Server Error" || len(up.bodies) != 3 {
			t.Errorf("got %d %q after %d upstream attempts; want the upstream's 500 after 3", status, body, len(up.bodies))
		}
		if a, r, g := p.Retries(); a != 3 || r != 2 || g != 1 {
			t.Errorf("Retries() = %d, %d, %d", a, r, g)
		}
	})
}

// TestRetryingProxyPassesClientErrors: a 404 is the request's own fault:
// passed back at once, never retried.
func TestRetryingProxyPassesClientErrors(t *testing.T) {
	s := &clients.Strategy{Name: "p", Backoff: constant, MaxAttempts: 4}
	retryFixture(t, s, []int{404, 200}, func(c *http.Client, up *flaky, p *Proxy, _ *memnet.Network) {
		status, _, took := put(t, c, "")
		if status != 404 || len(up.bodies) != 1 || took != 0 {
			t.Errorf("got %d after %s and %d upstream attempts; want 404 at once, one attempt", status, took, len(up.bodies))
		}
	})
}

// TestRetryingProxyRetriesNonIdempotentOnlyWhenSafe: a retrying proxy
// follows the swarm's rule for a method that is not idempotent (POST,
// PATCH): sent once, its failure passed back, unless the strategy says
// retry_non_idempotent or the request carries the strategy's
// idempotency-key header; an idempotent method is retried.
func TestRetryingProxyRetriesNonIdempotentOnlyWhenSafe(t *testing.T) {
	key := http.Header{"Idempotency-Key": {"k-1"}}
	for _, c := range []struct {
		name      string
		method    string
		header    http.Header
		retryNonI bool
		idemName  string
		attempts  int
	}{
		{"POST", http.MethodPost, nil, false, "", 1},
		{"PATCH", http.MethodPatch, nil, false, "", 1},
		{"POST with Idempotency-Key", http.MethodPost, key, false, "", 3},
		{"POST, retry_non_idempotent", http.MethodPost, nil, true, "", 3},
		{"POST with another header than the strategy's", http.MethodPost, key, false, "X-Request-Id", 1},
		{"POST with the strategy's header", http.MethodPost, http.Header{"X-Request-Id": {"r-1"}}, false, "X-Request-Id", 3},
		{"PUT", http.MethodPut, nil, false, "", 3},
		{"DELETE", http.MethodDelete, nil, false, "", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &clients.Strategy{Name: "p", Backoff: constant, MaxAttempts: 3, RetryNonIdempotent: c.retryNonI, IdempotencyHeader: c.idemName}
			retryFixture(t, s, []int{503}, func(client *http.Client, up *flaky, p *Proxy, _ *memnet.Network) {
				status, _, _ := send(t, client, c.method, "order", c.header)
				if status != http.StatusServiceUnavailable || len(up.bodies) != c.attempts {
					t.Errorf("got %d after %d upstream attempts; want the upstream's 503 after %d", status, len(up.bodies), c.attempts)
				}
				if a, r, g := p.Retries(); a != int64(c.attempts) || r != int64(c.attempts-1) || g != 1 {
					t.Errorf("Retries() = %d, %d, %d; want %d attempts, %d retries, 1 given up", a, r, g, c.attempts, c.attempts-1)
				}
			})
		})
	}
}

// TestRetryingProxyTimeoutAndPushback: the first attempt hangs and is cut
// by the per-attempt timeout (300 ms); the second gets a 429 with
// Retry-After: 2, which the strategy honors; the third succeeds.
func TestRetryingProxyTimeoutAndPushback(t *testing.T) {
	s := &clients.Strategy{Name: "p", Backoff: constant, MaxAttempts: 4, Timeout: 300 * time.Millisecond, RetryAfter: clients.RetryAfter{Honor: true}}
	retryFixture(t, s, []int{0, 429, 200}, func(c *http.Client, up *flaky, p *Proxy, _ *memnet.Network) {
		status, _, took := put(t, c, "")
		// 300 ms timeout, 100 ms backoff, the 429 at once, 2 s pushback.
		if status != 200 || took != 2400*time.Millisecond {
			t.Errorf("got %d after %s; want 200 after 2.4s", status, took)
		}
		want := []time.Duration{0, 400 * time.Millisecond, 2400 * time.Millisecond}
		if len(up.at) != 3 || up.at[1] != want[1] || up.at[2] != want[2] {
			t.Errorf("upstream attempts at %v, want %v", up.at, want)
		}
	})
}

// TestRetryingProxyPlaysAMiddleTier: herdbench's swarm -> retrying proxy
// -> service: with 4 attempts at each of 5 clients and 4 at the proxy, a
// service that fails every attempt sees 16 per request, 80 in all.
func TestRetryingProxyPlaysAMiddleTier(t *testing.T) {
	// The swarm's probe is a bodiless POST: a tier retries it (the
	// compiled strategy of a tier has RetryNonIdempotent set).
	s := &clients.Strategy{Name: "p", Backoff: constant, MaxAttempts: 4, RetryNonIdempotent: true}
	retryFixture(t, s, []int{503}, func(_ *http.Client, up *flaky, p *Proxy, n *memnet.Network) {
		rec := results.NewRecorder(10*time.Second, 1)
		sw := &swarm.Swarm{
			URL: "http://proxy:80/", Strategy: &clients.Strategy{Name: "edge", Backoff: constant, MaxAttempts: 4},
			Workload: &clients.Workload{Kind: clients.OneShot, Clients: 5}, Seed: 1,
			Origin: time.Now(), Duration: 10 * time.Second, Rec: rec, Dial: n.Dial,
		}
		sw.Run(context.Background())
		if live := rec.Live(); live.Attempts != 20 || live.Failed != 5 {
			t.Errorf("the clients: %d attempts, %d requests failed; want 20 and 5", live.Attempts, live.Failed)
		}
		if len(up.bodies) != 80 || up.paths[0] != "/base/" {
			t.Errorf("the service saw %d attempts (paths %v), want 5 × 4 × 4 = 80 on /base/", len(up.bodies), up.paths[:1])
		}
		if a, r, g := p.Retries(); a != 80 || r != 60 || g != 20 {
			t.Errorf("Retries() = %d, %d, %d; want 80, 60, 20", a, r, g)
		}
	})
}

// TestRetryingProxyClientGoesAway: a client that gives up while the
// proxy's attempt hangs cancels the attempt; the request is not counted
// as given up by the proxy, which answered nothing.
func TestRetryingProxyClientGoesAway(t *testing.T) {
	s := &clients.Strategy{Name: "p", Backoff: constant, MaxAttempts: 4}
	retryFixture(t, s, []int{0}, func(c *http.Client, up *flaky, p *Proxy, _ *memnet.Network) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://proxy:80/call", nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			t.Fatalf("got %d, want the client's own deadline", resp.StatusCode)
		}
		synctest.Wait()
		if a, r, g := p.Retries(); a != 1 || r != 0 || g != 0 {
			t.Errorf("Retries() = %d, %d, %d; want 1 attempt, no retry, none given up", a, r, g)
		}
		if len(up.bodies) != 1 {
			t.Errorf("the upstream saw %d attempts, want 1", len(up.bodies))
		}
	})
}
