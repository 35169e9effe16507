package engine

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// physicsFile is the outage built from an independent model of the
// physics (bench/physics): 1,000 clients, a blackhole, then a refuse
// outage that resets every request it held at one instant.
const physicsFile = "../bench/physics/outage-physics.yaml"

// physicsEnv runs TestPhysicsOutage at the file's full size (1,000
// clients, 30 s; CI runs it in a step of its own, without -race): by
// default the test runs a quarter of it, every capacity and the clients
// divided by 4, in 15 s.
const physicsEnv = "HERDBENCH_PHYSICS"

func physicsPlan(t *testing.T, full bool) *scenarios.Plan {
	t.Helper()
	data, err := os.ReadFile(physicsFile)
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(data)
	if !full {
		for _, r := range [][2]string{{"clients: 1000", "clients: 250"}, {"concurrency: 100", "concurrency: 25"}, {"queue: 200", "queue: 50"}, {"duration: 30s", "duration: 15s"}} {
			if !strings.Contains(yaml, r[0]) {
				t.Fatalf("%s has no %q to scale down", physicsFile, r[0])
			}
			yaml = strings.Replace(yaml, r[0], r[1], 1)
		}
	}
	return compile(t, yaml)
}

// physicsOff returns how far the no-jitter cohort's wave figures (recovery,
// failures after the fault, herd factor) are from the simulator's for the
// same plan and seed, each as a fraction of the simulator's, and says so.
func physicsOff(t *testing.T, s *results.Summary) (worst float64, text string) {
	t.Helper()
	var r *results.Run
	for i := range s.Runs {
		if s.Runs[i].Strategy == "no-jitter" {
			r = &s.Runs[i]
		}
	}
	if r == nil || r.Sim == nil || r.RecoveryS == nil || r.Sim.RecoveryS == nil {
		t.Fatalf("no-jitter: run %+v, want one that recovers with the simulator's figures beside it", r)
	}
	off := func(name string, got, want float64) string {
		d := math.Abs(got/want - 1)
		worst = max(worst, d)
		return fmt.Sprintf("%s %.4g (sim %.4g)", name, got, want)
	}
	text = strings.Join([]string{
		off("recovery", *r.RecoveryS, *r.Sim.RecoveryS),
		off("failed after fault", float64(r.FailedAfterFault), r.Sim.FailedAfterFault),
		off("herd factor", r.HerdFactor, r.Sim.HerdFactor),
	}, ", ")
	return worst, text
}

// TestPhysicsOutage runs the physics outage in the real engine. Over the
// in-memory network, in a synctest bubble, nothing is late: every client
// learns of the reset at the crash's instant (spread 0), the run is
// trustworthy and its wave figures are within 25% of the simulator's. On
// loopback sockets the machine adds its lateness, and the self-check must
// see it: the figures are within 25% of the simulator's, or the run is
// marked not trustworthy. A trustworthy run whose waves are off is the
// self-check's failure, which this test exists to catch.
func TestPhysicsOutage(t *testing.T) {
	full := os.Getenv(physicsEnv) != "" && !testing.Short()
	p := physicsPlan(t, full)
	ps := []*scenarios.Plan{p}
	t.Run("memnet", func(t *testing.T) {
		if full && raceEnabled {
			t.Skip("the full size in a bubble under -race takes minutes; the quarter size runs by default")
		}
		s := executeInBubble(t, ps, Options{})[0].Output.Summary
		worst, text := physicsOff(t, s)
		t.Logf("in a bubble: %s", text)
		h := s.Harness
		if h == nil || !h.Trustworthy || h.SpreadMS == nil || h.SpreadMS.Max != 0 || h.LimitMS != 5 {
			t.Errorf("in a bubble: harness %+v, want trustworthy with a spread of 0 and a 5 ms limit (a tenth of the 50 ms queue timeout)", h)
		}
		for _, r := range s.Runs {
			if len(r.SpreadEvents) != 1 || r.SpreadEvents[0].AtS != 6 || float64(r.SpreadEvents[0].Attempts) < 0.95*float64(p.Workload.Clients) {
				t.Errorf("%s: spread events %+v, want the crash at 6 s ending nearly every client's held attempt", r.Strategy, r.SpreadEvents)
			}
		}
		if worst > 0.25 {
			t.Errorf("in a bubble the real engine is another sample of the simulator's model: %s, off by %.0f%%, want within 25%%", text, 100*worst)
		}
	})
	t.Run("loopback", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs the real engine on sockets")
		}
		points, err := Execute(context.Background(), ps, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s := points[0].Output.Summary
		worst, text := physicsOff(t, s)
		h := s.Harness
		t.Logf("on loopback (%d clients): %s; %s", p.Workload.Clients, text, results.SelfCheckLine(s))
		if worst > 0.25 && h.Trustworthy {
			t.Errorf("a run off the simulator by %.0f%% (%s) is marked trustworthy: the self-check missed what made it wrong", 100*worst, text)
		}
	})
}
