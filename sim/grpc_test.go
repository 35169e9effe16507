package sim_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// grpcOne is one grpc-go client sending one RPC into a fault that lasts
// the whole run: what grpc-go's shouldRetry makes of each gRPC answer.
func grpcOne(fault, codes string) string {
	return fmt.Sprintf(`
name: t
duration: 10s
target: {protocol: grpc, service_time: "0s"}
workload: {kind: oneshot, clients: 1}
chaos:
  - {%s, at: 0s, for: 10s}
strategies:
  - name: g
    client: grpc-go
    timeout: 2s
    service_config: |
      {"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s",
        "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": [%s]}}]}
`, fault, codes)
}

// TestGRPCAnswersInTheSimulator: the simulator's gRPC target answers as
// docs/grpc.md says, and the grpc-go cohort follows grpc-go's rules.
func TestGRPCAnswersInTheSimulator(t *testing.T) {
	for _, c := range []struct {
		name, fault, codes string
		attempts           int64
		requestMS          float64 // the RPC's latency; -1: not checked
	}{
		// RESOURCE_EXHAUSTED with grpc-retry-pushback-ms: 250 ms apart exactly.
		{"pushback", "kind: pushback, status: 429, pushback_ms: 250", `"RESOURCE_EXHAUSTED"`, 4, 750},
		// Without pushback_ms the target sends retry_after as the pushback;
		// the second wait would pass the 2 s deadline: the RPC ends there.
		{"retry-after", "kind: pushback, status: 429, retry_after: 1s", `"RESOURCE_EXHAUSTED"`, 2, 2000},
		// The stop form: no retry.
		{"stop", "kind: pushback, status: 429, pushback_ms: stop", `"RESOURCE_EXHAUSTED"`, 1, 0},
		// 429 is RESOURCE_EXHAUSTED, not UNAVAILABLE: not retried by a policy without it.
		{"not-listed", "kind: pushback, status: 429, pushback_ms: 250", `"UNAVAILABLE"`, 1, 0},
		// An outage's 503 is UNAVAILABLE: retried, 0.1, 0.2 and 0.4 s × U(0.8, 1.2).
		{"outage", "kind: outage", `"UNAVAILABLE"`, 4, -1},
		// An error rate's 500 is INTERNAL.
		{"internal", "kind: error-rate, rate: 1, status: 500", `"UNAVAILABLE"`, 1, 0},
		{"internal-listed", "kind: error-rate, rate: 1, status: 500", `"INTERNAL"`, 4, -1},
		// A closed port fails the pick with UNAVAILABLE, retried by the policy.
		{"refuse", "kind: outage, mode: refuse", `"UNAVAILABLE"`, 4, -1},
		// A blackhole holds the RPC to its 2 s deadline: DEADLINE_EXCEEDED, never retried.
		{"blackhole", "kind: blip, mode: blackhole", `"UNAVAILABLE", "DEADLINE_EXCEEDED"`, 1, 2000},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, run := simulate(t, grpcOne(c.fault, c.codes))
			if run.Attempts != c.attempts || run.Failed != 1 {
				t.Errorf("%d attempts, %d failed; want %d attempts of one failed RPC", run.Attempts, run.Failed, c.attempts)
			}
			if got := run.LatencyMS.Request.P50; c.requestMS >= 0 && math.Abs(got-c.requestMS) > 0.01*c.requestMS+0.01 {
				t.Errorf("the RPC took %v ms, want %v", got, c.requestMS)
			}
		})
	}
}

// TestGRPCOutageWaits: UNAVAILABLE's retries wait grpc-go's ±20% bands,
// 0.08-0.12, 0.16-0.24 and 0.32-0.48 s: the RPC ends within 0.56-0.84 s.
func TestGRPCOutageWaits(t *testing.T) {
	for seed := 1; seed <= 20; seed++ {
		src := grpcOne("kind: outage", `"UNAVAILABLE"`) + fmt.Sprintf("seed: %d\n", seed)
		_, _, run := simulate(t, src)
		if got := run.LatencyMS.Request.P50; got < 560*0.99 || got > 840*1.01 {
			t.Errorf("seed %d: the RPC's three waits took %v ms, want 560-840", seed, got)
		}
	}
}

// goawayHop: one client over a 50 ms network whose attempt sent at 1 s
// comes in at 1.05 s, after a GOAWAY at 1.03 s, and whose strategy
// retries 400 ms after a failure; the goaway ends at 2 s.
const goawayHop = `
name: t
duration: 6s
seed: 1
network: {delay: 50ms}
target: {protocol: grpc, service_time: "0s"}
workload: {kind: closed, clients: 1, think: 0s}
chaos:
  - {kind: outage, mode: goaway, at: 1030ms, for: 970ms}
strategies:
  - {name: s, backoff: constant, base: 400ms, max_attempts: 20, timeout: 2s}
`

// TestGRPCChannelAfterGoaway: the GOAWAY at 1.03 s drops the channel's
// connection; the attempt it met fails (a reset), the strategy's retry at
// 1.45 s connects, refused (a goaway refuses new connections), so the
// channel stays in TRANSIENT_FAILURE and tries again on its own 1 s
// later, at 2.45 s: the strategy's pick at 2.25 s fails although the
// goaway ended at 2 s, and the next, at 2.65 s, succeeds. engine's
// TestGRPCGoawayChannelAgrees runs the same over real grpc-go channels.
func TestGRPCChannelAfterGoaway(t *testing.T) {
	_, rec, run := simulate(t, goawayHop)
	tl := rec.Timeline(results.Bucket)
	first := time.Duration(-1)
	for i, row := range tl.Rows {
		if at := time.Duration(i) * results.Bucket; at >= 1030*time.Millisecond && row[results.OK] > 0 {
			first = at
			break
		}
	}
	if first != 2650*time.Millisecond {
		t.Errorf("the first success after the goaway at %s; want 2.65 s", first)
	}
	if o := outcomes(run); o["reset"] != 1 || o["refused"] != 3 {
		t.Errorf("outcomes %v; want one reset (the attempt the GOAWAY met) and three picks refused (1.45, 1.85, 2.25 s)", o)
	}
}
