package engine

import (
	"fmt"
	"maps"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/grpcwire"
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
	points := execute(t, op.Plans, Options{Mode: Mode{Sim: true, Runs: 20}})
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
		pt := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true, Runs: 10}})[0]
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
	pt := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true, Runs: 3}})[0]
	pre, g := meanOf(t, pt, "preset", "amplification"), meanOf(t, pt, "grpc-go", "amplification")
	t.Logf("an 8 s stall: amplification preset %.3f, grpc-go %.3f", pre, g)
	if !(pre > 1.05*g) {
		t.Errorf("an 8 s stall: the preset's amplification %.3f is not above grpc-go's %.3f: does it no longer retry its timeouts?", pre, g)
	}
}

// grpcScenario is answerScenario over gRPC: the embedded target speaks
// gRPC and the swarm calls it on grpc-go channels.
func grpcScenario(kind string) string {
	return strings.Replace(answerScenario(kind, false), "target: {", "target: {protocol: grpc, ", 1)
}

// grpcStatuses are statuses the model may answer with that a gRPC client
// records under another outcome than an HTTP client: 400 is INTERNAL
// (http_5xx, not http_4xx), 302 UNKNOWN (http_5xx, not error). A fault
// kind "grpc-status-N" answers every request with N.
var grpcStatuses = []int{400, 302}

func init() {
	for _, st := range grpcStatuses {
		chaos.Register("grpc-status-"+strconv.Itoa(st), func() chaos.Spec {
			return &syntheticSpec{apply: func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus = 1, st }}
		})
	}
}

// TestGRPCStatusOutcomesAgree: over gRPC, a status the model answers with
// is recorded by the simulator as the real engine records the code the
// target sends for it (clients.GRPCOutcome of grpcwire.Code), for
// herdbench's strategy and for grpc-go's own retry, each making two
// attempts per request: the same attempts with the same outcomes in both
// engines, the real one on grpc-go channels in a synctest bubble.
func TestGRPCStatusOutcomesAgree(t *testing.T) {
	for _, st := range grpcStatuses {
		t.Run(strconv.Itoa(st), func(t *testing.T) {
			scenario := grpcScenario("grpc-status-"+strconv.Itoa(st)) + `
  - name: grpc-go
    client: grpc-go
    timeout: 5s
    service_config: '{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 2, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["INTERNAL", "UNKNOWN"]}}]}'
`
			p := scenariotest.Plan(t, scenario, scenarios.Overrides{})
			want, _ := clients.GRPCOutcome(grpcwire.Code(st))
			sim := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs
			real := runInBubble(t, p).Summary.Runs
			if len(sim) != 2 || len(real) != 2 {
				t.Fatalf("%d simulated runs, %d real; want 2 each", len(sim), len(real))
			}
			for i, s := range sim {
				r := real[i]
				if s.Attempts != 8 || s.Outcomes[want.String()] != 8 {
					t.Errorf("%s: simulator: %d attempts, outcomes %v; want 8 attempts, all %s", s.Strategy, s.Attempts, s.Outcomes, want)
				}
				if r.Attempts != s.Attempts || !maps.Equal(r.Outcomes, s.Outcomes) {
					t.Errorf("%s: real engine: %d attempts, outcomes %v; the simulator: %d, %v", r.Strategy, r.Attempts, r.Outcomes, s.Attempts, s.Outcomes)
				}
			}
		})
	}
}

// grpcGoScenario: 20 one-shot clients of grpc-go's own retry (five
// attempts, UNAVAILABLE retryable) and of herdbench's, 10 to a
// channel, under a 503 outage for the first 1.5 s.
const grpcGoScenario = `
name: grpc-go
duration: 8s
seed: 7
target: {protocol: grpc, method: /helloworld.Greeter/SayHello, concurrency: 40, queue: 40, queue_timeout: 2s, service_time: 10ms}
connections: {shared: 10}
chaos:
  - {kind: outage, mode: "503", at: 0s, for: 1500ms}
workload: {kind: oneshot, clients: 20}
strategies:
  - name: grpc-go
    client: grpc-go
    timeout: 5s
    service_config: |
      {"methodConfig": [{"name": [{"service": "helloworld.Greeter"}],
        "retryPolicy": {"maxAttempts": 5, "initialBackoff": "0.4s", "maxBackoff": "2s",
          "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}
  - {name: herdbench, backoff: constant, base: 400ms, max_attempts: 5, timeout: 5s}
`

// TestGRPCGoCohort: grpc-go's own retry decides the attempts of a grpc-go
// cohort, and herdbench records each of them (from the channel's stats
// handler) with its number: under a 1.5 s outage with waits of
// U(0.8, 1.2)·0.4·2^(n−1) s, every request fails its first attempts,
// retries until after the outage (the third attempt at the earliest:
// 0.32 + 0.64 s < 1.5 s) and succeeds, as herdbench's own loop with
// 400 ms waits does.
func TestGRPCGoCohort(t *testing.T) {
	p := scenariotest.Plan(t, grpcGoScenario, scenarios.Overrides{})
	if p.Shared != 10 || p.Method != "/helloworld.Greeter/SayHello" || p.Strategies[0].GRPC == nil {
		t.Fatalf("plan: shared %d, method %q, service config %v", p.Shared, p.Method, p.Strategies[0].GRPC)
	}
	out := runInBubble(t, p)
	for _, r := range out.Summary.Runs {
		if r.Requests != 20 || r.Succeeded != 20 {
			t.Errorf("%s: %d requests, %d succeeded; want 20, all", r.Strategy, r.Requests, r.Succeeded)
		}
		if r.Outcomes["ok"] != 20 || r.Outcomes["http_5xx"] < 40 || r.Attempts != 20+r.Outcomes["http_5xx"] {
			t.Errorf("%s: %d attempts, outcomes %v; want 20 ok after at least two 503s each", r.Strategy, r.Attempts, r.Outcomes)
		}
	}
	// The attempt numbers: grpc-go's are counted as the target counts them.
	tl := out.Cohorts[0].Rec.Timeline(results.Bucket)
	var byNumber [4]int64
	for _, row := range tl.Rows {
		for n := range 4 {
			byNumber[n] += row[results.SeriesFirst+results.Series(n)]
		}
	}
	if byNumber[0] != 20 || byNumber[1] != 20 || byNumber[2] != 20 {
		t.Errorf("grpc-go: attempts by number (1, 2, 3, 4+) %v; want 20 of each of the first three", byNumber)
	}
}

// TestGRPCGoCutByTheEnd: a grpc-go cohort's attempts that the run's end
// cuts (held by a blackhole until then) are not recorded, as the HTTP
// swarm's are not: they are no outcome of the target.
func TestGRPCGoCutByTheEnd(t *testing.T) {
	p := scenariotest.Plan(t, `
name: cut
duration: 2s
seed: 7
target: {protocol: grpc, concurrency: 10, queue: 10, service_time: 10ms}
chaos:
  - {kind: blip, mode: blackhole, at: 1s, for: 1s}
workload: {clients: 5, think: 90ms}
strategies:
  - name: grpc-go
    client: grpc-go
    timeout: 10s
    service_config: '{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]}'
`, scenarios.Overrides{})
	r := runInBubble(t, p).Summary.Runs[0]
	if r.Attempts != r.Outcomes["ok"] || r.Attempts < 40 || r.Unfinished != 5 {
		t.Errorf("%d attempts, outcomes %v, %d unfinished; want about 50 ok before the blackhole, nothing else recorded, 5 held", r.Attempts, r.Outcomes, r.Unfinished)
	}
}

// TestGRPCTargetSendsPushbackMSNotRetryAfterOnSockets: the real gRPC
// target once sent a fault's retry_after as the pushback and ignored its
// pushback_ms, so grpc-go's own retry waited 2 s on sockets where the
// simulator waited 500 ms (one gRPC scenario: 12 attempts done at 0.50 s
// in the simulator, 8 at 2.01 s on sockets). Both engines now make the
// same attempts, done at the same instant.
func TestGRPCTargetSendsPushbackMSNotRetryAfterOnSockets(t *testing.T) {
	p := scenariotest.Plan(t, `
name: pushback-ms
duration: 6s
seed: 7
target: {protocol: grpc, concurrency: 4, queue: 4, queue_timeout: 2s, service_time: 10ms}
chaos:
  - {kind: pushback, status: 429, retry_after: 2s, pushback_ms: 500, at: 0s, for: 6s}
workload: {kind: oneshot, clients: 4}
strategies:
  - name: grpc-go
    client: grpc-go
    timeout: 5s
    service_config: '{"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["RESOURCE_EXHAUSTED"]}}]}'
`, scenarios.Overrides{})
	sim := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs[0]
	real := runInBubble(t, p).Summary.Runs[0]
	if sim.Attempts != 12 || real.Attempts != sim.Attempts || !maps.Equal(real.Outcomes, sim.Outcomes) {
		t.Errorf("attempts: simulator %d %v, sockets %d %v; want 12 in both, alike", sim.Attempts, sim.Outcomes, real.Attempts, real.Outcomes)
	}
	if sim.CompletionS == nil || real.CompletionS == nil || math.Abs(*sim.CompletionS-1.0) > 0.05 || math.Abs(*real.CompletionS-*sim.CompletionS) > 0.005 {
		t.Errorf("done at: simulator %v, sockets %v; want both at 1.0 s (two pushbacks of 500 ms)", sim.CompletionS, real.CompletionS)
	}
}
