package engine

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// The estimate adds up its parts as documented: kept timelines and the
// workers' scratch recorders, the workers' client slabs, the kept figures.
func TestEstimateMemoryParts(t *testing.T) {
	p := scenariotest.Plan(t, `
name: parts
duration: 30s
workload: {kind: closed, clients: 100}
strategies:
  - {name: a, backoff: full}
  - {name: b, backoff: none}
  - {name: c, backoff: equal}
  - {name: d, backoff: exponential}
`, scenarios.Overrides{})
	plans := []*scenarios.Plan{p}
	e := EstimateMemory(plans, Options{Mode: Mode{Sim: true, Timelines: true, Workers: 2}})
	want := MemoryEstimate{
		Timelines: 4*30*memPerWrittenSecond + 2*30*memPerRecorderSecond,
		Clients:   2 * 100 * memPerSimClient,
		Runs:      4 * memPerCohortRun,
	}
	want.Total = memBase + want.Timelines + want.Clients + want.Runs
	if e != want {
		t.Errorf("sim: %+v, want %+v", e, want)
	}
	e = EstimateMemory(plans, Options{Mode: Mode{Runs: 3}})
	want = MemoryEstimate{
		Timelines: 4*memPerRealCohort + 4*30*memPerRecorderSecond,
		Clients:   4 * 100 * memPerRealClient,
		Runs:      4 * 3 * memPerCohortRun,
	}
	want.Total = memBase + want.Timelines + want.Clients + want.Runs
	if e != want {
		t.Errorf("real time, 3 repetitions: %+v, want %+v", e, want)
	}
}

// An open workload counts the arrivals of the longest a request can last:
// here 3 attempts of 2s with waits of at most 1s between them, 8s.
func TestEstimateMemoryOpenWorkload(t *testing.T) {
	p := scenariotest.Plan(t, `
name: open
duration: 1m
workload: {kind: open, rate: 1000}
strategies:
  - {name: a, backoff: full, max_attempts: 3, timeout: 2s, cap: 1s}
`, scenarios.Overrides{})
	if got := inFlight(p); got != 8001 {
		t.Errorf("inFlight = %d, want 8001 (1000/s × 8s, plus one)", got)
	}
	p.Strategies[0].MaxAttempts = 0 // unlimited: the whole run
	if got := inFlight(p); got != 60001 {
		t.Errorf("inFlight with unlimited attempts = %d, want 60001", got)
	}
}

// The largest plans validation accepts saturate the estimate instead of
// wrapping around to a small number, and are refused.
func TestEstimateMemorySaturates(t *testing.T) {
	p := scenariotest.Plan(t, `
name: huge
duration: 24h
workload: {kind: open, rate: 10000000}
strategies:
  - {name: a, backoff: full, max_attempts: unlimited}
`, scenarios.Overrides{})
	for i := 0; i < 99; i++ {
		s := p.Strategies[0]
		s.Name += strings.Repeat("x", i+1)
		p.Strategies = append(p.Strategies, s)
	}
	plans := make([]*scenarios.Plan, scenarios.MaxSweepPoints)
	for i := range plans {
		plans[i] = p
	}
	e := EstimateMemory(plans, Options{Mode: Mode{Runs: scenarios.MaxRuns}})
	if e.Total < 1<<50 {
		t.Errorf("the largest run is estimated at %d bytes", e.Total)
	}
	if sat(math.MaxUint64/2, 3) != math.MaxUint64 || add(math.MaxUint64-1, 2) != math.MaxUint64 {
		t.Error("sat or add wraps around")
	}
	if n := FilesNeeded(&scenarios.Plan{Workload: p.Workload, Strategies: p.Strategies}); n < 0 {
		t.Errorf("FilesNeeded wraps around: %d", n)
	}
}

// A run above the limit is refused before anything starts, with what it
// needs, every part of the sum named (a small run's "about 61 MiB" once
// listed 1.5 MiB of parts, the process's own 60 left out), and how to
// bring it down; the same run under the limit is not.
func TestMemoryLimitRefuses(t *testing.T) {
	p := scenariotest.Plan(t, `
name: long
duration: 24h
workload: {kind: closed, clients: 1000}
strategies:
  - {name: a, backoff: full}
  - {name: b, backoff: none}
`, scenarios.Overrides{})
	plans := []*scenarios.Plan{p}
	err := CheckMemory(plans, Options{Mode: Mode{Sim: true, Timelines: true}}, 4<<30, "--max-memory 4.0 GiB")
	if !errors.Is(err, ErrTooMuchMemory) {
		t.Fatalf("CheckMemory: %v, want ErrTooMuchMemory", err)
	}
	for _, want := range []string{"about 20 GiB", "the process itself 60 MiB;", "2 cohorts over 24h0m0s", "1000 clients", "above --max-memory 4.0 GiB", "--duration"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message lacks %q: %v", want, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Execute(ctx, plans, Options{MaxMemory: 4 << 30, Mode: Mode{Sim: true, Timelines: true}}); !errors.Is(err, ErrTooMuchMemory) {
		t.Errorf("Execute over the limit: %v", err)
	}
	p.Duration = time.Second
	if err := CheckMemory(plans, Options{Mode: Mode{Sim: true, Timelines: true}}, 4<<30, "4 GiB"); err != nil {
		t.Errorf("a 1 s run refused: %v", err)
	}
}

// Over gRPC, a real-time client is a caller on a grpc-go channel, and the
// channels count apart: one per client by default, one per
// connections.shared clients, one for a cohort whose grpc-go throttler is
// the cohort's (channel: cohort), as the swarm opens them over gRPC.
func TestEstimateMemoryCountsGRPCChannels(t *testing.T) {
	const src = `
name: grpc
duration: 30s
target: {protocol: grpc}
workload: {kind: closed, clients: 100}
strategies:
  - {name: own, backoff: full}
  - name: throttled
    client: grpc-go
    channel: cohort
    service_config: '{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}], "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}'
`
	for _, c := range []struct {
		name     string
		src      string
		channels uint64
	}{
		{"a channel per client", src, 100 + 1},
		{"ten clients to a channel", strings.Replace(src, "workload:", "connections: {shared: 10}\nworkload:", 1), 10 + 1},
	} {
		p := scenariotest.Plan(t, c.src, scenarios.Overrides{})
		e := EstimateMemory([]*scenarios.Plan{p}, Options{})
		if want := uint64(2*100*memPerGRPCCaller) + c.channels*memPerGRPCChannel; e.Clients != want {
			t.Errorf("%s: clients %d, want %d (200 callers and %d channels)", c.name, e.Clients, want, c.channels)
		}
		e = EstimateMemory([]*scenarios.Plan{p}, Options{Mode: Mode{Sim: true, Workers: 1}})
		if want := uint64(100*memPerSimClient) + 100*memPerSimChannel; c.channels == 101 && e.Clients != want {
			t.Errorf("%s, simulated: clients %d, want %d (the slab of 100 clients and their 100 channels)", c.name, e.Clients, want)
		}
	}
	// An HTTP target has no channels: the same plan over HTTP costs a connection per client.
	p := scenariotest.Plan(t, "name: h\nduration: 30s\nworkload: {kind: closed, clients: 100}\nstrategies:\n  - {name: own, backoff: full}\n", scenarios.Overrides{})
	if e := EstimateMemory([]*scenarios.Plan{p}, Options{}); e.Clients != 100*memPerRealClient {
		t.Errorf("HTTP: clients %d, want %d", e.Clients, 100*memPerRealClient)
	}
}

// TestMemoryEstimateCountsRequestBodies: a request with a placeholder is
// filled, body included, into each client's own buffer, so 300 clients of
// a 6 MiB body with a {uuid} need about 1.8 GiB more: refused under a
// 1 GiB limit, saying the bodies take it, where the estimate once left
// bodies out and the run died of the out-of-memory killer. The same body
// without a placeholder is prepared once for the cohort.
func TestMemoryEstimateCountsRequestBodies(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.json"), bytes.Repeat([]byte("x"), 6<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	open := func(path string) *scenarios.Plan {
		t.Helper()
		file := filepath.Join(dir, "s.yaml")
		yaml := "name: bodies\nduration: 5s\nworkload: {kind: closed, clients: 300}\nstrategies:\n  - {name: a, backoff: full}\nrequests:\n  - {method: PUT, path: \"" + path + "\", body: \"@big.json\"}\n"
		if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		op, err := scenarios.Open(file, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		return op.Plans[0]
	}
	filled := []*scenarios.Plan{open("/items/{uuid}")}
	e := EstimateMemory(filled, Options{})
	if min := uint64(300 * 6 << 20); e.Bodies < min || e.Clients < e.Bodies || e.Total < min {
		t.Errorf("300 clients filling a 6 MiB body: bodies %d MiB, clients %d MiB, total %d MiB; want the bodies at least %d MiB", e.Bodies>>20, e.Clients>>20, e.Total>>20, min>>20)
	}
	err := CheckMemory(filled, Options{}, 1<<30, "--max-memory 1.0 GiB")
	if !errors.Is(err, ErrTooMuchMemory) || !strings.Contains(err.Error(), "their request bodies") || !strings.Contains(err.Error(), "smaller request bodies") {
		t.Errorf("CheckMemory: %v; want it refused, naming the request bodies", err)
	}
	prepared := []*scenarios.Plan{open("/items/1")}
	if e := EstimateMemory(prepared, Options{}); e.Bodies > 7<<20 || CheckMemory(prepared, Options{}, 1<<30, "1 GiB") != nil {
		t.Errorf("a 6 MiB body without a placeholder: bodies %d MiB, total %d MiB; want it counted once", e.Bodies>>20, e.Total>>20)
	}
	if e := EstimateMemory(filled, Options{Mode: Mode{Sim: true}}); e.Bodies != 0 {
		t.Errorf("in virtual time the bodies take %d bytes; the simulator sends none", e.Bodies)
	}
}
