package engine

import (
	"maps"
	"math"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// channelScenario: 20 clients, each on its own grpc-go channel, retrying
// every 20 ms through a crash that closes the port from 1 s to 2.5 s.
const channelScenario = `
name: channel
duration: 5s
seed: 3
target: {protocol: grpc, concurrency: 50, queue: 50, service_time: 5ms}
chaos:
  - {name: crash, kind: outage, mode: refuse, at: 1s, for: 1.5s}
workload: {clients: 20, think: 20ms}
strategies:
  - {name: steady, backoff: constant, base: 20ms, max_attempts: 1000, timeout: 1s}
`

// firstOKAfter returns when the first attempt at or after from succeeded,
// and how many failed between from and then.
func firstOKAfter(rec *results.Recorder, from time.Duration) (time.Duration, int64) {
	tl := rec.Timeline(results.Bucket)
	attempts := tl.Attempts()
	var failed int64
	for i, row := range tl.Rows {
		at := time.Duration(i) * results.Bucket
		if at < from {
			continue
		}
		if row[results.OK] > 0 {
			return at, failed
		}
		failed += attempts[i]
	}
	return -1, failed
}

// TestGRPCChannelReconnectsOnItsBackoff: a grpc-go channel whose
// connection a crash dropped connects again on its own connection
// backoff (1 s, then 1.6 s ± 20%), and until then every RPC fails at the
// pick, the service back or not. Real grpc-go channels in a synctest
// bubble over the in-memory network and the simulator's model of them
// (sim/channel.go) agree: the first pick after the crash (about 1.02 s)
// fails to connect, the channel tries again at 2.02 s (the port still
// closed) and then 1.28 to 1.92 s later, so no attempt succeeds before
// 3.3 s although the port opens at 2.5 s, and the attempts failed after
// the fault are within 25% of each other in the two engines.
func TestGRPCChannelReconnectsOnItsBackoff(t *testing.T) {
	p := scenariotest.Plan(t, channelScenario, scenarios.Overrides{})
	real := runInBubble(t, p)
	simulated := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true, Timelines: true}})[0].Output
	open := 2500 * time.Millisecond
	var failed [2]int64
	for i, out := range []struct {
		name string
		rec  *results.Recorder
		run  results.Run
	}{{"real", real.Cohorts[0].Rec, real.Summary.Runs[0]}, {"sim", simulated.Cohorts[0].Rec, simulated.Summary.Runs[0]}} {
		first, _ := firstOKAfter(out.rec, open)
		failed[i] = out.run.FailedAfterFault
		t.Logf("%s: first success after the port opened at %s, %d attempts failed after the fault", out.name, first, out.run.FailedAfterFault)
		if first < 3280*time.Millisecond || first > 4*time.Second {
			t.Errorf("%s: the first success after the outage at %s; want 3.28 s to 4 s (the channels' second reconnection, 2.02 s + 1.6 s ± 20%%)", out.name, first)
		}
		if out.run.FailedAfterFault < 500 {
			t.Errorf("%s: %d attempts failed after the fault; the channels' backoff should fail every pick until they reconnect (hundreds)", out.name, out.run.FailedAfterFault)
		}
	}
	if math.Abs(float64(failed[0]-failed[1])) > 0.25*float64(failed[0]) {
		t.Errorf("failed after the fault: real %d, sim %d: more than 25%% apart", failed[0], failed[1])
	}
}

// TestGRPCGoawayChannelAgrees: after a GOAWAY, real grpc-go channels (in a
// synctest bubble) and the simulator's model of them (sim's
// TestGRPCChannelAfterGoaway says why) make the same attempts with the
// same outcomes: the attempt the GOAWAY met resets, three picks fail
// while the channel backs off, and the first success after it is at
// 2.65 s in both, although the outage ended at 2 s. (No send falls on
// the channel's reconnection at 2.45 s: in a bubble the order of
// goroutines at one instant is random, and memnet connects in no time.)
func TestGRPCGoawayChannelAgrees(t *testing.T) {
	p := scenariotest.Plan(t, `
name: goaway
duration: 6s
seed: 1
network: {delay: 50ms}
target: {protocol: grpc, service_time: "0s"}
workload: {kind: closed, clients: 1, think: 0s}
chaos:
  - {kind: outage, mode: goaway, at: 1030ms, for: 970ms}
strategies:
  - {name: s, backoff: constant, base: 400ms, max_attempts: 20, timeout: 2s}
`, scenarios.Overrides{})
	real := runInBubble(t, p)
	simulated := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true, Timelines: true}})[0].Output
	r, s := real.Summary.Runs[0], simulated.Summary.Runs[0]
	if !maps.Equal(r.Outcomes, s.Outcomes) || r.Outcomes["refused"] != 3 || r.Outcomes["reset"] != 1 {
		t.Errorf("outcomes: real %v, sim %v; want the same, with 3 refused and 1 reset", r.Outcomes, s.Outcomes)
	}
	for _, c := range []struct {
		name string
		rec  *results.Recorder
	}{{"real", real.Cohorts[0].Rec}, {"sim", simulated.Cohorts[0].Rec}} {
		if first, _ := firstOKAfter(c.rec, 1030*time.Millisecond); first != 2650*time.Millisecond {
			t.Errorf("%s: the first success after the goaway at %s; want 2.65 s", c.name, first)
		}
	}
}
