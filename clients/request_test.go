package clients

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/wire"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// TestRetryRules: retry_on, success and idempotency decide whether a failed
// attempt is retried; the zero values retry every failure, as before.
func TestRetryRules(t *testing.T) {
	on := func(items ...string) RetryOn {
		var r RetryOn
		for _, it := range items {
			if !r.Add(it) {
				t.Fatalf("Add(%q) refused", it)
			}
		}
		return r
	}
	post := NewMix([]Request{{Method: "POST", Path: "/", Weight: 1}})
	keyed := NewMix([]Request{{Method: "POST", Path: "/", Weight: 1, Retry: true}})
	for _, c := range []struct {
		name    string
		s       Strategy
		outcome results.Outcome
		status  int
		retried bool
		ok      bool
	}{
		{"default retries a 503", Strategy{}, results.HTTP5xx, 503, true, false},
		{"default retries a 404", Strategy{}, results.HTTP4xx, 404, true, false},
		{"default retries a reset", Strategy{}, results.Reset, 0, true, false},
		{"5xx retries a 503", Strategy{RetryOn: on("5xx")}, results.HTTP5xx, 503, true, false},
		{"5xx leaves a 429", Strategy{RetryOn: on("5xx")}, results.HTTP429, 429, false, false},
		{"5xx leaves a reset", Strategy{RetryOn: on("5xx")}, results.Reset, 0, false, false},
		{"reset retries a reset", Strategy{RetryOn: on("5xx", "reset")}, results.Reset, 0, true, false},
		{"503 leaves a 500", Strategy{RetryOn: on("503")}, results.HTTP5xx, 500, false, false},
		{"gateway-error retries a 504", Strategy{RetryOn: on("gateway-error")}, results.HTTP5xx, 504, true, false},
		{"timeout", Strategy{RetryOn: on("timeout")}, results.Timeout, 0, true, false},
		{"a POST is not retried", Strategy{Requests: post}, results.HTTP5xx, 503, false, false},
		{"a keyed POST is retried", Strategy{Requests: keyed}, results.HTTP5xx, 503, true, false},
		{"404 as success", Strategy{Success: Success{Set: true, Statuses: statusesOf(t, "2xx", "404")}}, results.HTTP4xx, 404, false, true},
		{"a 204 outside success fails", Strategy{Success: Success{Set: true, Statuses: statusesOf(t, "200")}}, results.OK, 204, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			s.Backoff = Backoff{Shape: Constant, Base: 10 * ms, Cap: 10 * ms}
			s.MaxAttempts = 3
			sink := &fakeSink{}
			cl := NewClient(0, &s, &Workload{Kind: OneShot, Clients: 1}, time.Minute, seeds.Stream(1, 0), sink)
			cl.Traffic(1)
			cl.Begin()
			a := cl.Result(Reply{Latency: ms, Outcome: c.outcome, Status: c.status})
			if got := a.Op == Send; got != c.retried {
				t.Errorf("retried = %v, want %v (%+v)", got, c.retried, a)
			}
			if got := sink.attempts[0].Outcome == results.OK; got != c.ok {
				t.Errorf("recorded outcome %v, want ok = %v", sink.attempts[0].Outcome, c.ok)
			}
		})
	}
}

func statusesOf(t *testing.T, items ...string) statusSet {
	var s Success
	for _, it := range items {
		if !s.AddSuccess(it) {
			t.Fatalf("AddSuccess(%q) refused", it)
		}
	}
	return s.Statuses
}

// TestPlaceholdersFill: each placeholder as documented, the same bytes for
// the same seed, client and request, and a Content-Length that counts the
// filled body.
func TestPlaceholdersFill(t *testing.T) {
	ep, err := newEndpoint("http://127.0.0.1:1/base/", nil, NewMix([]Request{{
		Method: "PUT", Path: "/users/{client}/r/{request}?n={rand:5:7}", Weight: 1,
		Header: []Header{{Name: "Idempotency-Key", Value: "{uuid}"}},
		Body:   []byte(`{"id": "{uuid}", "lit": "{{x}"}`), FillBody: true,
	}}))
	if err != nil {
		t.Fatal(err)
	}
	fill := func(client, n int) string {
		f := filler{client: client, n: n}
		requestStream(&f.src, 9, client, n)
		return string(ep.reqs[0].fill(nil, &f))
	}
	a := fill(3, 4)
	if a != fill(3, 4) {
		t.Fatal("the same client and request filled differently")
	}
	if a == fill(3, 5) {
		t.Error("two requests of a client filled alike")
	}
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(a)))
	if err != nil {
		t.Fatalf("not a request: %v\n%s", err, a)
	}
	if !regexp.MustCompile(`^/base/users/3/r/4\?n=[5-7]$`).MatchString(req.RequestURI) {
		t.Errorf("request URI %q", req.RequestURI)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	key := req.Header.Get("Idempotency-Key")
	if !uuid.MatchString(key) {
		t.Errorf("{uuid} gave %q", key)
	}
	body, _ := io.ReadAll(req.Body)
	if !regexp.MustCompile(`^\{"id": "[0-9a-f-]{36}", "lit": "\{x\}"\}$`).Match(body) || bytes.Contains(body, []byte(key)) {
		t.Errorf("body %s (the second {uuid} must be a fresh draw)", body)
	}
	seen := map[string]bool{}
	for n := range 200 {
		r, _ := http.ReadRequest(bufio.NewReader(strings.NewReader(fill(0, n))))
		seen[r.URL.Query().Get("n")] = true
	}
	if len(seen) != 3 || !seen["5"] || !seen["7"] {
		t.Errorf("{rand:5:7} drew %v, want 5, 6 and 7", seen)
	}
}

// TestSwarmSendsTheMix: the real swarm sends each request of a mix as
// written, in the shares of its weights, and resends a retried request's
// bytes unchanged.
// The same mix over h2c, ten clients to a connection: HTTP/2 sends the
// very requests HTTP/1.1 does (method, path, headers, body).
func TestSwarmSendsTheMix(t *testing.T) {
	for _, proto := range []wire.Protocol{wire.HTTP1, wire.H2C} {
		t.Run(proto.String(), func(t *testing.T) { sendsTheMix(t, proto) })
	}
}

func sendsTheMix(t *testing.T, proto wire.Protocol) {
	var mu sync.Mutex
	got := map[string][]string{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if (r.ProtoMajor == 2) != proto.HTTP2() {
			t.Errorf("%s request over %s", r.Proto, proto)
		}
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.Method+" "+r.URL.Path] = append(got[r.Method+" "+r.URL.Path], r.Header.Get("X-Key")+"|"+string(b))
		mu.Unlock()
		if r.Method == "PUT" {
			w.WriteHeader(503) // retried: PUT is idempotent
		}
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetHTTP1(true)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	mix := NewMix([]Request{
		{Method: "GET", Path: "/a", Weight: 3, Retry: true},
		{Method: "PUT", Path: "/b", Weight: 1, Retry: true, Header: []Header{{Name: "X-Key", Value: "{uuid}"}}, Body: []byte("hello")},
	})
	// No per-attempt timeout, and a run far longer than its one-shot
	// requests take (it ends when they have): on a busy machine nothing is
	// retried but the 503s.
	s := &Strategy{Name: "x", Backoff: Backoff{Shape: Constant, Base: ms, Cap: ms}, MaxAttempts: 2, Requests: mix}
	w := &Workload{Kind: OneShot, Clients: 200}
	rec := results.NewRecorder(time.Minute, 1)
	sw := &Swarm{URL: srv.URL + "/", Strategy: s, Workload: w, Seed: 5, Origin: time.Now(), Duration: time.Minute, Rec: rec, Protocol: proto, Shared: 10}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sw.Run(ctx)
	gets, puts := len(got["GET /a"]), len(got["PUT /b"])
	if gets+puts/2 != 200 || puts%2 != 0 {
		t.Fatalf("%d GETs and %d PUT attempts; want 200 requests, every PUT sent twice (attempts by outcome: %v)", gets, puts, rec.Live().ByAttempt)
	}
	if puts/2 < 25 || puts/2 > 75 {
		t.Errorf("%d PUTs of 200 requests; weights 3:1 give about 50", puts/2)
	}
	keys := map[string]int{}
	for _, v := range got["PUT /b"] {
		if !strings.HasSuffix(v, "|hello") {
			t.Errorf("PUT body %q", v)
		}
		keys[v]++
	}
	for k, n := range keys {
		if n != 2 {
			t.Errorf("key %s sent %d times; a retry resends its request's bytes", k, n)
		}
	}
}

// TestFillAllocatesNothing: filling a request's placeholders into a reused
// buffer allocates nothing, so the shaped swarm's hot path stays as cheap
// as the probe's.
func TestFillAllocatesNothing(t *testing.T) {
	ep, err := newEndpoint("http://127.0.0.1:1/", nil, NewMix([]Request{{
		Method: "POST", Path: "/orders/{client}/{request}?n={rand:1:1000}", Weight: 1,
		Header: []Header{{Name: "Idempotency-Key", Value: "{uuid}"}},
		Body:   []byte(`{"item": {rand:1:1000}}`), FillBody: true,
	}}))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		f := filler{client: 7, n: n}
		requestStream(&f.src, 1, 7, n)
		buf = ep.reqs[0].fill(buf[:0], &f)
		n++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per fill, want 0", allocs)
	}
}

func BenchmarkFill(b *testing.B) {
	ep, err := newEndpoint("http://127.0.0.1:1/", nil, NewMix([]Request{{
		Method: "POST", Path: "/orders/{client}", Weight: 1,
		Header: []Header{{Name: "Idempotency-Key", Value: "{uuid}"}, {Name: "Content-Type", Value: "application/json"}},
		Body:   []byte(`{"item": {rand:1:1000}, "note": "a body of some length, as an API's would be"}`), FillBody: true,
	}}))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f := filler{client: 7, n: i}
		requestStream(&f.src, 1, 7, i)
		buf = ep.reqs[0].fill(buf[:0], &f)
	}
}

// A request whose body has no placeholders is rendered once, Content-Length
// and body included, into literal runs around its placeholders: a fill
// writes them in one pass, and sends the same bytes as ever.
func TestFillPrerendersKnownLengths(t *testing.T) {
	ep, err := newEndpoint("http://h:1/base/", nil, NewMix([]Request{
		{Method: "PUT", Path: "/users/{client}/{request}", Weight: 1, Header: []Header{{Name: "X", Value: "y"}}, Body: []byte("hello {client}")},
		{Method: "DELETE", Path: "/items/{request}", Weight: 1},
		{Method: "POST", Path: "/orders", Weight: 1, Body: []byte(`{"c": {client}}`), FillBody: true},
	}))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		bytes    string
		sized    bool
		segments int
	}{
		{"PUT /base/users/7/3 HTTP/1.1\r\nHost: h:1\r\nUser-Agent: herdbench\r\nX: y\r\nContent-Length: 14\r\n\r\nhello {client}", true, 5},
		{"DELETE /base/items/3 HTTP/1.1\r\nHost: h:1\r\nUser-Agent: herdbench\r\nContent-Length: 0\r\n\r\n", true, 3},
		{"POST /base/orders HTTP/1.1\r\nHost: h:1\r\nUser-Agent: herdbench\r\nContent-Length: 8\r\n\r\n{\"c\": 7}", false, 1},
	} {
		w := &ep.reqs[i]
		f := filler{client: 7, n: 3}
		if got := string(w.fill(nil, &f)); got != want.bytes {
			t.Errorf("request %d: %q, want %q", i, got, want.bytes)
		}
		if w.sized != want.sized || len(w.head) != want.segments {
			t.Errorf("request %d: sized %v with %d head segments, want %v with %d", i, w.sized, len(w.head), want.sized, want.segments)
		}
	}
}

// BenchmarkFillSized fills a request whose body has a known length (a
// file's, or an inline body without placeholders): one pass over its
// pre-rendered runs.
func BenchmarkFillSized(b *testing.B) {
	ep, err := newEndpoint("http://127.0.0.1:1/", nil, NewMix([]Request{{
		Method: "PUT", Path: "/items/{rand:1:1000}", Weight: 1,
		Header: []Header{{Name: "Content-Type", Value: "application/json"}},
		Body:   []byte(`{"name": "widget", "quantity": 3, "tags": ["ci", "nginx"]}` + "\n"),
	}}))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f := filler{client: 7, n: i}
		requestStream(&f.src, 1, 7, i)
		buf = ep.reqs[0].fill(buf[:0], &f)
	}
}

// TestMixWeightsThatOverflowKeepTheirShares: weights whose sum overflows a
// float64 (two of 1e308) keep their shares of the mix; summed as they
// were, every draw picked the last request.
func TestMixWeightsThatOverflowKeepTheirShares(t *testing.T) {
	for _, c := range []struct {
		weights []float64
		shares  []float64 // of 10,000 evenly spaced draws
	}{
		{[]float64{1e308, 1e308}, []float64{0.5, 0.5}},
		{[]float64{1.5e308, 0.5e308}, []float64{0.75, 0.25}},
		{[]float64{1e308, 1e308, 1e308, 1e308}, []float64{0.25, 0.25, 0.25, 0.25}},
		{[]float64{1.7e308, 1.7e308, 1e-300}, []float64{0.5, 0.5, 0}},
		{[]float64{1, 3}, []float64{0.25, 0.75}},
	} {
		reqs := make([]Request, len(c.weights))
		for i, w := range c.weights {
			reqs[i] = Request{Method: "GET", Path: "/", Weight: w}
		}
		m := NewMix(reqs)
		const draws = 10_000
		got := make([]int, len(reqs))
		for k := range draws {
			got[m.Pick((float64(k)+0.5)/draws)]++
		}
		for i, want := range c.shares {
			if share := float64(got[i]) / draws; share < want-0.001 || share > want+0.001 {
				t.Errorf("weights %v: request %d drawn %.4f of the time, want %.2f", c.weights, i, share, want)
			}
		}
	}
}
