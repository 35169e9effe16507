package control

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// serveAPI serves the control API of a held target on a loopback port,
// with token as its token ("" for none), and returns its URL.
func serveAPI(t *testing.T, token string) string {
	t.Helper()
	plan, err := chaos.NewPlan([]chaos.Timed{{Name: "down", Kind: "outage", At: time.Minute, For: time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := &memnet.Network{}
	srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Plan: plan, Hold: true, Config: model.Config{Concurrency: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	ts := httptest.NewUnstartedServer(nil)
	bound := netip.MustParseAddrPort(ts.Listener.Addr().String())
	ts.Config.Handler = Handler(Options{Server: srv, Access: Access{Bound: bound, Token: token}})
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL
}

func newClient(t *testing.T, url, token string) *Client {
	t.Helper()
	c, err := NewClient(context.Background(), url, ClientOptions{Token: token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestClient drives a target's control API through the client: status,
// start at a time, inject, stop, each answered with the server's status.
func TestClient(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, serveAPI(t, ""), "")
	st, err := c.Status(ctx)
	if err != nil || st.Role != "target" || st.PlanRunning || len(st.Plan) != 1 || st.Plan[0].Name != "down" {
		t.Fatalf("status: %+v, %v", st, err)
	}
	at := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	if st, err = c.Start(ctx, at, 0); err != nil || !st.PlanRunning || st.PlanStarted == nil || !st.PlanStarted.Equal(at) {
		t.Fatalf("start at %s: %+v, %v", at, st, err)
	}
	if st, err = c.Inject(ctx, map[string]string{"name": "slow", "kind": "blip", "delay": "100ms", "for": "5s"}); err != nil || len(st.ActiveFaults) != 1 || st.ActiveFaults[0] != "slow" {
		t.Fatalf("inject: %+v, %v", st, err)
	}
	if st, err = c.Stop(ctx); err != nil || st.PlanRunning || len(st.ActiveFaults) != 0 {
		t.Fatalf("stop: %+v, %v", st, err)
	}
	if st, err = c.Start(ctx, time.Time{}, 0); err != nil || !st.PlanRunning {
		t.Fatalf("start now: %+v, %v", st, err)
	}
	if st, err = c.Start(ctx, at, 1500*time.Millisecond); err != nil || !st.PlanRunning || !st.PlanStarted.Equal(at) {
		t.Fatalf("start at %s for a run of 1.5s: %+v, %v", at, st, err)
	}
}

// TestClientErrors: the API's refusals arrive as an *APIError with its
// message and problems; the token is sent when given.
func TestClientErrors(t *testing.T) {
	ctx := context.Background()
	url := serveAPI(t, "secret-token")
	_, err := newClient(t, url, "").Status(ctx)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized || !strings.Contains(err.Error(), "401 Unauthorized: this control API needs its token") {
		t.Fatalf("without the token: %v", err)
	}
	c := newClient(t, url, "secret-token")
	if _, err := c.Status(ctx); err != nil {
		t.Fatalf("with the token: %v", err)
	}
	_, err = c.Inject(ctx, map[string]string{"kind": "outage", "mode": "sideways", "for": "5s"})
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || len(ae.Problems) == 0 || !strings.Contains(err.Error(), "sideways") {
		t.Fatalf("a bad fault: %v", err)
	}
	if _, err := c.Inject(ctx, func() {}); err == nil || errors.As(err, &ae) {
		t.Fatalf("a fault that is not JSON: %v", err)
	}
	// Something other than a control API.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, "<html>hello</html>")
	}))
	defer other.Close()
	oc := newClient(t, other.URL, "")
	if _, err := oc.Status(ctx); err == nil || !strings.Contains(err.Error(), "is this a herdbench proxy or target control address?") {
		t.Errorf("an answer that is not a status: %v", err)
	}
	if _, err := oc.Stop(ctx); !errors.As(err, &ae) || ae.Status != http.StatusNotFound || !strings.Contains(err.Error(), "is this a herdbench proxy or target control address?") {
		t.Errorf("a 404 without the API's JSON: %v", err)
	}
}

// TestClientRefuses: URLs of the wrong shape and hosts off loopback are
// refused before any call, and a redirect is never followed.
func TestClientRefuses(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ url, want string }{
		{"https://127.0.0.1:8091", "plain http"},
		{"http://user:pw@127.0.0.1:8091", "without user"},
		{"http://127.0.0.1:8091/?q=1", "without user, query or fragment"},
		{"127.0.0.1:8091", "write the control API's address as http://HOST:PORT"},
		{"localhost:8091", "write the control API's address as http://HOST:PORT"},
		{"http://0.0.0.0:8091", "not on loopback"},
	} {
		if _, err := NewClient(ctx, c.url, ClientOptions{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewClient(%q): %v, want an error containing %q", c.url, err, c.want)
		}
	}
	if _, err := NewClient(ctx, "http://0.0.0.0:8091", ClientOptions{}); !errors.Is(err, netguard.ErrRemote) {
		t.Errorf("off loopback: %v, want netguard.ErrRemote", err)
	}
	if _, err := NewClient(ctx, "http://0.0.0.0:8091", ClientOptions{Guard: netguard.Guard{AllowRemote: true}}); err != nil {
		t.Errorf("off loopback, allowed: %v", err)
	}
	var elsewhere, redirects atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { elsewhere.Add(1) }))
	defer other.Close()
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		redirects.Add(1)
		http.Redirect(w, r, other.URL+"/control/start", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	_, err := newClient(t, redirecting.URL, "tok").Start(ctx, time.Time{}, 0)
	if err == nil || !strings.Contains(err.Error(), "answered with a redirect to "+other.URL+"/control/start") {
		t.Errorf("a redirect: %v", err)
	}
	if redirects.Load() != 1 || elsewhere.Load() != 0 {
		t.Errorf("asked the redirecting API %d times and where it pointed %d times; want once and never", redirects.Load(), elsewhere.Load())
	}
	// A dial is checked again at the address it connects to.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_ = ln.Close() // nothing listens there now
	if _, err := newClient(t, "http://"+ln.Addr().String(), "").Status(ctx); err == nil || !strings.Contains(err.Error(), "GET http://"+ln.Addr().String()+"/control/status") {
		t.Errorf("a closed port: %v", err)
	}
}
