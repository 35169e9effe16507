package engine

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
)

// An interrupt stops a simulated run where it is, not at the end of the
// cohort runs under way: two hours of virtual time, cancelled a moment
// after its first cohort run began, end far before two hours, marked
// partial, with the time they reached (ended_s) and, for a single run,
// the timeline of every cohort that began, cut there. The same holds for
// repetitions (--runs) and for a sweep.
func TestInterruptStopsSimulatedRunsMidway(t *testing.T) {
	const long = 2 * time.Hour
	for _, c := range []struct {
		name      string
		counts    []int
		runs      int
		timelines bool
	}{
		{"run", nil, 1, true},
		{"runs", nil, 3, true},
		{"sweep", []int{1000, 2000}, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := plans(t, "outage", "", scenarios.Overrides{Duration: long, Runs: c.runs, Strategies: []string{"no-jitter", "full-jitter"}}, c.counts...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			o := Options{Mode: Mode{Sim: true, Workers: 2, Runs: c.runs, Timelines: c.timelines}}
			o.beforeTask = func(point, cohort, rep int) {
				// A moment after the first cohort run began: it and
				// its neighbour are well inside their two hours.
				once.Do(func() { time.AfterFunc(200*time.Millisecond, cancel) })
			}
			began := time.Now()
			points, err := Execute(ctx, ps, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("Execute returned %s after it began", time.Since(began).Round(time.Millisecond))
			s := points[0].Output.Summary
			if !s.Partial || s.EndedS == nil {
				t.Fatalf("partial %v, ended_s %v; want a partial run with the time it reached", s.Partial, s.EndedS)
			}
			if *s.EndedS >= long.Seconds() {
				t.Errorf("ended_s %g; the runs went on to their end (%g s) after the interrupt", *s.EndedS, long.Seconds())
			}
			if len(s.Runs) == 0 {
				t.Fatal("no cohort's figures kept")
			}
			if len(points) != 1 {
				t.Errorf("%d points; want the one cut, the other never begun", len(points))
			}
			if !c.timelines {
				return
			}
			cohorts := points[0].Output.Cohorts
			if len(cohorts) != len(s.Runs) {
				t.Fatalf("%d timelines for %d cohorts' figures; want one each", len(cohorts), len(s.Runs))
			}
			for i, co := range cohorts {
				if co.Strategy != s.Runs[i].Strategy {
					t.Errorf("timeline %d is %s's, figures %d are %s's", i, co.Strategy, i, s.Runs[i].Strategy)
				}
				if rows, whole := len(co.Rec.Timeline(results.Bucket).Rows), int(long/results.Bucket); rows >= whole {
					t.Errorf("%s: a timeline of %d buckets, the whole run's %d; want it cut where it stopped", co.Strategy, rows, whole)
				}
			}
		})
	}
}

// TestInterruptBoundsSimulatedEvents: an interrupt that comes as the
// first cohort run begins stops every simulated cohort run within
// sim.StopEvery events of it, in a run, in repetitions (--runs) and in a
// sweep, on two workers: the simulator looks at the interrupt every
// StopEvery events (a fraction of a millisecond), so what an interrupted
// --sim waits for is the writing of what it simulated, never more
// simulation. No cohort run begins after it.
func TestInterruptBoundsSimulatedEvents(t *testing.T) {
	for _, c := range []struct {
		name   string
		counts []int
		runs   int
	}{
		{"run", nil, 1},
		{"runs", nil, 3},
		{"sweep", []int{1000, 2000}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := plans(t, "outage", "", scenarios.Overrides{Duration: 2 * time.Hour, Runs: c.runs, Strategies: []string{"no-jitter", "full-jitter"}}, c.counts...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			var events []uint64
			var stopped int
			o := Options{Mode: Mode{Sim: true, Workers: 2, Runs: c.runs, Timelines: c.counts == nil}}
			o.beforeTask = func(point, cohort, rep int) { cancel() }
			o.afterSim = func(r sim.Result) {
				mu.Lock()
				defer mu.Unlock()
				events = append(events, r.Events)
				if r.Stopped {
					stopped++
				}
			}
			if _, err := Execute(ctx, ps, o); err != nil {
				t.Fatal(err)
			}
			if len(events) == 0 || len(events) > 2 {
				t.Errorf("%d cohort runs simulated after the interrupt; want the one it came at, and at most its neighbour on the other worker", len(events))
			}
			for _, n := range events {
				if n > sim.StopEvery {
					t.Errorf("a cohort run simulated %d events after the interrupt; want at most %d", n, sim.StopEvery)
				}
			}
			if stopped != len(events) {
				t.Errorf("%d of %d cohort runs say they were stopped", stopped, len(events))
			}
		})
	}
}
