package merge

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// Scenarios whose clients do not interact: the target has capacity for
// every client at once and no queue, its service time and network are
// constants (no draw from the target's stream), and the policies are each
// client's own. Each client's attempts then depend on its own stream and
// the fault plan alone, so a cohort split into shards records, added up,
// exactly what it records whole. Each fault kind that acts on single
// requests is there: a blackhole (held until the timeout), a reset crash
// (in-flight attempts reset at one instant), a refusal, 503s with
// Retry-After.
const independentClosed = `
name: independent-closed
duration: 6s
seed: 11
target:
  concurrency: 100000
  queue: 0
  service_time: 3ms
chaos:
  - {name: stall, kind: blip, mode: blackhole, at: 1s, for: 500ms}
  - {name: crash, kind: outage, mode: reset, at: 1500ms, for: 700ms}
  - {name: push, kind: pushback, status: 503, retry_after: 1s, at: 3500ms, for: 500ms}
workload:
  kind: closed
  clients: 113
  think: exponential(150ms)
strategies:
  - {name: no-jitter, backoff: exponential, base: 100ms, cap: 2s, max_attempts: 6, timeout: 400ms}
  - {name: full-jitter, backoff: full, base: 100ms, cap: 2s, max_attempts: 6, timeout: 400ms}
  - name: breaker
    backoff: decorrelated
    base: 50ms
    cap: 1s
    max_attempts: 5
    timeout: 400ms
    retry_after: honor
    breaker: {consecutive_failures: 2, open_for: 300ms}
    budget: {kind: aws}
`

const independentOpen = `
name: independent-open
duration: 5s
seed: 5
target:
  concurrency: 100000
  queue: 0
  service_time: 2ms
chaos:
  - {name: down, kind: outage, mode: "503", at: 1s, for: 1s}
  - {name: slow, kind: blip, delay: 30ms, at: 2500ms, for: 1s}
workload:
  kind: open
  rate: 300
strategies:
  - {name: no-jitter, backoff: exponential, base: 100ms, cap: 2s, max_attempts: 5, timeout: 1s}
  - {name: equal-jitter, backoff: equal, base: 100ms, cap: 2s, max_attempts: 5, timeout: 1s}
`

const independentOneShot = `
name: independent-oneshot
duration: 4s
seed: 3
target:
  concurrency: 100000
  queue: 0
  service_time: 5ms
chaos:
  - {name: down, kind: outage, mode: refuse, at: 0s, for: 300ms}
workload:
  kind: oneshot
  clients: 57
strategies:
  - {name: no-jitter, backoff: exponential, base: 50ms, cap: 1s, max_attempts: 8, timeout: 1s}
  - {name: full-jitter, backoff: full, base: 50ms, cap: 1s, max_attempts: 8, timeout: 1s}
`

// t0 is the agreed start of the runs these tests write.
var t0 = time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)

// simulate runs p (shard part of it) in virtual time and writes its
// results folder into dir, started at t0; it returns the folder.
func simulate(t *testing.T, p *scenarios.Plan, part clients.Part, dir string) string {
	t.Helper()
	points, err := engine.Execute(context.Background(), []*scenarios.Plan{p}, engine.Options{Version: "test", Mode: engine.Mode{Sim: true, Timelines: true}, Shard: engine.Shard{Part: part}})
	if err != nil {
		t.Fatal(err)
	}
	out := points[0].Output
	out.Summary.Started = t0
	if sh := out.Summary.Shard; sh != nil {
		sh.StartAt = t0
	}
	if err := folder.Write(dir, out); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMergeIsExact: in virtual time, a cohort's clients run as N separate
// shards and merged give the single run's timeline.csv cell for cell, its
// .hlog files interval for interval, and every figure of summary.json,
// for N = 2, 3, 4, 7 and closed, open and one-shot workloads.
func TestMergeIsExact(t *testing.T) {
	for _, sc := range []struct{ name, yaml string }{
		{"closed", independentClosed}, {"open", independentOpen}, {"oneshot", independentOneShot},
	} {
		p := scenariotest.Plan(t, sc.yaml, scenarios.Overrides{})
		root := t.TempDir()
		whole := simulate(t, p, clients.Part{}, filepath.Join(root, "whole"))
		wantSum := readSummary(t, whole)
		if wantSum.Runs[0].Attempts == 0 || wantSum.Runs[0].Requests == wantSum.Runs[0].Attempts {
			t.Fatalf("%s: the single run retried nothing: %+v", sc.name, wantSum.Runs[0])
		}
		for _, n := range []int{2, 3, 4, 7} {
			t.Run(fmt.Sprintf("%s/%d", sc.name, n), func(t *testing.T) {
				var dirs []string
				for k := 0; k < n; k++ {
					dirs = append(dirs, simulate(t, p, clients.Part{Index: k, Of: n}, filepath.Join(root, fmt.Sprintf("n%d-shard%d", n, k))))
				}
				// Each shard alone is not the whole: the test would pass
				// trivially if a shard ran every client.
				if one := readSummary(t, dirs[0]); one.Runs[0].Attempts >= wantSum.Runs[0].Attempts {
					t.Fatalf("shard 0 of %d sent %d attempts, the whole run %d", n, one.Runs[0].Attempts, wantSum.Runs[0].Attempts)
				}
				m, warnings, err := Folders(dirs)
				if err != nil {
					t.Fatal(err)
				}
				if len(warnings) != n { // no clock measured in virtual time
					t.Errorf("warnings: %q", warnings)
				}
				merged := filepath.Join(root, fmt.Sprintf("merged-%d", n))
				if err := folder.Write(merged, m.Output); err != nil {
					t.Fatal(err)
				}
				sameFile(t, whole, merged, "timeline.csv")
				sameFile(t, whole, merged, "timeline_1s.csv")
				for _, log := range folder.HlogNames(strategies(wantSum)) {
					sameFile(t, whole, merged, log)
				}
				got := readSummary(t, merged)
				for i := range wantSum.Runs {
					w, g := wantSum.Runs[i], got.Runs[i]
					for _, name := range results.MetricNames() {
						mt, _ := results.LookupMetric(name)
						wv, wok := mt.Value(&w)
						gv, gok := mt.Value(&g)
						if wv != gv || wok != gok {
							t.Errorf("%s %s: merged %v (%v), whole %v (%v)", w.Strategy, name, gv, gok, wv, wok)
						}
					}
				}
				if got.Merged == nil || got.Merged.Of != n || len(got.Merged.Shards) != n || got.Shard != nil {
					t.Errorf("merged marking: %+v, shard %+v", got.Merged, got.Shard)
				}
			})
		}
	}
}

// sameFile fails unless file name is the same bytes in folders a and b.
func sameFile(t *testing.T, a, b, name string) {
	t.Helper()
	x, err := os.ReadFile(filepath.Join(a, name))
	if err != nil {
		t.Fatal(err)
	}
	y, err := os.ReadFile(filepath.Join(b, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Errorf("%s differs between the whole run and the merged shards:\n%s", name, firstDiff(x, y))
	}
}

func firstDiff(x, y []byte) string {
	xl, yl := bytes.Split(x, []byte("\n")), bytes.Split(y, []byte("\n"))
	for i := range max(len(xl), len(yl)) {
		var a, b []byte
		if i < len(xl) {
			a = xl[i]
		}
		if i < len(yl) {
			b = yl[i]
		}
		if !bytes.Equal(a, b) {
			return fmt.Sprintf("line %d:\n  whole:  %.200s\n  merged: %.200s", i+1, a, b)
		}
	}
	return "(same lines)"
}

func readSummary(t *testing.T, dir string) *results.Summary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := folder.DecodeSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
