package engine

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// fuzzDuration is how long each fuzzed scenario runs, in virtual time, and
// fuzzMemory the most its run may be estimated to need: larger ones are
// refused, as --max-memory refuses them.
const (
	fuzzDuration = 100 * time.Millisecond
	fuzzMemory   = 256 << 20
	// fuzzInstantAttempts is the most attempts a request whose backoff
	// never waits may make in a fuzzed run.
	fuzzInstantAttempts = 1000
)

// edgeScenarios are valid scenarios at the edges of the documented ranges.
var edgeScenarios = []string{
	"name: long\nduration: 24h\nworkload: {clients: 1, think: exponential(24h)}\nstrategies: [{name: a, backoff: exponential, base: 24h, cap: 24h, timeout: 24h, multiplier: 100, max_attempts: 1000000}]\n",
	"name: fast\nworkload: {kind: open, rate: 10000000}\nstrategies: [{name: a, backoff: none, max_attempts: unlimited, timeout: 1ms}]\n",
	"name: fast\nworkload: {kind: open, rate: 1000000}\nstrategies: [{name: a, backoff: none, max_attempts: unlimited, timeout: 1ms}]\n",
	"name: slow\nworkload: {kind: open, rate: 0.001}\nstrategies: [{name: a, backoff: full}]\n",
	"name: huge-draws\ntarget: {service_time: exponential(24h), queue_timeout: 24h, concurrency: 1000000, queue: 10000000}\nnetwork: {delay: 'normal(24h, 24h)'}\nstrategies: [{name: a, backoff: decorrelated, cap: 24h, timeout: 0s}]\n",
	"name: faults\nduration: 24h\nworkload: {clients: 2}\nchaos: [{kind: outage, mode: reset, at: 0s, for: 24h}, {kind: pushback, retry_after: 24h, at: 1ms, for: 1ms}, {kind: blip, delay: 'uniform(0s, 24h)', at: 0s, for: 24h}]\nstrategies: [{name: a, backoff: full, retry_after: honor, retry_after_cap: 24h}]\n",
	"name: policies\nworkload: {clients: 50}\nstrategies: [{name: a, backoff: full, budget: {kind: aws, tokens: 1000000000, retry_cost: 1000000000}, breaker: {consecutive_failures: 1000000000, open_for: 24h}, throttle: {k: 1000, window: 24h}}]\nthresholds: ['mean(success_ratio) >= 0%', 'recovery_s <= 24h']\n",
	"name: occ\ntarget: {kind: occ}\nworkload: {kind: oneshot, clients: 1000}\nstrategies: [{name: a, backoff: full, max_attempts: unlimited}]\n",
}

// FuzzScenarioSim runs every scenario that validates: parse, compile, then
// a 100 ms simulated run, its thresholds and its summary.json. Whatever
// validates must run without a panic and within the memory its estimate
// allows (the allocations of the whole run are at most four times the
// estimate, plus the runtime's own). Runs the command would refuse for
// their memory are skipped, and so are those that are valid but too slow
// for one fuzz input (thousands of attempts per request at one instant). The seed corpus holds the built-in
// scenarios, the edges of the ranges and every hostile input of
// scenarios/testdata/bad.
func FuzzScenarioSim(f *testing.F) {
	bs, err := scenarios.Builtins()
	if err != nil {
		f.Fatal(err)
	}
	for _, b := range bs {
		op, err := scenarios.Open(b.Name, scenarios.Overrides{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(op.Source))
	}
	for _, s := range edgeScenarios {
		f.Add(s)
	}
	f.Add(trafficScenario) // a request mix, routes, retry_non_idempotent
	bad, err := filepath.Glob(filepath.Join("..", "scenarios", "testdata", "bad", "*.yaml"))
	if err != nil || len(bad) == 0 {
		f.Fatalf("no hostile inputs in scenarios/testdata/bad: %v", err)
	}
	for _, path := range bad {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Fuzz(fuzzScenario)
}

// fuzzScenario is FuzzScenarioSim's check of one input.
func fuzzScenario(t *testing.T, src string) {
	{
		s, err := scenarios.Parse("fuzz.yaml", []byte(src))
		if err != nil {
			return
		}
		p, err := s.Compile(scenarios.Overrides{})
		if err != nil {
			return
		}
		// The scenario's own plan, cut to 100 ms: its faults may lie
		// later (the simulator never reaches them).
		for _, st := range p.Strategies {
			if (st.Backoff.Shape == clients.None || st.Backoff.Base == 0) && st.MaxAttempts > fuzzInstantAttempts {
				// Valid, and finite, but up to a million attempts per
				// request at one instant: too slow for one fuzz input.
				return
			}
		}
		q := *p
		q.Duration = min(q.Duration, fuzzDuration)
		plans := []*scenarios.Plan{&q}
		o := Options{Version: "fuzz", Mode: Mode{Sim: true, Workers: 1, Timelines: true}}
		if CheckMemory(plans, o, fuzzMemory, "the fuzz limit") != nil {
			return // refused before it starts, as the command refuses it
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		points, err := Execute(context.Background(), plans, o)
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
		out := points[0].Output
		if _, err := folder.EncodeSummary(out.Summary); err != nil {
			t.Fatalf("summary.json cannot be written: %v", err)
		}
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		if limit := 4*EstimateMemory(plans, o).Total + 64<<20; allocated > limit {
			t.Fatalf("the run allocated %d bytes, more than 4 × its estimate (+64 MiB): %d", allocated, limit)
		}
	}
}
