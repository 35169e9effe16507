package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP metrics receiver on 127.0.0.1: it decodes
// each export (protobuf) and keeps it.
type otlpReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []*colmetricpb.ExportMetricsServiceRequest
	bad []string
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	t.Helper()
	r := &otlpReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		var m colmetricpb.ExportMetricsServiceRequest
		r.mu.Lock()
		defer r.mu.Unlock()
		switch {
		case req.Method != http.MethodPost || req.URL.Path != "/v1/metrics":
			r.bad = append(r.bad, req.Method+" "+req.URL.Path)
		case req.Header.Get("Content-Type") != "application/x-protobuf":
			r.bad = append(r.bad, "Content-Type "+req.Header.Get("Content-Type"))
		case errors.Is(err, io.ErrUnexpectedEOF):
			// The exporter gave up on this export midway (its timeout on a
			// loaded machine, or the shutdown cancelling one in flight): the
			// next export carries the same cumulative figures.
		case err != nil:
			r.bad = append(r.bad, err.Error())
		default:
			if err := proto.Unmarshal(body, &m); err != nil {
				r.bad = append(r.bad, err.Error())
				break
			}
			r.got = append(r.got, &m)
		}
		out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// last returns the metrics of the last export and the service.name of
// its resource, failing the test if nothing valid arrived.
func (r *otlpReceiver) last(t *testing.T) (map[string]*metricpb.Metric, string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		t.Errorf("the receiver refused: %v", r.bad)
	}
	if len(r.got) == 0 {
		t.Fatal("no OTLP export arrived")
	}
	out := map[string]*metricpb.Metric{}
	service := ""
	for _, rm := range r.got[len(r.got)-1].ResourceMetrics {
		for _, kv := range rm.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				service = kv.Value.GetStringValue()
			}
		}
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				out[m.Name] = m
			}
		}
	}
	return out, service
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			out[kv.Key] = strconv.FormatInt(v.IntValue, 10)
		}
	}
	return out
}

// sumCounter adds up a cumulative counter's points, by one attribute.
func sumCounter(m *metricpb.Metric, key string) map[string]int64 {
	out := map[string]int64{}
	for _, p := range m.GetSum().GetDataPoints() {
		out[attrs(p.Attributes)[key]] += p.GetAsInt()
	}
	return out
}

// TestOTLPExportMatchesSummary runs a short real scenario (an outage, then
// calm) with --otlp pointing at an in-process receiver and checks the last
// export: http.client.request.duration is an exponential histogram whose
// counts, by cohort, are summary.json's attempts, with the semantic
// conventions' attributes and herdbench's; the counters match the
// summary's requests.
func TestOTLPExportMatchesSummary(t *testing.T) {
	defer goleak.VerifyNone(t)
	recv := newOTLPReceiver(t)
	defer recv.srv.Close() // before goleak looks
	scenario := writeScenario(t, `name: exported
duration: 1s
seed: 7
workload:
  clients: 6
  think: 20ms
chaos:
  - name: down
    kind: outage
    at: 200ms
    for: 300ms
strategies:
  - name: plain
    backoff: full
    base: 10ms
  - name: steady
    backoff: constant
    base: 30ms
`)
	out := t.TempDir()
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"scenario", scenario, "--out", out, "-q", "--no-png", "--cohorts", "together",
		"--otlp", recv.srv.URL, "--otlp-interval", "200ms", "--allow-untrustworthy"}, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit code %d\nstderr:\n%s", code, stderr.String())
	}
	s := readSummary(t, out)
	metrics, service := recv.last(t)
	if service != "herdbench-scenario" {
		t.Errorf("service.name %q, want herdbench-scenario", service)
	}
	for _, n := range []string{"http.client.request.duration", "http.client.active_requests", "herdbench.swarm.requests.started",
		"herdbench.swarm.requests.succeeded", "herdbench.swarm.requests.failed", "herdbench.swarm.policy.events", "herdbench.fault.active", "herdbench.swarm.elapsed"} {
		if metrics[n] == nil {
			t.Errorf("no %s in the last export", n)
		}
	}
	d := metrics["http.client.request.duration"]
	if d == nil {
		t.FailNow()
	}
	if d.Unit != "s" || d.GetExponentialHistogram() == nil {
		t.Fatalf("http.client.request.duration: unit %q, %T; want s and an exponential histogram", d.Unit, d.Data)
	}
	attempts := map[string]uint64{}
	errorTypes := map[string]bool{}
	for _, p := range d.GetExponentialHistogram().DataPoints {
		a := attrs(p.Attributes)
		attempts[a["herdbench.cohort"]] += p.Count
		if a["http.request.method"] != "POST" || a["herdbench.attempt"] == "" || a["herdbench.outcome"] == "" {
			t.Errorf("a point's attributes %v lack the method, herdbench.attempt or herdbench.outcome", a)
		}
		switch a["herdbench.outcome"] {
		case "ok":
			if a["http.response.status_code"] != "200" || a["error.type"] != "" {
				t.Errorf("an ok point's attributes %v: want status 200 and no error.type", a)
			}
		case "http_5xx":
			if a["error.type"] != a["http.response.status_code"] || a["error.type"] != "503" {
				t.Errorf("an http_5xx point's attributes %v: want status and error.type 503", a)
			}
		}
		errorTypes[a["error.type"]] = true
	}
	if !errorTypes["503"] {
		t.Errorf("no point with error.type 503: the outage was not seen (error types %v)", errorTypes)
	}
	started := sumCounter(metrics["herdbench.swarm.requests.started"], "herdbench.cohort")
	if len(s.Runs) != 2 {
		t.Fatalf("summary has %d runs, want 2", len(s.Runs))
	}
	for _, r := range s.Runs {
		if r.Attempts == 0 || attempts[r.Strategy] != uint64(r.Attempts) {
			t.Errorf("cohort %s: the export counts %d attempts, summary.json %d", r.Strategy, attempts[r.Strategy], r.Attempts)
		}
		if started[r.Strategy] != r.Requests {
			t.Errorf("cohort %s: the export counts %d requests started, summary.json %d", r.Strategy, started[r.Strategy], r.Requests)
		}
	}
}

// TestServersExportOTLP runs herdbench target and herdbench proxy with
// --otlp, sends them requests, stops them and checks the export made at
// the stop: http.server.request.duration counts every request, by status
// code and herdbench.outcome, and the servers' own instruments are there.
func TestServersExportOTLP(t *testing.T) {
	defer goleak.VerifyNone(t)
	scenario := writeScenario(t, faultyTarget)
	upstream := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer upstream.Close()
	for _, c := range []struct {
		role string
		args []string
		own  string
	}{
		{"target", []string{"target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--no-record"}, "herdbench.target.queue.depth"},
		{"proxy", []string{"proxy", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--upstream", upstream.URL, "--no-record"}, "herdbench.proxy.upstream.errors"},
	} {
		t.Run(c.role, func(t *testing.T) {
			recv := newOTLPReceiver(t)
			ctx, cancel := context.WithCancel(context.Background())
			var stderr syncBuffer
			done := make(chan int)
			// A long interval: what arrives is the export made at the stop.
			go func() {
				done <- run(ctx, append(c.args, "--otlp", recv.srv.URL, "--otlp-interval", "1m"), io.Discard, &stderr)
			}()
			traffic := stderr.waitFor(t, serveAddrRE)
			const sent = 3
			for range sent {
				resp, err := http.Post(traffic+"/", "text/plain", nil) // answered 503 by the outage
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
			}
			cancel()
			if code := <-done; code != exitOK {
				t.Fatalf("exit code %d\n%s", code, stderr.String())
			}
			metrics, service := recv.last(t)
			if service != "herdbench-"+c.role {
				t.Errorf("service.name %q, want herdbench-%s", service, c.role)
			}
			for _, n := range []string{"http.server.active_requests", "herdbench.fault.active", "herdbench.plan.running", c.own} {
				if metrics[n] == nil {
					t.Errorf("no %s in the export", n)
				}
			}
			d := metrics["http.server.request.duration"]
			if d.GetExponentialHistogram() == nil {
				t.Fatalf("http.server.request.duration: %v, want an exponential histogram", d)
			}
			var n uint64
			for _, p := range d.GetExponentialHistogram().DataPoints {
				a := attrs(p.Attributes)
				if a["http.response.status_code"] != "503" || a["error.type"] != "503" || a["herdbench.outcome"] != "http_5xx" || a["http.request.method"] != "POST" {
					t.Errorf("a point's attributes %v: want POST, status and error.type 503, outcome http_5xx", a)
				}
				n += p.Count
			}
			if n != sent {
				t.Errorf("the export counts %d requests, want %d", n, sent)
			}
		})
	}
}

// TestOTLPFlagRefusals: a bad --otlp URL, one off loopback without
// --allow-remote, or too short an interval is refused with exit code 2
// and a message naming the flag, before anything is sent or served.
func TestOTLPFlagRefusals(t *testing.T) {
	scenario := writeScenario(t, faultyTarget)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"scenario", "outage", "--out", t.TempDir(), "--otlp", "127.0.0.1:4318"}, "write the collector's OTLP/HTTP URL"},
		{[]string{"scenario", "outage", "--out", t.TempDir(), "--otlp", "http://192.0.2.1:4318"}, "pass --allow-remote"},
		{[]string{"scenario", "outage", "--out", t.TempDir(), "--otlp", "http://127.0.0.1:4318", "--otlp-interval", "10ms"}, "--otlp-interval 10ms"},
		{[]string{"scenario", "outage", "--out", t.TempDir(), "--sim", "--otlp", "http://127.0.0.1:4318"}, "--otlp needs a real-time run"},
		{[]string{"target", "--scenario", scenario, "--otlp", "http://127.1:4318"}, "--otlp"},
		{[]string{"proxy", "--scenario", scenario, "--upstream", "http://127.0.0.1:1", "--otlp", "ftp://127.0.0.1/"}, "write the collector's OTLP/HTTP URL"},
	} {
		var stderr syncBuffer
		code := run(context.Background(), c.args, io.Discard, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit code %d, stderr %q; want 2 and %q", c.args, code, stderr.String(), c.want)
		}
	}
}
