package engine

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// In slow motion the same run lives K times longer on the wall clock and
// records the same figures in the scenario's time: in a bubble, where the
// harness is never late, a run at 4× takes four times the virtual wall
// time of one at real speed, and its figures are the real-speed run's.
func TestSlowMotionKeepsTheFigures(t *testing.T) {
	const scenario = `
name: slow
duration: 3s
seed: 3
target: {concurrency: 4, queue: 10, queue_timeout: 50ms, service_time: exponential(2ms), cold_start: {from: 0.25, ramp: 500ms}}
chaos: [{kind: outage, mode: reset, at: 1s, for: 300ms}]
workload: {kind: closed, clients: 40, think: exponential(50ms)}
strategies:
  - {name: exp, backoff: exponential, base: 20ms, cap: 400ms, max_attempts: 6, timeout: 500ms}
  - {name: full, backoff: full, base: 20ms, cap: 400ms, max_attempts: 6, timeout: 500ms}
`
	for _, c := range []struct{ name, workload string }{
		{"closed", "workload: {kind: closed, clients: 40, think: exponential(50ms)}"},
		{"open", "workload: {kind: open, rate: 400}"},
		{"h2c shared", "protocol: h2c\nconnections: {shared: 10}\nworkload: {kind: closed, clients: 40, think: exponential(50ms)}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			slowMotionKeepsTheFigures(t, scenariotest.Plan(t, strings.Replace(scenario, "workload: {kind: closed, clients: 40, think: exponential(50ms)}", c.workload, 1), scenarios.Overrides{}))
		})
	}
}

func slowMotionKeepsTheFigures(t *testing.T, p *scenarios.Plan) {
	run := func(k slowmo.Factor) (s *results.Summary, wall time.Duration) {
		synctest.Test(t, func(t *testing.T) {
			n := &memnet.Network{}
			began := time.Now()
			points, err := Execute(context.Background(), []*scenarios.Plan{p}, Options{Mode: Mode{SlowMotion: k, NoSimReference: true}, Network: Network{Listen: n.Listen, Dial: n.Dial}})
			if err != nil {
				t.Fatal(err)
			}
			s, wall = points[0].Output.Summary, time.Since(began)
		})
		return s, wall
	}
	real, realWall := run(1)
	slow, slowWall := run(4)
	if real.SlowMotion != 0 || slow.SlowMotion != 4 {
		t.Errorf("slow_motion: %d at real speed, %d at 4×; want 0 and 4", real.SlowMotion, slow.SlowMotion)
	}
	// Both include the same start lead and end, which do not slow down;
	// the scenario's second does.
	if d := slowWall - realWall; d < 3*p.Duration-100*time.Millisecond || d > 3*p.Duration+100*time.Millisecond {
		t.Errorf("wall time %v at 4× against %v at real speed: want about 3 × %v more", slowWall, realWall, p.Duration)
	}
	if len(real.Runs) != len(slow.Runs) {
		t.Fatalf("%d runs at 4×, %d at real speed", len(slow.Runs), len(real.Runs))
	}
	for i, r := range real.Runs {
		s := slow.Runs[i]
		if r.Attempts == 0 || r.FailedAfterFault == 0 || r.HerdFactor == 0 || s.Attempts != r.Attempts || s.Requests != r.Requests || s.Succeeded != r.Succeeded ||
			s.FailedAfterFault != r.FailedAfterFault || s.HerdFactor != r.HerdFactor || fmtRecovery(s.RecoveryS) != fmtRecovery(r.RecoveryS) {
			t.Errorf("%s: at 4× attempts %d, requests %d, succeeded %d, failed after fault %d, herd %.3f, recovery %v; "+
				"at real speed %d, %d, %d, %d, %.3f, %v",
				r.Strategy, s.Attempts, s.Requests, s.Succeeded, s.FailedAfterFault, s.HerdFactor, fmtRecovery(s.RecoveryS),
				r.Attempts, r.Requests, r.Succeeded, r.FailedAfterFault, r.HerdFactor, fmtRecovery(r.RecoveryS))
		}
	}
}

// A chain of tiers slows as a whole: every tier's server and the relays
// that call the next one.
func TestSlowMotionKeepsATiersFigures(t *testing.T) {
	slowMotionKeepsTheFigures(t, scenariotest.Plan(t, `
name: slow-tiers
duration: 3s
seed: 4
tiers:
  - {name: front, concurrency: 50, queue: 0, service_time: exponential(1ms)}
  - {name: back, concurrency: 4, queue: 20, queue_timeout: 200ms, service_time: exponential(2ms)}
chaos: [{kind: outage, mode: reset, at: 1s, for: 300ms}]
workload: {kind: open, rate: 300}
strategies:
  - {name: every-tier, backoff: exponential, base: 20ms, cap: 400ms, max_attempts: 4, timeout: 1s, tiers: {front: {timeout: 500ms}}}
`, scenarios.Overrides{}))
}

func fmtRecovery(v *float64) string {
	if v == nil {
		return "none"
	}
	return time.Duration(*v * float64(time.Second)).String()
}

// Slow motion divides the harness's lateness by its factor: every client
// pauses 5 ms of wall time between waking and sending, which at real speed
// is 5 ms late and untrustworthy (TestLateHarnessIsFlagged), and at 10×
// is 0.5 ms of the scenario's time, within the self-check's 2 ms.
func TestSlowMotionShrinksTheLateness(t *testing.T) {
	p := scenariotest.Plan(t, selfCheckScenario, scenarios.Overrides{})
	pause := func() { time.Sleep(5 * time.Millisecond) }
	s := executeInBubble(t, []*scenarios.Plan{p}, Options{BeforeSend: pause, Mode: Mode{SlowMotion: 10, NoSimReference: true}})[0].Output.Summary
	h := s.Harness
	if h == nil || !h.Trustworthy || len(h.Warnings) != 0 {
		t.Fatalf("5 ms of wall time late at 10×: harness %+v, want trustworthy", h)
	}
	for _, r := range s.Runs {
		if l := r.SendLagMS; l == nil || l.P50 < 0.5 || l.P50 > 0.505 || l.Max > 0.505 {
			t.Errorf("%s: send lag %+v, want 0.5 ms of the scenario's time throughout", r.Strategy, l)
		}
	}
}

// What herdbench does not drive does not slow down: such runs are refused
// before anything starts, saying why.
func TestSlowMotionRefusals(t *testing.T) {
	plan := func(yaml string) *scenarios.Plan { return scenariotest.Plan(t, yaml, scenarios.Overrides{}) }
	base := plan(selfCheckScenario)
	external := *base
	external.TargetURL = "http://127.0.0.1:9/"
	grpc := plan(`
name: g
duration: 1s
target: {protocol: grpc, concurrency: 4}
workload: {kind: closed, clients: 2, think: 10ms}
strategies: [{name: a, backoff: full, base: 10ms, cap: 100ms, max_attempts: 3, timeout: 1s}]
`)
	tiers := plan(`
name: t
duration: 1s
workload: {kind: closed, clients: 2, think: 10ms}
tiers:
  - {name: front, concurrency: 4}
  - {name: back, concurrency: 4}
strategies: [{name: a, backoff: full, base: 10ms, cap: 100ms, max_attempts: 3, timeout: 1s}]
`)
	drive := func(context.Context, Driven) {}
	for _, c := range []struct {
		name string
		p    *scenarios.Plan
		o    Options
		want string // "" for accepted
	}{
		{"real speed, external", &external, Options{Mode: Mode{SlowMotion: 1}}, ""},
		{"embedded", base, Options{Mode: Mode{SlowMotion: 8}}, ""},
		{"sim", &external, Options{Mode: Mode{SlowMotion: 8, Sim: true}}, ""},
		{"external", &external, Options{Mode: Mode{SlowMotion: 8}}, "external service"},
		{"grpc", grpc, Options{Mode: Mode{SlowMotion: 8}}, "gRPC"},
		{"tiers", tiers, Options{Mode: Mode{SlowMotion: 8}}, ""},
		{"drive", base, Options{Drive: drive, Mode: Mode{SlowMotion: 8}}, "does not drive"},
		{"too slow", base, Options{Mode: Mode{SlowMotion: slowmo.Max + 1}}, "from 1 (real speed) to 1000"},
		{"negative", base, Options{Mode: Mode{SlowMotion: -2}}, "from 1"},
	} {
		err := CheckSlowMotion(c.p, c.o)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
