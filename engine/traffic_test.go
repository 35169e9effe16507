package engine

import (
	"testing"

	"github.com/herdbench/herdbench/scenarios"
)

// trafficScenario mixes cheap reads with expensive writes on routes of
// their own, through an outage of fast 503s: a strategy that retries only
// idempotent requests sends no retry of its POSTs, one that retries them
// does.
const trafficScenario = `
name: traffic
duration: 6s
target:
  concurrency: 1000
  service_time: 1ms
  routes:
    - {method: POST, path: /orders, service_time: 80ms}
workload: {kind: oneshot, clients: 400}
chaos:
  - {kind: outage, at: 0s, for: 1s, mode: "503"}
requests:
  - {method: GET, path: "/items/{rand:1:100}", weight: 3}
  - {method: POST, path: /orders, body: '{"qty": 1}'}
strategies:
  - {name: idempotent-only, backoff: constant, base: 2s, cap: 2s, max_attempts: 2}
  - {name: retry-posts, backoff: constant, base: 2s, cap: 2s, max_attempts: 2, retry_non_idempotent: true}
`

// TestSimMixRetriesAndRoutes: in virtual time, the mix is drawn per
// request (about a quarter are POSTs), a POST that failed is retried only
// by the strategy that retries non-idempotent requests, and a POST's retry
// takes its route's 80 ms while a GET's takes 1 ms.
func TestSimMixRetriesAndRoutes(t *testing.T) {
	ps := plans(t, "traffic.yaml", trafficScenario, scenarios.Overrides{})
	runs := execute(t, ps, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs
	idem, all := runs[0], runs[1]
	if idem.Requests != 400 || all.Requests != 400 {
		t.Fatalf("requests %d and %d, want 400 each", idem.Requests, all.Requests)
	}
	// Every first attempt fails in the outage; each GET is retried by both.
	gets := idem.Attempts - 400
	posts := 400 - gets
	if posts < 70 || posts > 130 {
		t.Errorf("%d POSTs of 400 requests; the weights 3:1 give about 100", posts)
	}
	if all.Attempts != 800 {
		t.Errorf("retry-posts sent %d attempts, want 800: every request retried once", all.Attempts)
	}
	if all.Succeeded != 400 || idem.Succeeded != gets {
		t.Errorf("succeeded %d (retry-posts) and %d (idempotent-only), want 400 and %d", all.Succeeded, idem.Succeeded, gets)
	}
	// Of retry-posts' successful requests a quarter took 2s + 80 ms, the
	// rest 2s + 1 ms: the p90 is a POST's, the p50 a GET's.
	if p50, p90 := all.LatencyMS.Request.P50, all.LatencyMS.Request.P90; p50 > 2010 || p90 < 2075 {
		t.Errorf("request latency p50 %.1f ms, p90 %.1f ms; want a GET's (2001) and a POST's (2080)", p50, p90)
	}
}

// TestRealMixMatchesSim: the real engine (its HTTP server and swarm over an
// in-memory network in a synctest bubble) and the simulator send the same
// requests: attempts, successes and the POSTs left unretried agree
// exactly, request for request, and so does the request latency a route's
// service time sets.
func TestRealMixMatchesSim(t *testing.T) {
	p := plans(t, "traffic.yaml", trafficScenario, scenarios.Overrides{})[0]
	real := runInBubble(t, p).Summary.Runs
	sim := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs
	for i := range real {
		r, s := real[i], sim[i]
		if r.Attempts != s.Attempts || r.Succeeded != s.Succeeded || r.Failed != s.Failed {
			t.Errorf("%s: real %d attempts, %d succeeded, %d failed; sim %d, %d, %d", r.Strategy, r.Attempts, r.Succeeded, r.Failed, s.Attempts, s.Succeeded, s.Failed)
		}
		if d := r.LatencyMS.Request.P90 - s.LatencyMS.Request.P90; d < -5 || d > 5 {
			t.Errorf("%s: request p90 real %.1f ms, sim %.1f ms", r.Strategy, r.LatencyMS.Request.P90, s.LatencyMS.Request.P90)
		}
	}
}
