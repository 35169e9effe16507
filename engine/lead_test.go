package engine

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// The lead before t = 0 leaves every closed-loop or one-shot client of
// every cohort time to open its connection.
func TestLeadGrowsWithTheClients(t *testing.T) {
	two := []clients.Strategy{{Name: "a"}, {Name: "b"}}
	for _, tc := range []struct {
		w    clients.Workload
		want time.Duration
	}{
		{clients.Workload{Kind: clients.Closed, Clients: 1}, 200*time.Millisecond + 2*leadPerClient},
		{clients.Workload{Kind: clients.OneShot, Clients: 1000}, 200*time.Millisecond + 2000*leadPerClient},
		{clients.Workload{Kind: clients.Open, Rate: 1000}, 200 * time.Millisecond}, // no connections to open ahead
	} {
		p := &scenarios.Plan{Workload: tc.w, Strategies: two}
		if got := leadFor(p, clients.Part{}); got != tc.want {
			t.Errorf("%s workload, %d clients, 2 cohorts: lead %s, want %s", tc.w.Kind, tc.w.Clients, got, tc.want)
		}
	}
}

// A target that refuses connections from t = 0 refuses the first wave too:
// connections opened ahead of the start do not get around the outage, and
// every attempt in it fails at its send instant.
func TestRefuseFromTheStartRefusesTheFirstWave(t *testing.T) {
	p := scenariotest.Plan(t, `
name: refuse-at-start
duration: 2s
seed: 3
chaos:
  - {kind: outage, mode: refuse, at: 0s, for: 1s}
workload: {kind: oneshot, clients: 20}
strategies:
  - {name: constant, backoff: constant, base: 300ms, max_attempts: 5, timeout: 1s}
`, scenarios.Overrides{})
	out := runInBubble(t, p)
	tl := out.Cohorts[0].Rec.Timeline(results.Bucket)
	for b, row := range tl.Rows {
		var want [results.NumOutcomes]int64
		if b == 0 {
			// At the very instant the outage begins, a write on a connection
			// opened during the lead may beat the crash that resets it: the
			// target then resets that attempt instead of refusing it. Both
			// are failures at the send instant.
			row[results.Refused] += row[results.Reset]
			row[results.Reset] = 0
		}
		switch b {
		case 0, 30, 60, 90: // 0, 0.3, 0.6, 0.9 s: refused at once
			want[results.Refused] = 20
		case 120: // 1.2 s: listening again
			want[results.OK] = 20
		}
		if got := [results.NumOutcomes]int64(row[:results.NumOutcomes]); got != want {
			t.Errorf("bucket %d (%s): %v, want %v", b, time.Duration(b)*results.Bucket, got, want)
		}
	}
}

// A crash while the clients are idle resets their open connections; their
// next attempts, after the outage, open new ones and succeed: a reset idle
// connection is not an attempt's outcome (as with net/http's pool).
func TestCrashWhileIdleIsNotAnOutcome(t *testing.T) {
	p := scenariotest.Plan(t, `
name: crash-while-idle
duration: 700ms
seed: 3
chaos:
  - {kind: outage, mode: reset, at: 300ms, for: 100ms}
workload: {kind: closed, clients: 20, think: 500ms}
strategies:
  - {name: once, backoff: none, max_attempts: 1, timeout: 1s}
`, scenarios.Overrides{})
	out := runInBubble(t, p)
	tl := out.Cohorts[0].Rec.Timeline(results.Bucket)
	for b, row := range tl.Rows {
		var want [results.NumOutcomes]int64
		if b == 50 {
			want[results.OK] = 20
		}
		if got := [results.NumOutcomes]int64(row[:results.NumOutcomes]); got != want {
			t.Errorf("bucket %d (%s): %v, want %v", b, time.Duration(b)*results.Bucket, got, want)
		}
	}
}
