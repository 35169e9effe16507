package sim_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
)

// Cohort.Stop ends a run at the next look, StopEvery events at most after
// it was set: a two-hour run stops where it is, its records cover the
// virtual time it reached, and its timeline ends there.
func TestStopEndsTheRunAtOnce(t *testing.T) {
	p := loadPlan(t, "outage", scenarios.Overrides{Duration: 2 * time.Hour, Clients: 2000})
	co := cohortOf(p, "no-jitter", 1)
	var stop atomic.Bool
	co.Stop = &stop
	s := sim.New()
	const after = 200_000
	var looks []uint64
	var setAt uint64
	sim.SetLook(s, func(setup bool, events uint64) {
		if setup {
			return
		}
		looks = append(looks, events)
		if events >= after && !stop.Load() {
			stop.Store(true)
			setAt = events
		}
	})
	rec := results.NewRecorder(p.Duration, 1).Unshared()
	r := s.Run(co, rec)
	if !r.Stopped || setAt == 0 {
		t.Fatalf("Stopped %v (set at %d events); want the run stopped", r.Stopped, setAt)
	}
	if r.Events-setAt > sim.StopEvery {
		t.Errorf("%d events after Stop was set; want at most %d", r.Events-setAt, sim.StopEvery)
	}
	for i := 1; i < len(looks); i++ {
		if d := looks[i] - looks[i-1]; d != sim.StopEvery {
			t.Fatalf("looks %d and %d are %d events apart; want %d", i-1, i, d, sim.StopEvery)
		}
	}
	if r.End <= 0 || r.End >= p.Duration {
		t.Errorf("End %s; want within (0, %s)", r.End, p.Duration)
	}
	if got, want := len(rec.Timeline(results.Bucket).Rows), int(r.End/results.Bucket)+1; got != want {
		t.Errorf("timeline of %d buckets; want %d, up to End %s", got, want, r.End)
	}
}

// A stop set before the run ends it while it sets its clients up: ten
// million clients take seconds to set up.
func TestStopDuringSetup(t *testing.T) {
	p := loadPlan(t, "outage", scenarios.Overrides{Clients: 100_000})
	co := cohortOf(p, "no-jitter", 1)
	var stop atomic.Bool
	stop.Store(true)
	co.Stop = &stop
	rec := results.NewRecorder(p.Duration, 1).Unshared()
	s := sim.New()
	var setUp []uint64
	sim.SetLook(s, func(setup bool, n uint64) {
		if setup {
			setUp = append(setUp, n)
		}
	})
	r := s.Run(co, rec)
	if !r.Stopped || r.End != 0 || r.Events != 0 {
		t.Errorf("Stopped %v, End %s, %d events; want stopped at 0 with no event", r.Stopped, r.End, r.Events)
	}
	if len(setUp) != 1 || setUp[0] != sim.StopEvery {
		t.Errorf("looks during the setup at %v clients; want one, at %d", setUp, sim.StopEvery)
	}
}
