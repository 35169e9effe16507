package httpwire

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/clients"
)

// TestPlaceholdersFill: each placeholder as documented, the same bytes for
// the same seed, client and request, and a Content-Length that counts the
// filled body.
func TestPlaceholdersFill(t *testing.T) {
	ep, err := NewEndpoint("http://127.0.0.1:1/base/", nil, clients.NewMix([]clients.Request{{
		Method: "PUT", Path: "/users/{client}/r/{request}?n={rand:5:7}", Weight: 1,
		Header: []clients.Header{{Name: "Idempotency-Key", Value: "{uuid}"}},
		Body:   []byte(`{"id": "{uuid}", "lit": "{{x}"}`), FillBody: true,
	}}))
	if err != nil {
		t.Fatal(err)
	}
	fill := func(client, n int) string {
		f := clients.NewFiller(9, nil, client, n)
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

// TestFillAllocatesNothing: filling a request's placeholders into a reused
// buffer allocates nothing, so the shaped swarm's hot path stays as cheap
// as the probe's.
func TestFillAllocatesNothing(t *testing.T) {
	ep, err := NewEndpoint("http://127.0.0.1:1/", nil, clients.NewMix([]clients.Request{{
		Method: "POST", Path: "/orders/{client}/{request}?n={rand:1:1000}", Weight: 1,
		Header: []clients.Header{{Name: "Idempotency-Key", Value: "{uuid}"}},
		Body:   []byte(`{"item": {rand:1:1000}}`), FillBody: true,
	}}))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	n := 0
	allocs := testing.AllocsPerRun(100, func() {
		f := clients.NewFiller(1, nil, 7, n)
		buf = ep.reqs[0].fill(buf[:0], &f)
		n++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per fill, want 0", allocs)
	}
}

func BenchmarkFill(b *testing.B) {
	ep, err := NewEndpoint("http://127.0.0.1:1/", nil, clients.NewMix([]clients.Request{{
		Method: "POST", Path: "/orders/{client}", Weight: 1,
		Header: []clients.Header{{Name: "Idempotency-Key", Value: "{uuid}"}, {Name: "Content-Type", Value: "application/json"}},
		Body:   []byte(`{"item": {rand:1:1000}, "note": "a body of some length, as an API's would be"}`), FillBody: true,
	}}))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f := clients.NewFiller(1, nil, 7, i)
		buf = ep.reqs[0].fill(buf[:0], &f)
	}
}

// A request whose body has no placeholders is rendered once, Content-Length
// and body included, into literal runs around its placeholders: a fill
// writes them in one pass, and sends the same bytes as ever.
func TestFillPrerendersKnownLengths(t *testing.T) {
	ep, err := NewEndpoint("http://h:1/base/", nil, clients.NewMix([]clients.Request{
		{Method: "PUT", Path: "/users/{client}/{request}", Weight: 1, Header: []clients.Header{{Name: "X", Value: "y"}}, Body: []byte("hello {client}")},
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
		f := clients.NewFiller(0, nil, 7, 3)
		if got := string(w.fill(nil, &f)); got != want.bytes {
			t.Errorf("request %d: %q, want %q", i, got, want.bytes)
		}
		if w.sized != want.sized || w.head.Segments() != want.segments {
			t.Errorf("request %d: sized %v with %d head segments, want %v with %d", i, w.sized, w.head.Segments(), want.sized, want.segments)
		}
	}
}

// BenchmarkFillSized fills a request whose body has a known length (a
// file's, or an inline body without placeholders): one pass over its
// pre-rendered runs.
func BenchmarkFillSized(b *testing.B) {
	ep, err := NewEndpoint("http://127.0.0.1:1/", nil, clients.NewMix([]clients.Request{{
		Method: "PUT", Path: "/items/{rand:1:1000}", Weight: 1,
		Header: []clients.Header{{Name: "Content-Type", Value: "application/json"}},
		Body:   []byte(`{"name": "widget", "quantity": 3, "tags": ["ci", "nginx"]}` + "\n"),
	}}))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		f := clients.NewFiller(1, nil, 7, i)
		buf = ep.reqs[0].fill(buf[:0], &f)
	}
}
