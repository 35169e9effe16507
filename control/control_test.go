package control

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/target"
)

func call(t *testing.T, h http.Handler, method, path, body string) (int, Status, errorBody) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader(body)))
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
			Config: target.Config{Concurrency: 8, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Millisecond)}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var log []string
		h := Handler(Options{Server: srv, Notify: func(m string) { log = append(log, m) }})

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
		if code != 400 || len(eb.Problems) != 2 || !strings.Contains(strings.Join(eb.Problems, "\n"), "for: missing") {
			t.Errorf("bad inject: %d %+v", code, eb)
		}
		code, _, eb = call(t, h, "POST", "/control/start", `{"at":"1999-01-01T00:00:00Z"}`)
		if code != 400 || !strings.Contains(eb.Error, "before the server started") {
			t.Errorf("start in the past: %d %+v", code, eb)
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

func TestProxyControlRefusesBrownout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		up, _ := proxy.ParseUpstream("http://up:80")
		p, err := proxy.Start(proxy.Options{Addr: "p:80", Upstream: up, Listen: n.Listen, Transport: &http.Transport{DialContext: n.Dial}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		h := Handler(Options{Server: p.Server, Check: proxy.CheckFault})
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
