package swarm

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
)

const ms = time.Millisecond

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
	mix := clients.NewMix([]clients.Request{
		{Method: "GET", Path: "/a", Weight: 3, Retry: true},
		{Method: "PUT", Path: "/b", Weight: 1, Retry: true, Header: []clients.Header{{Name: "X-Key", Value: "{uuid}"}}, Body: []byte("hello")},
	})
	// No per-attempt timeout, and a run far longer than its one-shot
	// requests take (it ends when they have): on a busy machine nothing is
	// retried but the 503s.
	s := &clients.Strategy{Name: "x", Backoff: clients.Backoff{Shape: clients.Constant, Base: ms, Cap: ms}, MaxAttempts: 2, Requests: mix}
	w := &clients.Workload{Kind: clients.OneShot, Clients: 200}
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
