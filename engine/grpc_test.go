package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// repetitionSummaries returns one summary per repetition of a point run
// with several: each cohort's figures in that repetition.
func repetitionSummaries(t *testing.T, p Point) []*results.Summary {
	t.Helper()
	if len(p.Repetitions) == 0 {
		t.Fatal("no repetitions")
	}
	out := make([]*results.Summary, len(p.Repetitions[0]))
	for i := range out {
		out[i] = &results.Summary{}
		for _, cohort := range p.Repetitions {
			out[i].Runs = append(out[i].Runs, cohort[i])
		}
	}
	return out
}

// The built-in grpc-outage holds its headline in virtual time for every
// one of 20 seeds, not only the file's: what the README's figures say.
func TestGRPCOutageHoldsOverSeeds(t *testing.T) {
	op, err := scenarios.Open("grpc-outage", scenarios.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	points := execute(t, op.Plans, Options{Sim: true, Runs: 20})
	held := map[string]int{}
	for i, s := range repetitionSummaries(t, points[0]) {
		claims, _ := scenarios.Headline("grpc-outage", s)
		for _, c := range claims {
			if c.Holds {
				held[c.Text]++
			} else {
				t.Errorf("repetition %d: %s: %s", i+1, c.Text, c.Figure)
			}
		}
	}
	t.Logf("claims held over 20 seeds: %v", held)
}

// grpcAgreement is the storm the grpc preset is for: the built-in
// grpc-outage's service and faults, with the preset beside grpc-go running
// the preset's design (gRFC A6's example policy and throttling, a channel
// per client, the preset's 5 s timeout as the RPC's deadline).
const grpcAgreement = `name: grpc-preset
duration: 15s
target:
  protocol: grpc
  concurrency: 16
  queue: 100
  queue_timeout: 1s
  service_time: exponential(10ms)
  cold_start: {from: 0.25, ramp: 5s}
chaos:
  - {name: stall, kind: blip, mode: blackhole, at: 3s, for: %s}
  - {name: crash, kind: outage, mode: %s, at: 4.5s, for: 2.3s}
workload: {kind: closed, clients: 500, think: exponential(1s)}
strategies:
  - name: preset
    preset: grpc
  - name: grpc-go
    client: grpc-go
    timeout: 5s
    service_config: |
      {"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s",
        "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}],
       "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}
`

func meanOf(t *testing.T, p Point, strategy, metric string) float64 {
	t.Helper()
	return stat(t, p, strategy, metric).Mean
}

// TestGRPCPresetAgreesWithGRPCGo holds the grpc preset to grpc-go's code
// where the storm is gRPC's (every failure UNAVAILABLE: a crash resets
// the streams, the closed port fails the picks): over 10 seeds, the
// amplification within 10% and the herd factor within 25% of a grpc-go
// cohort running the same design, for both crash modes.
func TestGRPCPresetAgreesWithGRPCGo(t *testing.T) {
	for _, mode := range []string{"refuse", "reset"} {
		p := scenariotest.Plan(t, fmt.Sprintf(grpcAgreement, "1.5s", mode), scenarios.Overrides{})
		pt := execute(t, []*scenarios.Plan{p}, Options{Sim: true, Runs: 10})[0]
		for _, c := range []struct {
			metric string
			band   float64
		}{{"amplification", 0.10}, {"herd_factor", 0.25}} {
			pre, g := meanOf(t, pt, "preset", c.metric), meanOf(t, pt, "grpc-go", c.metric)
			t.Logf("%s: %s preset %.3f, grpc-go %.3f", mode, c.metric, pre, g)
			if math.Abs(pre-g) > c.band*g {
				t.Errorf("%s outage: %s of the grpc preset %.3f, of grpc-go %.3f: more than %.0f%% apart", mode, c.metric, pre, g, 100*c.band)
			}
		}
	}
}

// TestGRPCPresetPartsFromGRPCGoOnDeadlines pins where the preset is not
// grpc-go (docs/policies.md): a stall longer than the timeout. The
// preset's timeout is herdbench's, per attempt, and it retries it; grpc-go's
// deadline is the RPC's, and DEADLINE_EXCEEDED is never retried.
func TestGRPCPresetPartsFromGRPCGoOnDeadlines(t *testing.T) {
	p := scenariotest.Plan(t, strings.Replace(fmt.Sprintf(grpcAgreement, "8s", "refuse"), "at: 4.5s", "at: 12s", 1), scenarios.Overrides{})
	pt := execute(t, []*scenarios.Plan{p}, Options{Sim: true, Runs: 3})[0]
	pre, g := meanOf(t, pt, "preset", "amplification"), meanOf(t, pt, "grpc-go", "amplification")
	t.Logf("an 8 s stall: amplification preset %.3f, grpc-go %.3f", pre, g)
	if !(pre > 1.05*g) {
		t.Errorf("an 8 s stall: the preset's amplification %.3f is not above grpc-go's %.3f: does it no longer retry its timeouts?", pre, g)
	}
}
