package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// A net/http client (transport: net/http) re-sends, once and at once, the
// attempt a crash resets on its reused connection; the re-send meets the
// outage on a new connection and is not re-sent again. herdbench's own
// transport sends it once. Only the transport differs.
func TestNetHTTPResendsAtACrash(t *testing.T) {
	const src = `
name: t
duration: 5s
chaos:
  - {kind: blip, mode: blackhole, at: 500ms, for: 1s}
  - {kind: outage, mode: %s, at: 1500ms, for: 1s}
target: {service_time: 0s}
workload: {kind: closed, clients: 1, think: 400ms}
strategies: [{name: c, backoff: constant, base: 2s, max_attempts: 2, timeout: 3s%s}]
`
	for _, mode := range []string{"refuse", "reset"} {
		_, rawRec, raw := simulate(t, fmt.Sprintf(src, mode, ""))
		_, rec, run := simulate(t, fmt.Sprintf(src, mode, ", transport: net/http"))
		m, _ := results.LookupMetric("transport_resends")
		if v, _ := m.Value(&raw); v != 0 {
			t.Errorf("%s: herdbench's transport re-sent %v attempts", mode, v)
		}
		if v, _ := m.Value(&run); v != 1 {
			t.Errorf("%s: net/http re-sent %v attempts, want 1 (the one the crash reset)", mode, v)
		}
		if run.Attempts != raw.Attempts+1 || run.Requests != raw.Requests || run.Failed != raw.Failed {
			t.Errorf("%s: net/http %d attempts, %d requests, %d failed; herdbench's %d, %d, %d: want one attempt more, the rest alike",
				mode, run.Attempts, run.Requests, run.Failed, raw.Attempts, raw.Requests, raw.Failed)
		}
		want := results.Reset
		if mode == "refuse" {
			want = results.Refused
		}
		tl, rawTL := rec.Timeline(results.Bucket), rawRec.Timeline(results.Bucket)
		crash := int(1500 * time.Millisecond / results.Bucket)
		if got := tl.Rows[crash][results.SeriesTransportResends]; got != 1 {
			t.Errorf("%s: %d re-sends in the crash's bucket, want 1 (sent at once)", mode, got)
		}
		if got, was := tl.Rows[crash][want], rawTL.Rows[crash][want]; got != was+1 {
			t.Errorf("%s: %d attempts %s in the crash's bucket, want %d (the re-send's)", mode, got, want, was+1)
		}
	}
}

// An open workload's arrivals share the pool's connections: once answered
// connections are in it, an arrival's attempt that a crash resets is
// re-sent; right after the crash the pool is new again, and the re-sends,
// on new connections, are not re-sent again (in a reset outage, whose
// every attempt is reset at once, this would otherwise never end).
func TestNetHTTPResendsInAnOpenWorkload(t *testing.T) {
	const src = `
name: t
duration: 3s
chaos:
  - {kind: blip, mode: blackhole, at: 1s, for: 500ms}
  - {kind: outage, mode: reset, at: 1500ms, for: 500ms}
target: {service_time: 1ms}
workload: {kind: open, rate: 100}
strategies: [{name: c, backoff: constant, base: 100ms, max_attempts: 3, timeout: 3s%s}]
`
	_, _, raw := simulate(t, fmt.Sprintf(src, ""))
	_, _, run := simulate(t, fmt.Sprintf(src, ", transport: net/http"))
	m, _ := results.LookupMetric("transport_resends")
	v, _ := m.Value(&run)
	// About 50 arrivals are held by the stall when the crash comes.
	if v < 30 || v > 70 {
		t.Errorf("net/http re-sent %v attempts at the crash, want the ~50 the stall held", v)
	}
	if run.Attempts != raw.Attempts+int64(v) {
		t.Errorf("attempts %d, herdbench's %d: want the re-sends on top", run.Attempts, raw.Attempts)
	}
}

// With a request mix, net/http re-sends only what it may replay: a GET, or
// a POST with an idempotency key, not a bare POST (Request.isReplayable).
func TestNetHTTPResendsOnlyReplayableRequests(t *testing.T) {
	const src = `
name: t
duration: 5s
chaos:
  - {kind: blip, mode: blackhole, at: 500ms, for: 1s}
  - {kind: outage, mode: reset, at: 1500ms, for: 1s}
target: {service_time: 0s}
workload: {kind: closed, clients: 1, think: 400ms}
requests: [%s]
strategies: [{name: c, backoff: constant, base: 2s, max_attempts: 2, timeout: 3s, transport: net/http, retry_non_idempotent: true}]
`
	m, _ := results.LookupMetric("transport_resends")
	for req, want := range map[string]float64{
		"{method: GET, path: /a}":  1,
		"{method: POST, path: /a}": 0,
		"{method: POST, path: /a, headers: {Idempotency-Key: '{uuid}'}}": 1,
	} {
		_, _, run := simulate(t, fmt.Sprintf(src, req))
		if v, _ := m.Value(&run); v != want {
			t.Errorf("%s: %v re-sends, want %v", req, v, want)
		}
	}
}
