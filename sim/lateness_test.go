package sim_test

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"github.com/herdbench/herdbench/sim"
)

// With Cohort.Lateness, a client learns of a failed attempt a draw of its
// values later, and retries from then: 100 clients that a crash resets at
// one instant send their retries at the crash plus the backoff plus each
// one's draw, every value drawn by some; without it, all at one instant.
// The latency recorded is the learning's, as the real engine records when
// it read the failure.
func TestLatenessDelaysTheLearningOfAFailure(t *testing.T) {
	const src = `
name: t
duration: 4s
chaos:
  - {kind: blip, mode: blackhole, at: 500ms, for: 500ms}
  - {kind: outage, mode: reset, at: 1s, for: 2s}
target: {service_time: 0s}
workload: {kind: closed, clients: 100, think: 400ms}
strategies: [{name: c, backoff: constant, base: 100ms, max_attempts: 2, timeout: 3s}]
`
	p := scenariotest.Plan(t, src, scenarios.Overrides{})
	const ms = time.Millisecond
	retryAt := int((1100 * ms) / results.Bucket) // the crash plus the backoff
	for _, c := range []struct {
		late []time.Duration
		// want is the retries in each bucket from retryAt on.
		want map[int]int64
	}{
		{nil, map[int]int64{0: 100}},
		{[]time.Duration{20 * ms}, map[int]int64{2: 100}},
		{[]time.Duration{0, 30 * ms}, nil}, // both buckets, 100 in all
	} {
		co := cohortOf(p, "c", p.Seed)
		co.Lateness = c.late
		rec := results.NewRecorder(p.Duration, 1)
		sim.New().Run(co, rec)
		tl := rec.Timeline(results.Bucket)
		got := map[int]int64{}
		var all int64
		for b := retryAt; b < retryAt+5; b++ { // the wave's, before any later request's retries
			if n := tl.Rows[b][results.SeriesRetry1]; n > 0 {
				got[b-retryAt] += n
				all += n
			}
		}
		if c.want == nil {
			if all != 100 || got[0] == 0 || got[3] == 0 || got[0]+got[3] != 100 {
				t.Errorf("lateness %v: retries by bucket after the wave's instant %v, want 100 split between +0 and +3 (30 ms)", c.late, got)
			}
		} else if len(got) != len(c.want) || got[0] != c.want[0] || got[2] != c.want[2] {
			t.Errorf("lateness %v: retries by bucket after the wave's instant %v, want %v", c.late, got, c.want)
		}
		// The reset the crash made is recorded with the latency of its
		// learning: sent during the stall (at 800 ms: every client's third
		// request), learned at 1 s plus the draw; the longest with the
		// largest draw.
		a, _ := rec.Histograms()
		var most time.Duration
		if len(c.late) > 0 {
			most = c.late[len(c.late)-1]
		}
		if hi := time.Duration(a.Max()) * time.Microsecond; hi < 200*ms+most || hi > 200*ms+most+ms {
			t.Errorf("lateness %v: the longest attempt took %v, want 200 ms plus %v", c.late, hi, most)
		}
	}
}

// Cohort.Lateness is a crash's alone: a real harness learns late of the
// failures a crash hands every client at once, and of any other failure
// on its own schedule. A model that delayed every failure by the crash's
// spread smeared the waves into a recovering service and had it recover
// in a second where real runs took four (a regression test named after
// what that broke): here the retries the crash's lateness delays fail
// again during the outage, and their clients learn of that at once, so
// each next request starts its think time after the retry, not a draw
// later.
func TestLatenessDelaysTheCrashAloneNotTheRecoveryWaves(t *testing.T) {
	const src = `
name: t
duration: 4s
chaos:
  - {kind: blip, mode: blackhole, at: 500ms, for: 500ms}
  - {kind: outage, mode: reset, at: 1s, for: 2s}
target: {service_time: 0s}
workload: {kind: closed, clients: 100, think: 400ms}
strategies: [{name: c, backoff: constant, base: 100ms, max_attempts: 2, timeout: 3s}]
`
	p := scenariotest.Plan(t, src, scenarios.Overrides{})
	const ms = time.Millisecond
	co := cohortOf(p, "c", p.Seed)
	co.Lateness = []time.Duration{20 * ms}
	rec := results.NewRecorder(p.Duration, 1)
	sim.New().Run(co, rec)
	tl := rec.Timeline(results.Bucket)
	// The crash at 1 s, learned at 1.02 s; the retry at 1.12 s fails at
	// once (the outage resets it) and ends the request; the next one
	// starts 400 ms later, at 1.52 s: not at 1.54 s.
	next := int(1520 * ms / results.Bucket)
	if got := tl.Rows[next][results.SeriesFirst]; got != 100 {
		first := map[int]int64{}
		for b := next - 5; b < next+5; b++ {
			if n := tl.Rows[b][results.SeriesFirst]; n > 0 {
				first[b-next] = n
			}
		}
		t.Errorf("first tries by bucket around 1.52 s: %v, want all 100 at +0", first)
	}
}

// With Cohort.SendLag, every attempt goes out a draw after the instant its
// client scheduled it for: with one value, 30 ms, the clients' first
// requests (after a think time of 1 s) are the model's, 30 ms later.
func TestSendLagDelaysEverySend(t *testing.T) {
	const src = `
name: t
duration: 3s
target: {service_time: 0s}
workload: {kind: closed, clients: 50, think: 1s}
strategies: [{name: c, backoff: constant, base: 100ms, max_attempts: 2, timeout: 3s}]
`
	p := scenariotest.Plan(t, src, scenarios.Overrides{})
	first := func(lag []time.Duration) []int64 {
		co := cohortOf(p, "c", p.Seed)
		co.SendLag = lag
		rec := results.NewRecorder(p.Duration, 1)
		sim.New().Run(co, rec)
		tl := rec.Timeline(results.Bucket)
		var out []int64
		for b := range 150 {
			out = append(out, tl.Rows[b][results.OK])
		}
		return out
	}
	model, late := first(nil), first([]time.Duration{30 * time.Millisecond})
	var sum int64
	for b := range 147 {
		sum += model[b]
		if late[b+3] != model[b] {
			t.Fatalf("first tries by 10 ms bucket, the model's %v, with a send lag of 30 ms %v: want the model's 3 buckets later", model, late)
		}
	}
	if sum == 0 || late[100] != 0 || late[103] == 0 {
		t.Errorf("first tries by 10 ms bucket, the model's %v, with a send lag of 30 ms %v: want some, at 1.03 s and not at 1 s", model, late)
	}
}
