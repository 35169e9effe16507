package engine

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// The calibration holds every client's request and then crashes the
// target: over the in-memory network, in a synctest bubble, each client
// learns of the crash at its instant (a spread of 0) and, when every
// client pauses 5 ms before it sends, sends 5 ms late. Apart, it runs the
// first cohort alone and gives every cohort its tables.
func TestCalibrateMeasuresTheCrashAndTheSendLag(t *testing.T) {
	p := scenariotest.Plan(t, lateCrash, scenarios.Overrides{})
	for _, c := range []struct {
		name  string
		o     Options
		lag   float64 // ms
		crash int64   // attempts the crash ended, at least
	}{
		{"together, on time", Options{}, 0, 2 * 150},
		{"apart, 5 ms late", Options{Mode: Mode{Cohorts: Apart}, BeforeSend: func() { time.Sleep(5 * time.Millisecond) }}, 5, 150},
	} {
		var cal *Calibration
		synctest.Test(t, func(t *testing.T) {
			n := &memnet.Network{}
			o := c.o
			o.Listen, o.Dial = n.Listen, n.Dial
			var err error
			if cal, err = Calibrate(context.Background(), p, o); err != nil {
				t.Fatal(err)
			}
		})
		// The think time (exponential, 100 ms) has most of the 200
		// clients waiting on the held target by the crash.
		if cal.Clients < c.crash || cal.Clients > int64(len(p.Strategies))*200 {
			t.Errorf("%s: the crash ended %d attempts, want at least %d", c.name, cal.Clients, c.crash)
		}
		if cal.Spread == nil || cal.Spread.Max != 0 {
			t.Errorf("%s: spread %+v, want 0: in a bubble every client learns of the crash at once", c.name, cal.Spread)
		}
		if l := cal.SendLag; l == nil || l.P50 < c.lag || l.P50 > c.lag*1.01+0.001 || l.Max > c.lag*1.01+0.001 {
			t.Errorf("%s: send lag %+v, want %g ms throughout", c.name, l, c.lag)
		}
		if len(cal.tables) != len(p.Strategies) || cal.tables[0].crash != nil || (c.lag > 0) != (cal.tables[1].send != nil) {
			t.Errorf("%s: tables %+v, want one per cohort, no crash lateness, a send lag only when late", c.name, cal.tables)
		}
		if cal.Wall <= calibrationHold+calibrationCrash {
			t.Errorf("%s: the calibration took %v, less than its crash", c.name, cal.Wall)
		}
	}
}

// ChooseSlowMotion takes the least slow motion at which the model, given
// the calibrated lateness that many times smaller, predicts exact
// figures, when its runs fit in the budget; else the best prediction that
// fits, the larger factor of equals; 1 when nothing more fits.
func TestChooseSlowMotion(t *testing.T) {
	p := scenariotest.Plan(t, lateCrash, scenarios.Overrides{})
	var spread []time.Duration
	for i := range latenessQuantiles {
		spread = append(spread, time.Duration(i)*8*time.Millisecond/latenessQuantiles) // 0 to 8 ms
	}
	cal := &Calibration{tables: []lateTables{{crash: spread}, {crash: spread}}}
	ctx := context.Background()
	wall := 2 * p.Duration
	free, err := ChooseSlowMotion(ctx, p, cal, wall, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if free.Predicted != results.Exact || free.Factor < 2 || free.Factor != free.Exact || free.Wall != time.Duration(free.Factor)*wall {
		t.Fatalf("without a budget: %+v, want the least factor that is exact (and more than 1: 8 ms moves these figures)", free)
	}
	ref := simulate(ctx, []*scenarios.Plan{p}, []int{0}, nil, Options{Mode: Mode{Runs: 1}})
	for _, k := range []int{int(free.Factor), int(free.Factor) / 2} {
		late := simulate(ctx, []*scenarios.Plan{p}, []int{0}, map[*scenarios.Plan][]lateTables{p: {cal.tables[0].scaled(k), cal.tables[1].scaled(k)}}, Options{Mode: Mode{Runs: 1}})
		if j := predict(p, ref[0], late[0]); (j == results.Exact) != (k == int(free.Factor)) {
			t.Errorf("at %d× the model predicts %s", k, j)
		}
	}
	tight, err := ChooseSlowMotion(ctx, p, cal, wall, wall)
	if err != nil {
		t.Fatal(err)
	}
	if tight.Factor != 1 || tight.Exact != free.Exact || tight.Wall != wall {
		t.Errorf("a budget of one run at real speed: %+v, want 1×, still knowing exact needs %d×", tight, free.Exact)
	}
	if free.Factor > 2 {
		some, err := ChooseSlowMotion(ctx, p, cal, wall, time.Duration(free.Factor/2)*wall)
		if err != nil {
			t.Fatal(err)
		}
		if some.Factor != free.Factor/2 || some.Predicted == results.Exact {
			t.Errorf("a budget of %d× %v: %+v, want the largest factor that fits when none is exact", free.Factor/2, wall, some)
		}
	}
}

// RunWall: a plan lasts its duration, times its repetitions and, apart,
// its cohorts; a one-shot workload ends with its last unit of work, as
// the simulator has it.
func TestRunWall(t *testing.T) {
	ctx := context.Background()
	p := scenariotest.Plan(t, lateCrash, scenarios.Overrides{})
	if got := RunWall(ctx, []*scenarios.Plan{p, p}, Options{Mode: Mode{Cohorts: Apart}}); got != 2*2*p.Duration {
		t.Errorf("two points of two cohorts apart: %v, want %v", got, 4*p.Duration)
	}
	one := scenariotest.Plan(t, `
name: one
duration: 10m
target: {concurrency: 4, service_time: 10ms}
workload: {kind: oneshot, clients: 40}
strategies:
  - {name: a, backoff: full, base: 10ms}
  - {name: b, backoff: full, base: 10ms}
`, scenarios.Overrides{})
	together, apart := RunWall(ctx, []*scenarios.Plan{one}, Options{}), RunWall(ctx, []*scenarios.Plan{one}, Options{Mode: Mode{Cohorts: Apart}})
	if together <= 0 || together > 10*time.Second || apart < together || apart > 2*together {
		t.Errorf("a one-shot workload of 40 units on 4 slots of 10 ms: %v together, %v apart; want about 100 ms, not its 10 minutes", together, apart)
	}
}

// Of two arrangements of a plan's cohorts, the better prediction wins,
// then the shorter runs, then the larger factor.
func TestBetterChoice(t *testing.T) {
	exact1 := Choice{Factor: 1, Predicted: results.Exact, Wall: time.Minute}
	exact2 := Choice{Factor: 2, Predicted: results.Exact, Wall: 30 * time.Second}
	holds20 := Choice{Factor: 8, Predicted: results.Holds, Resolution: 20 * time.Millisecond, Wall: 2 * time.Minute}
	holds50 := Choice{Factor: 2, Predicted: results.Holds, Resolution: 50 * time.Millisecond, Wall: 2 * time.Minute}
	holds20at2 := Choice{Factor: 2, Predicted: results.Holds, Resolution: 20 * time.Millisecond, Wall: 2 * time.Minute}
	not := Choice{Factor: 2, Predicted: results.NotTrustworthy, Resolution: time.Hour, Wall: time.Minute}
	for _, c := range []struct {
		name string
		a, b Choice
	}{
		{"exact beats holds", exact1, holds20},
		{"holds beats not trustworthy", holds50, not},
		{"a finer resolution", holds20, holds50},
		{"exact and sooner", exact2, exact1},
		{"the same, in more slow motion", holds20, holds20at2},
	} {
		if !BetterChoice(c.a, c.b) || BetterChoice(c.b, c.a) {
			t.Errorf("%s: %+v should beat %+v, not the other way", c.name, c.a, c.b)
		}
	}
}
