package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/httpwire"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// fixture is a proxy in front of an httptest upstream, both on an in-memory
// network inside a synctest bubble, so the test measures times exactly.
type fixture struct {
	t      *testing.T
	net    *memnet.Network
	up     *httptest.Server
	proxy  *Proxy
	client *http.Client
	start  time.Time
	hits   int // requests the upstream received
}

func newFixture(t *testing.T, plan *chaos.Plan, upstreamDelay time.Duration) *fixture {
	f := &fixture{t: t, net: &memnet.Network{}, start: time.Now()}
	f.up = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits++
		if upstreamDelay > 0 {
			select {
			case <-time.After(upstreamDelay):
			case <-r.Context().Done():
				return
			}
		}
		_, _ = io.WriteString(w, "upstream "+r.URL.Path)
	}))
	ln, err := f.net.Listen("tcp", "upstream:80")
	if err != nil {
		t.Fatal(err)
	}
	f.up.Listener = ln
	f.up.Start()
	u, err := ParseUpstream(f.up.URL)
	if err != nil {
		t.Fatal(err)
	}
	upTransport := &http.Transport{DialContext: f.net.Dial}
	f.proxy, err = Start(Options{
		Addr: "proxy:80", Upstream: u, Plan: plan, RNG: seeds.Stream(1, seeds.Target),
		Transport: upTransport, Listen: f.net.Listen,
	})
	if err != nil {
		t.Fatal(err)
	}
	ct := &http.Transport{DialContext: f.net.Dial}
	f.client = &http.Client{Transport: ct}
	t.Cleanup(func() {
		ct.CloseIdleConnections()
		_ = f.proxy.Close()
		f.up.Close()
	})
	return f
}

// reply is what one request through the proxy got, and when.
type reply struct {
	sent, took time.Duration
	status     int
	retryAfter string
	outcome    results.Outcome
}

// send sends a POST through the proxy at elapsed time at (waiting until
// then), with an optional client timeout.
func (f *fixture) send(at, timeout time.Duration) reply {
	f.t.Helper()
	time.Sleep(time.Until(f.start.Add(at)))
	// Let the proxy apply a plan edge falling at this very instant (its
	// plan goroutine wakes at the same time) before the request goes out.
	synctest.Wait()
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://proxy:80/work", http.NoBody)
	if err != nil {
		f.t.Fatal(err)
	}
	sent := time.Since(f.start)
	r := reply{sent: sent}
	resp, err := f.client.Do(req)
	if err != nil {
		r.took, r.outcome = time.Since(f.start)-sent, httpwire.Classify(err)
		return r
	}
	_, err = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	r.took, r.status, r.retryAfter = time.Since(f.start)-sent, resp.StatusCode, resp.Header.Get("Retry-After")
	r.outcome = results.FromStatus(resp.StatusCode)
	if err != nil {
		r.outcome = httpwire.Classify(err)
	}
	return r
}

func mustPlan(t *testing.T, faults ...chaos.Timed) *chaos.Plan {
	t.Helper()
	p, err := chaos.NewPlan(faults, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProxyAppliesOutageAndLatencyAtPlannedTimes puts the proxy in front of
// an httptest upstream with a plan of added latency, then a 503 outage with
// Retry-After, and checks each request's answer and exact duration (on the
// synctest clock) before, during and after each fault.
func TestProxyAppliesOutageAndLatencyAtPlannedTimes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := mustPlan(t,
			chaos.Timed{Name: "slow", Kind: "blip", At: 1 * time.Second, For: time.Second, Fault: chaos.Blip{Delay: dist.Const(200 * time.Millisecond)}},
			chaos.Timed{Name: "down", Kind: "outage", At: 3 * time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable, RetryAfter: 2 * time.Second}},
		)
		f := newFixture(t, plan, 0)
		cases := []struct {
			at         time.Duration
			status     int
			took       time.Duration
			retryAfter string
		}{
			{500 * time.Millisecond, 200, 0, ""},
			{999 * time.Millisecond, 200, 0, ""},
			{1 * time.Second, 200, 200 * time.Millisecond, ""}, // the blip starts
			{1500 * time.Millisecond, 200, 200 * time.Millisecond, ""},
			{2 * time.Second, 200, 0, ""}, // and ends
			{3 * time.Second, 503, 0, "2"},
			{3900 * time.Millisecond, 503, 0, "2"},
			{4 * time.Second, 200, 0, ""},
		}
		hits := 0
		for _, c := range cases {
			r := f.send(c.at, 0)
			if r.status != c.status || r.took != c.took || r.retryAfter != c.retryAfter {
				t.Errorf("request at %s: status %d after %s, Retry-After %q; want %d after %s, Retry-After %q",
					c.at, r.status, r.took, r.retryAfter, c.status, c.took, c.retryAfter)
			}
			if c.status == 200 {
				hits++
			}
		}
		if f.hits != hits {
			t.Errorf("upstream saw %d requests, want %d (the outage's answers never reach it)", f.hits, hits)
		}
		a := f.proxy.Counters().Answers()
		if a[0] != int64(hits) || a[3] != int64(len(cases)-hits) {
			t.Errorf("answer counters %v; want %d ok and %d 5xx", a, hits, len(cases)-hits)
		}
	})
}

// TestProxyConnectionFaults checks the connection-level faults on the
// client's connection: a reset outage resets a request in flight at the
// instant it begins and new ones during it; a refuse outage refuses
// connections; a blackhole holds a request until the client's timeout.
func TestProxyConnectionFaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan := mustPlan(t,
			chaos.Timed{Name: "crash", Kind: "outage", At: 1 * time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Reset}},
			chaos.Timed{Name: "gone", Kind: "outage", At: 3 * time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Refuse}},
			chaos.Timed{Name: "stall", Kind: "blip", At: 5 * time.Second, For: time.Second, Fault: chaos.Blip{Blackhole: true}},
		)
		f := newFixture(t, plan, 300*time.Millisecond)
		cases := []struct {
			at, timeout time.Duration
			outcome     results.Outcome
			took        time.Duration
		}{
			{0, 0, results.OK, 300 * time.Millisecond},
			{800 * time.Millisecond, 0, results.Reset, 200 * time.Millisecond}, // in flight when the crash begins at 1s
			{1500 * time.Millisecond, 0, results.Reset, 0},
			{2 * time.Second, 0, results.OK, 300 * time.Millisecond},
			{3500 * time.Millisecond, 0, results.Refused, 0},
			{4 * time.Second, 0, results.OK, 300 * time.Millisecond},
			{5200 * time.Millisecond, 500 * time.Millisecond, results.Timeout, 500 * time.Millisecond},
			{6 * time.Second, 500 * time.Millisecond, results.OK, 300 * time.Millisecond},
		}
		for _, c := range cases {
			r := f.send(c.at, c.timeout)
			if r.outcome != c.outcome || r.took != c.took {
				t.Errorf("request at %s: %s after %s; want %s after %s", c.at, r.outcome, r.took, c.outcome, c.took)
			}
		}
	})
}

// TestProxyIsNotAnOpenRelay sends requests naming other hosts (an absolute
// URI, a Host header) and a CONNECT: the first two reach the upstream, the
// CONNECT is refused.
func TestProxyIsNotAnOpenRelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t, nil, 0)
		for _, target := range []string{"http://elsewhere.example/secret", "/path"} {
			req, _ := http.NewRequest(http.MethodPost, "http://proxy:80/", http.NoBody)
			req.Host = "elsewhere.example"
			if strings.HasPrefix(target, "http") {
				// An absolute-form request line, as an HTTP proxy client sends.
				req.URL.Opaque = target
			} else {
				req.URL.Path = target
			}
			resp, err := f.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "upstream /") {
				t.Errorf("request for %s: %d %q; want the upstream's answer", target, resp.StatusCode, body)
			}
		}
		req, _ := http.NewRequest(http.MethodConnect, "http://proxy:80", http.NoBody)
		req.Host = "elsewhere.example:443"
		resp, err := f.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("CONNECT: %d, want 405", resp.StatusCode)
		}
		if f.hits != 2 {
			t.Errorf("upstream saw %d requests, want 2", f.hits)
		}
	})
}

func TestParseUpstream(t *testing.T) {
	for _, c := range []struct {
		raw string
		ok  bool
	}{
		{"http://127.0.0.1:9000", true},
		{"https://staging.internal/api", true},
		{"ftp://x", false},
		{"127.0.0.1:9000", false},
		{"http://", false},
		{"http://x/?q=1", false},
		{"http://u:p@x/", false},
	} {
		_, err := ParseUpstream(c.raw)
		if (err == nil) != c.ok {
			t.Errorf("ParseUpstream(%q): err %v, want ok=%v", c.raw, err, c.ok)
		}
	}
}

// TestUpstreamWithoutSchemeSaysHowToWriteIt: the commonest slip, a host and
// port without http://, is answered with the URL to write.
func TestUpstreamWithoutSchemeSaysHowToWriteIt(t *testing.T) {
	for raw, want := range map[string]string{
		"127.0.0.1:9000":   "write the scheme too: http://127.0.0.1:9000 (or https://127.0.0.1:9000)",
		"localhost:9000":   "write the scheme too: http://localhost:9000",
		"staging.internal": "write the scheme too: http://staging.internal",
	} {
		if _, err := ParseUpstream(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseUpstream(%q): %v; want an error saying %q", raw, err, want)
		}
	}
}

func TestBrownoutIsRefused(t *testing.T) {
	p := mustPlan(t, chaos.Timed{Name: "cut", Kind: "brownout", At: time.Second, For: time.Second, Fault: chaos.Brownout{Capacity: 0.5}})
	if err := CheckPlan(p); err == nil || !strings.Contains(err.Error(), "brownout") {
		t.Fatalf("CheckPlan: %v, want a brownout error", err)
	}
}

// TestMaxInFlight: past MaxInFlight requests forwarded and as many waiting,
// a request is answered 503 at once, marked as the proxy's own; the waiting
// ones are forwarded as places free up.
func TestMaxInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		var hits atomic.Int64
		up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			time.Sleep(time.Second)
			_, _ = io.WriteString(w, "ok")
		}))
		ln, err := n.Listen("tcp", "upstream:80")
		if err != nil {
			t.Fatal(err)
		}
		up.Listener = ln
		up.Start()
		defer up.Close()
		u, _ := ParseUpstream(up.URL)
		p, err := Start(Options{Addr: "proxy:80", Upstream: u, Transport: &http.Transport{DialContext: n.Dial}, Listen: n.Listen, MaxInFlight: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		ct := &http.Transport{DialContext: n.Dial}
		defer ct.CloseIdleConnections()
		client := &http.Client{Transport: ct}
		start := time.Now()
		type answer struct {
			status int
			at     time.Duration
			header string
		}
		answers := make(chan answer, 5)
		for i := range 5 {
			go func() {
				time.Sleep(time.Duration(i) * time.Millisecond) // in this order
				resp, err := client.Post("http://proxy:80/", "text/plain", nil)
				if err != nil {
					answers <- answer{}
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answers <- answer{resp.StatusCode, time.Since(start), resp.Header.Get("X-Herdbench-Proxy")}
			}()
		}
		got := map[answer]int{}
		for range 5 {
			got[<-answers]++
		}
		want := map[answer]int{
			{503, 4 * time.Millisecond, "overloaded"}:   1,
			{200, time.Second, ""}:                      1,
			{200, time.Second + time.Millisecond, ""}:   1,
			{200, 2 * time.Second, ""}:                  1, // waited for the first place
			{200, 2*time.Second + time.Millisecond, ""}: 1,
		}
		if len(got) != len(want) {
			t.Errorf("answers %v, want %v", got, want)
		}
		for a, n := range want {
			if got[a] != n {
				t.Errorf("answers %v, want %v", got, want)
				break
			}
		}
		if p.Overloaded() != 1 || hits.Load() != 4 {
			t.Errorf("overloaded %d, upstream hits %d; want 1 and 4", p.Overloaded(), hits.Load())
		}
	})
}

func TestProxyConnectionCap(t *testing.T) {
	if l := (Options{}).limits(); l.MaxConns > DefaultMaxConns || l.MaxConns < 1 || l.ReadHeaderTimeout <= 0 || l.IdleTimeout <= 0 {
		t.Errorf("default limits %+v: want at most %d connections and both timeouts", l, DefaultMaxConns)
	}
	if l := (Options{MaxConns: 20000}).limits(); l.MaxConns != 20000 {
		t.Errorf("MaxConns 20000: limits %+v", l)
	}
}

// cut is a fault kind that only this test knows: it cuts the target's
// capacity, which the proxy cannot do to a real service.
type cut struct{}

func (cut) Apply(e *chaos.Effect) { e.Capacity *= 0.5 }

// cutBody truncates served bodies, an effect the proxy does not list:
// deny-by-default, it is refused.
type cutBody struct{}

func (cutBody) Apply(e *chaos.Effect) { e.Truncate = 0.5 }

// TestCheckFaultDecidesOnEffects: the proxy refuses a fault by what it
// does, whatever its kind, and takes every fault it can apply.
func TestCheckFaultDecidesOnEffects(t *testing.T) {
	err := CheckFault(chaos.Timed{Name: "halve", Kind: "cut", For: time.Second, Fault: cut{}})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `fault "halve" (cut)`) {
		t.Errorf("CheckFault(a capacity cut) = %v; want ErrUnsupported naming the fault and its kind", err)
	}
	err = CheckFault(chaos.Timed{Name: "short", Kind: "cut-body", For: time.Second, Fault: cutBody{}})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "truncate effect") {
		t.Errorf("CheckFault(a truncated body) = %v; want ErrUnsupported naming the effect the proxy does not list", err)
	}
	for _, f := range []chaos.Fault{chaos.Outage{Mode: chaos.Reset}, chaos.Blip{Blackhole: true}, chaos.ErrorRate{Rate: 1, Status: 429, RetryAfter: time.Second}} {
		if err := CheckFault(chaos.Timed{Name: "f", For: time.Second, Fault: f}); err != nil {
			t.Errorf("CheckFault(%#v) = %v", f, err)
		}
	}
}

// The proxy's refusal of an upstream with a user and password quoted the
// URL whole, password included; so did its other refusals of such a URL.
func TestParseUpstreamNeverQuotesAPassword(t *testing.T) {
	for _, raw := range []string{"http://alice:pw-s3cret@127.0.0.1:9000", "alice:pw-s3cret@127.0.0.1:9000", "ftp://alice:pw-s3cret@127.0.0.1/",
		"http://alice:pw-s3cret@127.0.0.1/?q=1", "http://alice:pw-s3cret@127.0.0.1:99x/"} {
		_, err := ParseUpstream(raw)
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "alice:xxxxx@") {
			t.Errorf("ParseUpstream(%q): %v", raw, err)
		}
	}
}
