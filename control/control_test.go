package control

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// local is the control address of the tests: requests to it carry its
// Host.
var local = Access{Bound: netip.MustParseAddrPort("127.0.0.1:8091")}

// call sends a request as curl or herdbench would: to the control address,
// JSON when it is a POST.
func call(t *testing.T, h http.Handler, method, path, body string) (int, Status, errorBody) {
	t.Helper()
	req := httptest.NewRequest(method, "http://127.0.0.1:8091"+path, strings.NewReader(body))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	return send(t, h, req)
}

func send(t *testing.T, h http.Handler, req *http.Request) (int, Status, errorBody) {
	t.Helper()
	method, path := req.Method, req.URL.Path
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var st Status
	var eb errorBody
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, rec.Body)
		}
	} else if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		_ = json.Unmarshal(rec.Body.Bytes(), &eb)
	}
	return rec.Code, st, eb
}

func TestControlAPI(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		plan, _ := chaos.NewPlan([]chaos.Timed{{Name: "down", Kind: "outage", At: 2 * time.Second, For: 3 * time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}}, 0)
		srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Plan: plan, Hold: true,
			Config: model.Config{Concurrency: 8, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Millisecond)}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var log []string
		h := Handler(Options{Server: srv, Notify: func(m string) { log = append(log, m) }, Access: local})

		code, st, _ := call(t, h, "GET", "/control/status", "")
		if code != 200 || st.Role != "target" || st.PlanRunning || st.PlanElapsedS != nil || len(st.Faults) != 0 || st.Model == nil || st.Model.Capacity != 8 ||
			len(st.Plan) != 1 || st.Plan[0] != (PlannedFault{Name: "down", Kind: "outage", AtS: 2, ForS: 3}) {
			t.Fatalf("status before start: %d %+v", code, st)
		}
		time.Sleep(time.Second)
		code, st, _ = call(t, h, "POST", "/control/start", "")
		if code != 200 || !st.PlanRunning || st.PlanElapsedS == nil || *st.PlanElapsedS != 0 || len(st.Faults) != 1 || st.Faults[0].StartsInS != 2 {
			t.Fatalf("start: %d %+v", code, st)
		}
		time.Sleep(2500 * time.Millisecond)
		_, st, _ = call(t, h, "GET", "/control/status", "")
		if len(st.ActiveFaults) != 1 || st.ActiveFaults[0] != "down" || *st.PlanElapsedS != 2.5 || !st.Faults[0].Active {
			t.Errorf("status during the outage: %+v", st)
		}
		code, st, _ = call(t, h, "POST", "/control/inject", `{"name":"slow","kind":"blip","delay":"100ms","at":"1s","for":"5s"}`)
		if code != 200 || len(st.Faults) != 2 || !st.Faults[1].Injected || st.Faults[1].StartsInS != 1 || st.Faults[1].EndsInS != 6 {
			t.Errorf("inject: %d %+v", code, st)
		}
		code, st, _ = call(t, h, "POST", "/control/stop", "")
		if code != 200 || st.PlanRunning || len(st.ActiveFaults) != 0 || len(st.Faults) != 0 {
			t.Errorf("stop: %d %+v", code, st)
		}
		code, _, eb := call(t, h, "POST", "/control/inject", `{"kind":"outage","mode":"down"}`)
		if code != 400 || len(eb.Problems) != 2 || !strings.Contains(strings.Join(eb.Problems, "\n"), "for: missing") || !strings.Contains(eb.Error, "the fault has 2 problems;") {
			t.Errorf("bad inject: %d %+v", code, eb)
		}
		code, _, eb = call(t, h, "POST", "/control/inject", `{"kind":"outage","mode":"503"}`)
		if code != 400 || len(eb.Problems) != 1 || !strings.Contains(eb.Error, "the fault has 1 problem;") {
			t.Errorf("inject with one problem: %d %+v; want \"the fault has 1 problem\", counted as spoken", code, eb)
		}
		code, _, eb = call(t, h, "POST", "/control/start", `{"at":"1999-01-01T00:00:00Z"}`)
		if code != 400 || !strings.Contains(eb.Error, "before the server started") {
			t.Errorf("start in the past: %d %+v", code, eb)
		}
		code, _, eb = call(t, h, "POST", "/control/start", `{"at":"`+time.Now().Add(25*time.Hour).UTC().Format(time.RFC3339)+`"}`)
		if code != 400 || !strings.Contains(eb.Error, "more than 24h from now") {
			t.Errorf("start 25 h away: %d %+v", code, eb)
		}
		for _, body := range []string{`{"kind":"outage","mode":"503","for":"25h"}`, `{"kind":"outage","mode":"503","at":"2000000h","for":"2000000h"}`} {
			code, _, eb = call(t, h, "POST", "/control/inject", body)
			if code != 400 || !strings.Contains(eb.Error, "24h") {
				t.Errorf("inject %s: %d %+v", body, code, eb)
			}
		}
		code, _, eb = call(t, h, "POST", "/control/start", `{"when":"now"}`)
		if code != 400 || !strings.Contains(eb.Error, "unknown field") {
			t.Errorf("start with a bad body: %d %+v", code, eb)
		}
		if code, _, _ := call(t, h, "GET", "/control/start", ""); code != http.StatusMethodNotAllowed {
			t.Errorf("GET /control/start: %d, want 405", code)
		}
		if len(log) != 3 {
			t.Errorf("notifications %q, want start, inject, stop", log)
		}
	})
}

// TestShardsStartThePlanOnce: every shard of a run posts the run's t = 0;
// the first start sets the plan's clock, the others at the same instant
// change nothing (and say so), and the clock endpoint answers with the
// server's wall clock.
func TestShardsStartThePlanOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		plan, _ := chaos.NewPlan([]chaos.Timed{{Name: "down", Kind: "outage", At: time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}}, 0)
		srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Plan: plan, Hold: true, Config: model.Config{Concurrency: 1}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var log []string
		h := Handler(Options{Server: srv, Notify: func(m string) { log = append(log, m) }, Access: local})
		t0 := time.Now().Add(500 * time.Millisecond).UTC()
		body := `{"at":"` + t0.Format(time.RFC3339Nano) + `"}`
		for i := range 3 {
			code, st, _ := call(t, h, "POST", "/control/start", body)
			if code != 200 || !st.PlanRunning || !st.PlanStarted.Equal(t0) {
				t.Fatalf("start %d: %d %+v", i, code, st)
			}
			time.Sleep(700 * time.Millisecond) // the last one while the outage is active
		}
		if len(log) != 3 || !strings.Contains(log[0], "started at") || !strings.Contains(log[1], "already starts at") || !strings.Contains(log[2], "unchanged") {
			t.Errorf("notifications %q: want one start, then unchanged", log)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "http://"+local.Bound.String()+"/control/clock", nil)
		h.ServeHTTP(rec, req)
		var a ClockAnswer
		if err := json.Unmarshal(rec.Body.Bytes(), &a); rec.Code != 200 || err != nil || a.ReceivedUnixNS != time.Now().UnixNano() || a.RepliedUnixNS < a.ReceivedUnixNS {
			t.Errorf("clock: %d %s", rec.Code, rec.Body)
		}
	})
}

func TestProxyControlRefusesBrownout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		up, _ := proxy.ParseUpstream("http://up:80")
		p, err := proxy.Start(proxy.Options{Addr: "p:80", Upstream: up, Listen: n.Listen, Transport: &http.Transport{DialContext: n.Dial}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		h := Handler(Options{Server: p.Server, Check: proxy.CheckFault, Access: local})
		code, _, eb := call(t, h, "POST", "/control/inject", `{"kind":"brownout","capacity":0.5,"for":"1s"}`)
		if code != 400 || !strings.Contains(eb.Error, "brownout") {
			t.Errorf("brownout on the proxy: %d %+v", code, eb)
		}
		_, st, _ := call(t, h, "GET", "/control/status", "")
		if st.Role != "proxy" || st.Model != nil || !st.PlanRunning {
			t.Errorf("proxy status: %+v", st)
		}
	})
}

// TestAccess: what a web page or a stranger could send is refused before
// the API sees it: a foreign Host (DNS rebinding), a foreign Origin, a
// non-JSON POST (a cross-site form or text/plain fetch), a missing token.
func TestAccess(t *testing.T) {
	const token = "gameday-token-0123456789abcdef"
	remote := Access{Bound: netip.MustParseAddrPort("10.1.2.3:8091"), Token: token, Names: []string{"gameday.corp."}}
	everywhere := Access{Bound: netip.MustParseAddrPort("0.0.0.0:8091"), Names: []string{"gameday-box"}, Token: token}
	v6 := Access{Bound: netip.MustParseAddrPort("[::1]:8091")}
	type req struct {
		access              Access
		method, path, host  string
		origin, ctype, auth string
	}
	for _, c := range []struct {
		req
		code int
		want string // in the error
	}{
		{req: req{access: local, method: "GET", path: "/control/status", host: "127.0.0.1:8091"}, code: 200},
		{req: req{access: local, method: "GET", path: "/control/status", host: "localhost:8091"}, code: 200},
		{req: req{access: local, method: "GET", path: "/control/status", host: "LOCALHOST.:8091"}, code: 200},
		{req: req{access: local, method: "GET", path: "/control/status", host: "127.0.0.1:9999"}, code: 200}, // an ssh tunnel's port
		{req: req{access: local, method: "GET", path: "/control/status", host: "[::1]:8091"}, code: 200},
		{req: req{access: local, method: "GET", path: "/control/status", host: "127.0.0.1"}, code: 200},
		{req: req{access: v6, method: "GET", path: "/control/status", host: "[::1]:8091"}, code: 200},
		{req: req{access: local, method: "GET", path: "/control/status", host: "evil.example:8091"}, code: 403, want: `Host "evil.example:8091" does not name this control address`},
		{req: req{access: local, method: "GET", path: "/metrics", host: "evil.example:8091"}, code: 403, want: "DNS-rebinding"},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "evil.example:8091", ctype: "application/json"}, code: 403, want: "Host"},
		{req: req{access: local, method: "GET", path: "/control/status", host: "localhost.evil.example"}, code: 403, want: "Host"},
		{req: req{access: local, method: "GET", path: "/control/status", host: "10.0.0.5:8091"}, code: 403, want: "Host"},
		{req: req{access: local, method: "GET", path: "/control/status", host: "127.1:8091"}, code: 403, want: "Host"},
		{req: req{access: local, method: "GET", path: "/control/status", host: ""}, code: 403, want: "Host"},
		{req: req{access: Access{}, method: "GET", path: "/control/status", host: "127.0.0.1:8091"}, code: 403, want: "Host"},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "text/plain"}, code: 415, want: `needs "Content-Type: application/json" (got text/plain)`},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091"}, code: 415, want: "(got none)"},
		{req: req{access: local, method: "POST", path: "/control/inject", host: "127.0.0.1:8091", ctype: "application/x-www-form-urlencoded"}, code: 415, want: "-H 'Content-Type: application/json'"},
		{req: req{access: local, method: "POST", path: "/control/start", host: "127.0.0.1:8091", ctype: "multipart/form-data; boundary=x"}, code: 415, want: "Content-Type"},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "application/json; charset=utf-8"}, code: 200},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "application/json", origin: "http://evil.example"}, code: 403, want: `Origin "http://evil.example" is not this control address`},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "text/plain", origin: "http://evil.example"}, code: 403, want: "Origin"},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "application/json", origin: "null"}, code: 403, want: "Origin"},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "application/json", origin: "https://127.0.0.1:8091"}, code: 403, want: "Origin"},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "application/json", origin: "http://localhost:8091"}, code: 403, want: "Origin"},
		{req: req{access: local, method: "GET", path: "/metrics", host: "127.0.0.1:8091", origin: "http://evil.example"}, code: 403, want: "Origin"},
		{req: req{access: local, method: "POST", path: "/control/stop", host: "127.0.0.1:8091", ctype: "application/json", origin: "http://127.0.0.1:8091"}, code: 200},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "10.1.2.3:8091"}, code: 401, want: "needs its token"},
		{req: req{access: remote, method: "GET", path: "/metrics", host: "10.1.2.3:8091"}, code: 401, want: "Authorization: Bearer"},
		{req: req{access: remote, method: "POST", path: "/control/stop", host: "10.1.2.3:8091", ctype: "application/json", auth: "Bearer wrong"}, code: 401, want: "token"},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "10.1.2.3:8091", auth: token}, code: 401, want: "token"},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "10.1.2.3:8091", auth: "Basic " + token}, code: 401, want: "token"},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "10.1.2.3:8091", auth: "Bearer " + token + "x"}, code: 401, want: "token"},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "10.1.2.3:8091", auth: "Bearer " + token}, code: 200},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "gameday.corp:8091", auth: "bearer " + token}, code: 200},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "localhost:8091", auth: "Bearer " + token}, code: 403, want: "Host"},
		{req: req{access: remote, method: "GET", path: "/control/status", host: "10.1.2.4:8091", auth: "Bearer " + token}, code: 403, want: "Host"},
		{req: req{access: remote, method: "POST", path: "/control/stop", host: "10.1.2.3:8091", ctype: "text/plain", auth: "Bearer " + token}, code: 415, want: "Content-Type"},
		{req: req{access: everywhere, method: "GET", path: "/control/status", host: "192.168.1.7:8091", auth: "Bearer " + token}, code: 200},
		{req: req{access: everywhere, method: "GET", path: "/control/status", host: "gameday-box:8091", auth: "Bearer " + token}, code: 200},
		{req: req{access: everywhere, method: "GET", path: "/control/status", host: "localhost:8091", auth: "Bearer " + token}, code: 200},
		{req: req{access: everywhere, method: "GET", path: "/control/status", host: "evil.example:8091", auth: "Bearer " + token}, code: 403, want: "Host"},
		// POST /control/results writes files: behind the same guard.
		{req: req{access: local, method: "POST", path: "/control/results", host: "evil.example:8091", ctype: "application/json"}, code: 403, want: "Host"},
		{req: req{access: local, method: "POST", path: "/control/results", host: "127.0.0.1:8091", ctype: "application/json", origin: "http://evil.example"}, code: 403, want: "Origin"},
		{req: req{access: local, method: "POST", path: "/control/results", host: "127.0.0.1:8091", ctype: "text/plain"}, code: 415, want: "Content-Type"},
		{req: req{access: remote, method: "POST", path: "/control/results", host: "10.1.2.3:8091", ctype: "application/json"}, code: 401, want: "token"},
		{req: req{access: remote, method: "POST", path: "/control/results", host: "10.1.2.3:8091", ctype: "application/json", auth: "Bearer " + token}, code: 404, want: "--no-record"},
	} {
		synctest.Test(t, func(t *testing.T) {
			n := &memnet.Network{}
			srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Config: model.Config{Concurrency: 1}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("# metrics\n")) })
			h := Handler(Options{Server: srv, Metrics: metrics, Access: c.access})
			req := httptest.NewRequest(c.method, "http://127.0.0.1:8091"+c.path, strings.NewReader(""))
			req.Host, req.RequestURI = c.host, c.path // as a server reads an origin-form request
			for k, v := range map[string]string{"Origin": c.origin, "Content-Type": c.ctype, "Authorization": c.auth} {
				if v != "" {
					req.Header.Set(k, v)
				}
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			var eb errorBody
			_ = json.Unmarshal(rec.Body.Bytes(), &eb)
			if rec.Code != c.code || c.want != "" && !strings.Contains(eb.Error, c.want) {
				t.Errorf("%s %s Host %q Origin %q Content-Type %q Authorization %q (bound %s): %d %s\nwant %d with %q",
					c.method, c.path, c.host, c.origin, c.ctype, c.auth, c.access.Bound, rec.Code, rec.Body, c.code, c.want)
			}
			if c.code == 401 && rec.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("401 without WWW-Authenticate")
			}
			if c.code != 200 && srv.Status().PlanRunning == false {
				t.Errorf("a refused %s %s changed the plan", c.method, c.path)
			}
		})
	}
}

// TestGuardDetails: the guard read as it meets the wire. A browser's
// Sec-Fetch-Site of another site is refused; an Origin that is the Host
// itself is accepted however it is spelt (a page served at
// http://localhost:PORT/ calls its own API); an absolute-form request
// target, which net/http takes as the request's host, must name the
// listen address, port included.
func TestGuardDetails(t *testing.T) {
	for _, c := range []struct {
		access Access
		wire   string // the request line and headers, "\n" for CRLF
		code   int
		want   string // in the error
	}{
		// Sec-Fetch-Site: only a browser sends it; it says whose page asked.
		{local, "POST /control/stop HTTP/1.1\nHost: 127.0.0.1:8091\nSec-Fetch-Site: cross-site\n", 403, "Sec-Fetch-Site: cross-site"},
		{local, "POST /control/stop HTTP/1.1\nHost: 127.0.0.1:8091\nSec-Fetch-Site: same-site\n", 403, "Sec-Fetch-Site: same-site"},
		{local, "GET /metrics HTTP/1.1\nHost: localhost:8091\nSec-Fetch-Site: Cross-Site\n", 403, "another site"},
		{local, "POST /control/stop HTTP/1.1\nHost: 127.0.0.1:8091\nSec-Fetch-Site: same-origin\n", 200, ""},
		{local, "POST /control/stop HTTP/1.1\nHost: 127.0.0.1:8091\nSec-Fetch-Site: none\n", 200, ""}, // typed into the address bar
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nSec-Fetch-Site: same-origin\nOrigin: http://localhost:8091\n", 200, ""},
		// Origin: the Host itself, however spelt.
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nOrigin: http://localhost:8091\n", 200, ""},
		{local, "POST /control/stop HTTP/1.1\nHost: LOCALHOST.:8091\nOrigin: http://localhost:8091\n", 200, ""},
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:80\nOrigin: http://localhost\n", 200, ""}, // a browser omits port 80
		{local, "POST /control/stop HTTP/1.1\nHost: localhost\nOrigin: http://localhost:80\n", 200, ""},
		{local, "POST /control/stop HTTP/1.1\nHost: [::1]:8091\nOrigin: http://[::1]:8091\n", 200, ""},
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nOrigin: http://localhost:8092\n", 403, "Origin"},
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nOrigin: http://localhost\n", 403, "Origin"},
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nOrigin: http://127.0.0.1:8091\n", 403, "Origin"},
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nOrigin: http://localhost.evil.example:8091\n", 403, "Origin"},
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nOrigin: https://localhost:8091\n", 403, "Origin"},
		{local, "POST /control/stop HTTP/1.1\nHost: localhost:8091\nOrigin: http://localhost:8091/x\n", 403, "Origin"},
		// Absolute-form targets: the host that counts is the target's.
		{local, "POST http://evil.example/control/stop HTTP/1.1\nHost: 127.0.0.1:8091\n", 403, "absolute-form"},
		{local, "POST http://evil.example:8091/control/stop HTTP/1.1\nHost: 127.0.0.1:8091\n", 403, "absolute-form"},
		{local, "POST http://127.0.0.1:9999/control/stop HTTP/1.1\nHost: 127.0.0.1:8091\n", 403, "absolute-form"},
		{local, "POST http://127.0.0.1/control/stop HTTP/1.1\nHost: 127.0.0.1:8091\n", 403, "absolute-form"},
		{local, "POST https://127.0.0.1:8091/control/stop HTTP/1.1\nHost: 127.0.0.1:8091\n", 403, "absolute-form"},
		{local, "POST http://x@127.0.0.1:8091/control/stop HTTP/1.1\nHost: 127.0.0.1:8091\n", 403, "absolute-form"},
		{local, "GET http://evil.example:8091/metrics HTTP/1.1\nHost: localhost:8091\n", 403, "absolute-form"},
		{local, "POST http://127.0.0.1:8091/control/stop HTTP/1.1\nHost: evil.example\n", 200, ""},
		{local, "POST http://localhost:8091/control/stop HTTP/1.1\nHost: localhost:8091\n", 200, ""},
		{local, "POST http://LOCALHOST.:8091/control/stop HTTP/1.1\nHost: localhost:8091\n", 200, ""},
		{local, "POST /control/stop HTTP/1.1\nHost: 127.0.0.1:8091\n", 200, ""},
	} {
		t.Run(c.wire[:strings.IndexByte(c.wire, '\n')], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				n := &memnet.Network{}
				srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Config: model.Config{Concurrency: 1}})
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("# metrics\n")) })
				h := Handler(Options{Server: srv, Metrics: metrics, Access: c.access})
				wire := strings.ReplaceAll(c.wire, "\n", "\r\n") + "Content-Type: application/json\r\nContent-Length: 0\r\n\r\n"
				req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(wire)))
				if err != nil {
					t.Fatalf("%q: %v", c.wire, err)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				var eb errorBody
				_ = json.Unmarshal(rec.Body.Bytes(), &eb)
				if rec.Code != c.code || c.want != "" && !strings.Contains(eb.Error, c.want) {
					t.Errorf("%q (bound %s): %d %s\nwant %d with %q", c.wire, c.access.Bound, rec.Code, rec.Body, c.code, c.want)
				}
				if c.code != 200 && !srv.Status().PlanRunning {
					t.Errorf("a refused %q changed the plan", c.wire)
				}
			})
		})
	}
}

// TestStartNamesTheRun: POST /control/start's duration (a swarm's run's
// length, from --chaos-control) is given to RunFor before the plan starts;
// a duration that is no run's is refused and starts nothing. The client
// sends its run's length.
func TestStartNamesTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Hold: true, Config: model.Config{Concurrency: 1}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var runs []time.Duration
		var log []string
		h := Handler(Options{Server: srv, Access: local, RunFor: func(d time.Duration) { runs = append(runs, d) }, Notify: func(m string) { log = append(log, m) }})
		for _, bad := range []string{`{"duration": "-1s"}`, `{"duration": "forever"}`, `{"duration": "25h"}`} {
			if code, _, eb := call(t, h, "POST", "/control/start", bad); code != 400 || !strings.Contains(eb.Error, "give the run's length from its t = 0") {
				t.Errorf("start %s: %d %+v", bad, code, eb)
			}
		}
		if len(runs) != 0 || srv.Status().PlanRunning {
			t.Fatalf("a refused start told RunFor %v or started the plan", runs)
		}
		if code, st, _ := call(t, h, "POST", "/control/start", `{"duration": "12s"}`); code != 200 || !st.PlanRunning {
			t.Fatalf("start for 12s: %d %+v", code, st)
		}
		if len(runs) != 1 || runs[0] != 12*time.Second || !strings.Contains(strings.Join(log, "\n"), "chaos plan started now, for a run of 12s") {
			t.Errorf("RunFor told %v; log %q", runs, log)
		}
		if code, _, _ := call(t, h, "POST", "/control/start", ``); code != 200 || len(runs) != 2 || runs[1] != 0 {
			t.Errorf("a start without a duration: %d, RunFor told %v; want 0, the scenario's length again", code, runs)
		}
	})
}

// TestAbsoluteFormMustNameItsOwnAddress: an absolute-form request target
// names the control address itself, not any address a Host header may
// name: another loopback address than the one it is bound to, another
// family's loopback, a port of its own but an address of no interface of
// this machine (a listener on every interface) are refused, as a forward
// proxy's request for another server is. Over a real socket, through
// net/http's server.
func TestAbsoluteFormMustNameItsOwnAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	bound := netip.MustParseAddrPort(ln.Addr().String())
	p := bound.Port()
	h := Guard(Access{Bound: bound}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("ok")) }))
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	wire := func(line string, headers ...string) (int, string) {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		msg := line + "\r\n" + strings.Join(headers, "\r\n")
		if len(headers) > 0 {
			msg += "\r\n"
		}
		if _, err := io.WriteString(c, msg+"Content-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	host := fmt.Sprintf("Host: localhost:%d", p)
	for _, c := range []struct {
		line    string
		headers []string
		code    int
	}{
		{fmt.Sprintf("POST http://127.0.0.2:%d/control/stop HTTP/1.1", p), []string{host}, 403},
		{fmt.Sprintf("POST http://127.255.255.254:%d/control/stop HTTP/1.1", p), []string{host}, 403},
		{fmt.Sprintf("POST http://[::1]:%d/control/stop HTTP/1.1", p), []string{host}, 403},
		{fmt.Sprintf("POST http://127.0.0.1:%d/control/stop HTTP/1.1", p+1), []string{host}, 403},
		{fmt.Sprintf("POST http://127.0.0.1:%d/control/stop HTTP/1.1", p), []string{host}, 200},
		{fmt.Sprintf("POST http://localhost:%d/control/stop HTTP/1.1", p), []string{host}, 200},
		// A page served at http://localhost:PORT/ calling the API it came from.
		{"POST /control/stop HTTP/1.1", []string{host, fmt.Sprintf("Origin: http://localhost:%d", p)}, 200},
		{"POST /control/stop HTTP/1.1", []string{host, fmt.Sprintf("Origin: http://localhost:%d", p), "Sec-Fetch-Site: same-origin", "Sec-Fetch-Mode: cors"}, 200},
		{"POST /control/stop HTTP/1.1", []string{host, fmt.Sprintf("Origin: http://LOCALHOST:%d", p)}, 200},
		{"POST /control/stop HTTP/1.1", []string{host, fmt.Sprintf("Origin: http://localhost:%d", p+1)}, 403},
	} {
		if code, body := wire(c.line, c.headers...); code != c.code {
			t.Errorf("%s %q: %d %s; want %d", c.line, c.headers, code, body, c.code)
		}
	}

	// A listener on every interface: an absolute target names one of this
	// machine's addresses, on its port.
	defer func(f func(netip.Addr) bool) { interfaceIP = f }(interfaceIP)
	interfaceIP = func(ip netip.Addr) bool { return ip == netip.MustParseAddr("192.168.1.7") || ip.IsLoopback() }
	everywhere := Access{Bound: netip.MustParseAddrPort("0.0.0.0:8091"), Names: []string{"gameday-box"}}
	for target, want := range map[string]bool{
		"http://192.168.1.7:8091/control/status": true,
		"http://gameday-box:8091/control/status": true,
		"http://localhost:8091/control/status":   true,
		"http://10.9.9.9:8091/control/status":    false,
		"http://8.8.8.8:8091/control/status":     false,
		"http://192.168.1.7:8092/control/status": false,
	} {
		u, _ := url.ParseRequestURI(target)
		if got := targetAllowed(u, everywhere); got != want {
			t.Errorf("bound to every interface: %s allowed %v, want %v", target, got, want)
		}
	}
}
