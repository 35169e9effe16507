package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

const stallThenCrash = `
name: stall-then-crash
duration: 6s
seed: 7
target:
  concurrency: 8
  queue: 32
  queue_timeout: 500ms
  service_time: 2ms
  cold_start: {from: 0.25, ramp: 1s}
chaos:
  - {name: stall, kind: blip, mode: blackhole, at: 1500ms, for: 500ms}
  - {name: crash, kind: outage, mode: reset, at: 2s, for: 1s}
workload:
  kind: closed
  clients: 40
  think: exponential(200ms)
strategies:
  - {name: no-jitter, backoff: exponential, base: 100ms, cap: 2s, max_attempts: 6, timeout: 1s}
  - {name: full-jitter, backoff: full, base: 100ms, cap: 2s, max_attempts: 6, timeout: 1s}
`

// runInBubble runs p through the real HTTP server and swarm over an
// in-memory network inside a synctest bubble: virtual time, so the send
// time of an attempt and its arrival at the target are the same instant.
func runInBubble(t *testing.T, p *scenarios.Plan) folder.Output {
	t.Helper()
	var out folder.Output
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		r, err := Start(context.Background(), p, Options{Version: "test", Network: Network{Listen: n.Listen, Dial: n.Dial}})
		if err != nil {
			t.Fatal(err)
		}
		out = r.Wait()
	})
	return out
}

func bucketOf(d time.Duration) int { return int(d / results.Bucket) }

func TestStallThenCrashResetsHeldRequestsAndRetriesInLockstep(t *testing.T) {
	out := runInBubble(t, scenariotest.Plan(t, stallThenCrash, scenarios.Overrides{}))
	if out.Summary.Partial {
		t.Fatal("run marked partial")
	}
	for i, c := range out.Cohorts {
		tl := c.Rec.Timeline(results.Bucket)
		name := c.Strategy
		var held int64
		for b, row := range tl.Rows {
			at := time.Duration(b) * results.Bucket
			var attempts int64
			for o := results.Outcome(0); o < results.NumOutcomes; o++ {
				attempts += row[o]
			}
			switch {
			case at < 1500*time.Millisecond:
				if row[results.OK] != attempts {
					t.Errorf("%s: at %v, before any fault, %d of %d attempts failed", name, at, attempts-row[results.OK], attempts)
				}
			case at < 3*time.Second:
				// Held by the stall then reset by the crash, or reset on arrival.
				if row[results.Reset] != attempts {
					t.Errorf("%s: at %v, during the stall and crash, %d of %d attempts were not reset: %v", name, at, attempts-row[results.Reset], attempts, row)
				}
				if at < 2*time.Second {
					held += attempts
				}
			}
		}
		if held == 0 {
			t.Fatalf("%s: the stall held no attempts", name)
		}
		run := out.Summary.Runs[i]
		if run.Attempts != sum(tl.Attempts()) || run.Requests < run.Succeeded+run.Failed {
			t.Errorf("%s: inconsistent totals: %+v", name, run)
		}
		t.Logf("%s: held by the stall: %d; summary: herd %.2f, failed after fault %d", name, held, run.HerdFactor, run.FailedAfterFault)
		if name == "no-jitter" {
			// Every held request was reset at 2 s, and each retries exactly
			// 2 s + 100 ms * 2^1 later: one synchronized wave in one bucket.
			wave := tl.Rows[bucketOf(2200*time.Millisecond)][results.SeriesRetry1]
			if wave < held {
				t.Errorf("no-jitter: %d first retries at 2.2 s, want all %d requests the stall held", wave, held)
			}
		}
	}
	nj, fj := out.Summary.Runs[0], out.Summary.Runs[1]
	if nj.HerdFactor < 3*fj.HerdFactor {
		t.Errorf("herd factor: no-jitter %.2f, full-jitter %.2f; want the waves to stand out", nj.HerdFactor, fj.HerdFactor)
	}
}

func sum(v []int64) int64 {
	var s int64
	for _, x := range v {
		s += x
	}
	return s
}

func TestRefuseOutageRefusesThenListensAgain(t *testing.T) {
	p := scenariotest.Plan(t, `
name: refuse
duration: 3s
seed: 3
chaos:
  - {kind: outage, mode: refuse, at: 1s, for: 1s}
workload: {kind: closed, clients: 10, think: 50ms}
strategies:
  - {name: constant, backoff: constant, base: 30ms, max_attempts: unlimited, timeout: 1s}
`, scenarios.Overrides{})
	out := runInBubble(t, p)
	tl := out.Cohorts[0].Rec.Timeline(results.Bucket)
	var refused, okAfter int64
	for b, row := range tl.Rows {
		at := time.Duration(b) * results.Bucket
		switch {
		case at >= time.Second && at < 2*time.Second:
			refused += row[results.Refused]
			if row[results.OK] != 0 {
				t.Errorf("at %v the target should refuse connections, got %d successes", at, row[results.OK])
			}
		case at >= 2*time.Second:
			okAfter += row[results.OK]
		}
	}
	t.Logf("refused %d, ok after %d", refused, okAfter)
	if refused == 0 || okAfter == 0 {
		t.Errorf("refused during the outage: %d, succeeded after it: %d; want both > 0", refused, okAfter)
	}
}

func TestOneshotFinishingEarlyIsNotPartialButStopIs(t *testing.T) {
	p := scenariotest.Plan(t, `
name: oneshot
duration: 10s
workload: {kind: oneshot, clients: 20}
strategies:
  - {name: once, backoff: none, max_attempts: 1}
`, scenarios.Overrides{})
	out := runInBubble(t, p)
	if out.Summary.Partial || out.Summary.Runs[0].Succeeded != 20 {
		t.Errorf("oneshot: partial %v, %+v", out.Summary.Partial, out.Summary.Runs[0])
	}
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		p := scenariotest.Plan(t, stallThenCrash, scenarios.Overrides{})
		r, err := Start(context.Background(), p, Options{Network: Network{Listen: n.Listen, Dial: n.Dial}})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Until(r.Origin.Add(time.Second)))
		r.Stop()
		out := r.Wait()
		if !out.Summary.Partial {
			t.Error("a stopped run is not marked partial")
		}
		// Stopped at 1 s, before the faults (1.5 s to 3 s) ended: the
		// figures end at 1 s, and nothing can say the target recovered.
		if e := out.Summary.EndedS; e == nil || *e != 1 {
			t.Errorf("ended_s = %v, want 1", e)
		}
		for i, c := range out.Cohorts {
			if n := len(c.Rec.Timeline(results.Bucket).Rows); n != 101 {
				t.Errorf("%s: the timeline has %d buckets, want 101 (up to the stop at 1 s)", c.Strategy, n)
			}
			if run := out.Summary.Runs[i]; run.RecoveryS != nil {
				t.Errorf("%s: recovery_s = %v for faults that never ended", run.Strategy, *run.RecoveryS)
			}
		}
		if el := time.Since(r.Origin); el > 1100*time.Millisecond {
			t.Errorf("the run took %v to stop", el)
		}
	})
}

// A real-time run that would run out of open files halfway is refused
// before anything starts; in virtual time the same plan runs.
func TestTooManyFilesRefused(t *testing.T) {
	p := scenariotest.Plan(t, `
name: fleet
duration: 1s
workload: {kind: closed, clients: 10000000}
strategies:
  - {name: a, backoff: full}
  - {name: b, backoff: none}
`, scenarios.Overrides{})
	if FilesNeeded(p) != 2*2*10000000+filesSpare {
		t.Errorf("FilesNeeded = %d", FilesNeeded(p))
	}
	_, err := Start(context.Background(), p, Options{})
	if !errors.Is(err, ErrTooManyFiles) || !strings.Contains(err.Error(), "--sim") {
		t.Fatalf("Start: %v, want ErrTooManyFiles naming --sim", err)
	}
}

// TestEmbeddedCapFitsAdmittedRuns: every run the open-files check admits
// has all its clients under each embedded target's connection cap, at the
// largest client count admitted and one more (refused).
func TestEmbeddedCapFitsAdmittedRuns(t *testing.T) {
	for cohorts := 1; cohorts <= 5; cohorts++ {
		strategies := ""
		for i := range cohorts {
			strategies += fmt.Sprintf("  - {name: s%d, backoff: full}\n", i)
		}
		largest := (netguard.OpenFiles() - filesSpare) / (2 * cohorts)
		for _, n := range []int{1, 100, largest, largest + 1} {
			p := scenariotest.Plan(t, fmt.Sprintf("name: fleet\nduration: 1s\nworkload: {kind: closed, clients: %d}\nstrategies:\n%s", n, strategies), scenarios.Overrides{})
			admitted := checkFiles(p) == nil
			if admitted != (n <= largest) {
				t.Errorf("%d cohorts of %d clients: admitted %v", cohorts, n, admitted)
			}
			if l := embeddedLimits(p); admitted && l.MaxConns < n {
				t.Errorf("%d cohorts of %d clients admitted, but each target holds only %d connections", cohorts, n, l.MaxConns)
			}
			if l := embeddedLimits(p); l.ReadHeaderTimeout <= 0 || l.IdleTimeout < p.Duration {
				t.Errorf("embedded limits %+v: want a header timeout and idle connections kept for the run", l)
			}
		}
	}
}
