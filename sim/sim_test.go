package sim_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"github.com/herdbench/herdbench/sim"
)

// simulate compiles a scenario written inline and simulates its first
// cohort with the scenario's seed.
func simulate(t *testing.T, yaml string) (sim.Result, *results.Recorder, results.Run) {
	t.Helper()
	p := scenariotest.Plan(t, yaml, scenarios.Overrides{})
	co := cohortOf(p, p.Strategies[0].Name, p.Seed)
	rec := results.NewRecorder(p.Duration, 1)
	res := sim.New().Run(co, rec)
	run := results.Summarize(results.Cohort{Strategy: "x", Rec: rec, OCC: co.Target.Kind == 1, OneShot: p.Workload.Kind == 1}, results.Window{})
	return res, rec, run
}

func outcomes(run results.Run) map[string]int64 {
	out := map[string]int64{}
	for k, v := range run.Outcomes {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

func wantOutcomes(t *testing.T, run results.Run, want map[string]int64) {
	t.Helper()
	got := outcomes(run)
	if len(got) != len(want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("outcomes %v, want %v", got, want)
		}
	}
}

// TestOCCTwoClients follows two clients on an OCC row with constant 10 ms
// hops, step by step: both read version 0 at 10 ms and their writes arrive
// together at 30 ms; client 0's goes first (equal times keep their order)
// and wins, client 1's conflicts. Client 1 learns it at 40 ms, retries at
// once (no backoff), reads version 1 at 50 ms and writes it at 70 ms:
// three calls, done at 80 ms.
func TestOCCTwoClients(t *testing.T) {
	res, rec, run := simulate(t, `
name: t
duration: 10s
network: {delay: 10ms}
target: {kind: occ, queue: 0, service_time: 0s}
workload: {kind: oneshot, clients: 2}
strategies: [{name: none, backoff: none, max_attempts: unlimited, timeout: 0s}]
`)
	if *run.Calls != 3 || res.Row.Writes != 3 || res.Row.Conflicts != 1 || res.Row.Reads != 3 || res.Row.Version() != 2 {
		t.Fatalf("calls %d, row %+v", *run.Calls, res.Row)
	}
	if rec.LastEnd() != 80*time.Millisecond || *run.CompletionS != 0.08 || res.End != 80*time.Millisecond {
		t.Fatalf("last end %s, completion %v, end %s", rec.LastEnd(), *run.CompletionS, res.End)
	}
	wantOutcomes(t, run, map[string]int64{"ok": 2, "http_4xx": 1})
	if run.Succeeded != 2 || run.Attempts != 3 {
		t.Fatalf("%+v", run)
	}
}

// TestBlackholeTimeout: requests into a blackhole hang until the client's
// timeout (200 ms); the retry 100 ms later hangs again; the request gives
// up after its second attempt, at 500 ms.
func TestBlackholeTimeout(t *testing.T) {
	res, rec, run := simulate(t, `
name: t
duration: 10s
chaos: [{kind: blip, mode: blackhole, at: 0s, for: 5s}]
workload: {kind: oneshot, clients: 1}
strategies: [{name: c, backoff: constant, base: 100ms, max_attempts: 2, timeout: 200ms}]
`)
	wantOutcomes(t, run, map[string]int64{"timeout": 2})
	if run.Failed != 1 || rec.LastEnd() != 500*time.Millisecond || res.End != 500*time.Millisecond {
		t.Fatalf("failed %d, last end %s, end %s", run.Failed, rec.LastEnd(), res.End)
	}
}

// TestCrashResetsHungRequests: a stall (blackhole) then a crash (reset
// outage) at 1 s: the hung request is reset at the crash instant; its retry
// 100 ms later meets the reset outage and is reset at once.
func TestCrashResetsHungRequests(t *testing.T) {
	_, rec, run := simulate(t, `
name: t
duration: 10s
chaos:
  - {kind: blip, mode: blackhole, at: 0s, for: 1s}
  - {kind: outage, mode: reset, at: 1s, for: 1s}
workload: {kind: oneshot, clients: 1}
strategies: [{name: c, backoff: constant, base: 100ms, max_attempts: 2, timeout: 5s}]
`)
	wantOutcomes(t, run, map[string]int64{"reset": 2})
	if rec.LastEnd() != 1100*time.Millisecond {
		t.Fatalf("last end %s", rec.LastEnd())
	}
	ah, _ := rec.Histograms()
	if ah.Max() < 999_000 || ah.Min() > 1 {
		t.Fatalf("attempt latencies %d..%d µs, want 0 and 1 s", ah.Min(), ah.Max())
	}
}

// TestRefuse: while the target refuses connections, attempts fail at once
// (refused), without a hop; after the outage the retry succeeds.
func TestRefuse(t *testing.T) {
	_, rec, run := simulate(t, `
name: t
duration: 10s
network: {delay: 10ms}
chaos: [{kind: outage, mode: refuse, at: 0s, for: 250ms}]
target: {service_time: 0s}
workload: {kind: oneshot, clients: 1}
strategies: [{name: c, backoff: constant, base: 100ms, max_attempts: 5}]
`)
	// Sends at 0, 100, 200 ms are refused; the one at 300 ms succeeds at 320 ms.
	wantOutcomes(t, run, map[string]int64{"refused": 3, "ok": 1})
	if rec.LastEnd() != 320*time.Millisecond {
		t.Fatalf("last end %s", rec.LastEnd())
	}
}

// TestQueue: one slot busy for 1 s, a queue of 1: of three clients
// arriving together, the first is served at 1 s, the second waits in the
// queue until its 300 ms deadline (503), the third finds the queue full
// (503 at once).
func TestQueue(t *testing.T) {
	res, rec, run := simulate(t, `
name: t
duration: 10s
target: {concurrency: 1, queue: 1, queue_timeout: 300ms, service_time: 1s}
workload: {kind: oneshot, clients: 3}
strategies: [{name: c, backoff: none, max_attempts: 1}]
`)
	wantOutcomes(t, run, map[string]int64{"ok": 1, "http_5xx": 2})
	if res.Target.Expired != 1 || res.Target.Rejected != 1 || res.Target.Served != 1 || rec.LastEnd() != time.Second {
		t.Fatalf("stats %+v, last end %s", res.Target, rec.LastEnd())
	}
	_, rh := rec.Histograms()
	if rh.Min() > 1 || rh.ValueAtQuantile(50) < 299_000 || rh.ValueAtQuantile(50) > 301_000 {
		t.Fatalf("request latencies min %d, p50 %d µs", rh.Min(), rh.ValueAtQuantile(50))
	}
}

// TestTimeoutAbandons: a client that times out while queued leaves the
// queue (abandoned); with serve_abandoned its job is still served later,
// as wasted work.
func TestTimeoutAbandons(t *testing.T) {
	for _, serve := range []bool{false, true} {
		yaml := `
name: t
duration: 10s
target: {concurrency: 1, queue: 5, queue_timeout: 5s, service_time: 1s, serve_abandoned: SERVE}
workload: {kind: oneshot, clients: 2}
strategies: [{name: c, backoff: constant, base: 2s, max_attempts: 2, timeout: 500ms}]
`
		yaml = string(bytes.ReplaceAll([]byte(yaml), []byte("SERVE"), []byte(map[bool]string{false: "false", true: "true"}[serve])))
		res, _, run := simulate(t, yaml)
		// Both time out at 500 ms, the first while served (it runs on to
		// 1 s, wasted), the second queued: dropped, or served from 1 s to
		// 2 s. Both retry at 2.5 s and time out again at 3 s, when the run
		// ends, one running, one queued (dropped, or not).
		wantOutcomes(t, run, map[string]int64{"timeout": 4})
		want := map[bool][3]int64{false: {2, 1, 1}, true: {0, 2, 2}}[serve] // abandoned, served, wasted
		if got := [3]int64{res.Target.Abandoned, res.Target.Served, res.Target.Wasted}; got != want {
			t.Fatalf("serve_abandoned %v: abandoned, served, wasted = %v, want %v", serve, got, want)
		}
	}
}

// TestLatencyBlip: an added latency delays the request before it reaches
// the capacity model; the attempt takes service + delay.
func TestLatencyBlip(t *testing.T) {
	_, rec, _ := simulate(t, `
name: t
duration: 10s
chaos: [{kind: blip, delay: 50ms, at: 0s, for: 1s}]
target: {service_time: 20ms}
workload: {kind: oneshot, clients: 1}
strategies: [{name: c, backoff: none}]
`)
	if rec.LastEnd() != 70*time.Millisecond {
		t.Fatalf("last end %s", rec.LastEnd())
	}
}

// TestOpenWorkload: Poisson arrivals at 100/s for 10 s, each one request.
func TestOpenWorkload(t *testing.T) {
	_, _, run := simulate(t, `
name: t
duration: 10s
seed: 4
target: {service_time: 1ms}
workload: {kind: open, rate: 100}
strategies: [{name: c, backoff: none}]
`)
	// A request that arrives in the run's last millisecond is still in
	// flight when it ends.
	if run.Requests < 900 || run.Requests > 1100 || run.Requests-run.Succeeded > 1 {
		t.Fatalf("%d requests, %d succeeded", run.Requests, run.Succeeded)
	}
}

const outageYAML = `
name: t
duration: 6s
seed: 3
target: {concurrency: 8, queue: 20, queue_timeout: 300ms, service_time: exponential(10ms), cold_start: {from: 0.2, ramp: 1s}}
network: {delay: "normal(1ms, 300us)"}
chaos:
  - {kind: blip, mode: blackhole, at: 1s, for: 500ms}
  - {kind: outage, mode: reset, at: 1.5s, for: 500ms}
  - {kind: error-rate, rate: 0.1, at: 3s, for: 1s}
  - {kind: outage, mode: refuse, at: 4.5s, for: 200ms}
workload: {kind: closed, clients: 300, think: exponential(200ms)}
strategies: [{name: c, backoff: full, base: 50ms, cap: 2s, max_attempts: 6, timeout: 400ms}]
`

// TestDeterministic runs a scenario with every kind of fault twice: the
// records are identical, bit for bit.
func TestDeterministic(t *testing.T) {
	var prev []byte
	for i := 0; i < 2; i++ {
		res, rec, run := simulate(t, outageYAML)
		tl := rec.Timeline(results.Bucket)
		b, err := json.Marshal([]any{res, run, tl.Rows})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && !bytes.Equal(b, prev) {
			t.Fatal("two runs with one seed differ")
		}
		prev = b
		if res.Target.Crashed == 0 || run.Outcomes["refused"] == 0 || run.Outcomes["timeout"] == 0 || run.Outcomes["http_5xx"] == 0 {
			t.Fatalf("the scenario should exercise every fault: %+v %v", res.Target, run.Outcomes)
		}
	}
}

// TestNoAllocationPerEvent: a run four times as long allocates hardly
// more (less than one allocation per 50 events more): the event loop
// allocates nothing per event.
func TestNoAllocationPerEvent(t *testing.T) {
	p := loadPlan(t, "outage", scenarios.Overrides{Clients: 200, Duration: 20 * time.Second})
	short := *p
	short.Duration = 5 * time.Second
	s := sim.New()
	allocs := func(p *scenarios.Plan) (float64, uint64) {
		// Per-second latency intervals allocate per second of run, not
		// per event; this test is about the event loop.
		rec := results.NewRecorder(p.Duration, 1).WithoutIntervals()
		var events uint64
		a := testing.AllocsPerRun(3, func() {
			rec.Reset()
			events = s.Run(cohortOf(p, "full-jitter", 1), rec).Events
		})
		return a, events
	}
	a5, e5 := allocs(&short)
	a20, e20 := allocs(p)
	if e20 < 3*e5 {
		t.Fatalf("events %d and %d: the long run should have far more", e5, e20)
	}
	// Clients and their streams are allocated per run, and the target's
	// jobs up to the most ever alive at once (its slots and queue); events
	// add none.
	if (a20 - a5) > float64(e20-e5)/50 {
		t.Fatalf("%v allocations for %d events, %v for %d: allocation per event", a20, e20, a5, e5)
	}
}
