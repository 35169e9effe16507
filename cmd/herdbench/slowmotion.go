package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
)

// --slow-motion K or auto (the default). Auto measures, before a real run
// of a scenario whose clients and target are herdbench's own, how late
// this machine's harness is (engine.Calibrate: its clients held, then a
// crash), asks the model which slow motion the scenario's figures need
// (engine.ChooseSlowMotion) and says what it chose and what it costs.

// autoBudget is the longest --slow-motion auto lets the runs of a
// scenario last on the wall clock (their lead, the simulator's reference
// and the report come on top): the outage, whose four cohorts run apart
// for a minute at real speed on a 2-core machine, gets twice as slow.
const autoBudget = 2 * time.Minute

// slowMotionFlag is --slow-motion: a factor from 1 to slowmo.Max, or auto.
type slowMotionFlag struct {
	auto bool
	k    int
}

func (f *slowMotionFlag) String() string {
	if f.auto {
		return "auto"
	}
	return strconv.Itoa(f.k)
}

func (f *slowMotionFlag) Set(s string) error {
	if s == "auto" {
		f.auto, f.k = true, 1
		return nil
	}
	k, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("write a factor from 1 (real speed) to %d, or auto", slowmo.Max)
	}
	f.auto, f.k = false, k
	return nil
}

func (f *slowMotionFlag) Type() string { return "K|auto" }

// slowMotionHelp is --slow-motion's line in --help.
var slowMotionHelp = fmt.Sprintf("in real time, live every duration of the scenario K times longer on the wall clock (1 to %d): the harness's own lateness, which does not slow down, is then K times smaller in the scenario's time, and a crash's waves as tight as the model's on few cores; the run takes K times longer. Its own clients, target and tiers only (not gRPC or an external service). auto: a calibration of about 2s measures how late this machine's harness is at a crash, and the model picks the factor the scenario's figures need, within %s of runs (with --cohorts auto, and the cohorts together where that beats apart; 1 where slow motion cannot slow the run, and for a run watched live: --ui, --metrics-addr, --otlp)", slowmo.Max, autoBudget)

// autoSlowable says whether --slow-motion auto may slow sr's runs: a real
// run of herdbench's own clients and target, not a shard (which starts at
// an agreed instant), nor one whose fault plan --chaos-control keeps on
// the wall clock, nor one watched live (--ui, --metrics-addr, --otlp),
// whose rates are per second of the wall clock.
func (sr *scenarioRun) autoSlowable() bool {
	o := sr.opts
	return sr.f.slow.auto && !o.Sim && !o.ChaosControl && len(o.Live) == 0 && o.Part.Of == 0 && o.StartAt.IsZero() &&
		engine.CheckSlowMotion(sr.plans[0], engine.Options{Mode: engine.Mode{SlowMotion: 2}}) == nil
}

// wallAtRealSpeed is how long sr's runs last at real speed
// (engine.RunWall), computed once.
func (sr *scenarioRun) wallAtRealSpeed(ctx context.Context) time.Duration {
	if sr.wall == 0 {
		sr.wall = engine.RunWall(ctx, sr.plans, sr.opts)
	}
	return sr.wall
}

// chooseSlowMotion carries out --slow-motion auto: calibrates, chooses
// and, unless quiet, says so on stderr. Where --cohorts auto would run
// the cohorts apart, it calibrates them together too, and takes the
// arrangement whose choice is better (engine.BetterChoice): for the same
// wall time, together in more slow motion divides the machine's own
// stalls by more, apart spares each cohort the others' crash. A
// calibration that fails leaves the run at real speed, with a word; an
// interrupt during it is returned.
func (sr *scenarioRun) chooseSlowMotion(ctx context.Context, stderr io.Writer) error {
	if !sr.autoSlowable() {
		return nil
	}
	p, quiet := sr.plans[0], sr.f.quiet
	ways := []engine.Cohorts{sr.opts.Cohorts}
	if sr.opts.Cohorts == engine.Auto && sr.opts.Apart(p) {
		ways = []engine.Cohorts{engine.Apart, engine.Together}
	}
	if !quiet {
		var took time.Duration
		for _, w := range ways {
			o := sr.opts
			o.Cohorts = w
			took += engine.CalibrationWall(p, o)
		}
		fmt.Fprintf(stderr, "slow motion auto: measuring how late this machine's harness is at a crash (about %s)...\n", took.Round(100*time.Millisecond))
	}
	var best *arranged
	var err error
	for _, w := range ways {
		var a *arranged
		if a, err = sr.calibrateArranged(ctx, w); err != nil {
			break
		}
		if best == nil || engine.BetterChoice(a.choice, best.choice) {
			best = a
		}
	}
	if err == nil {
		sr.opts.Cohorts, sr.opts.SlowMotion, sr.wall = best.cohorts, best.choice.Factor, best.wall
		if !quiet {
			fmt.Fprintln(stderr, "slow motion auto: "+choiceText(best, len(ways) > 1))
		}
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !quiet {
		fmt.Fprintf(stderr, "slow motion auto: %v; the run goes at real speed\n", err)
	}
	return nil
}

// arranged is --slow-motion auto's choice for one arrangement of the
// cohorts: its calibration, the runs' wall time at real speed, and the
// factor chosen.
type arranged struct {
	cohorts engine.Cohorts
	cal     *engine.Calibration
	wall    time.Duration
	choice  engine.Choice
}

// calibrateArranged calibrates sr's runs with their cohorts arranged w
// and chooses their slow motion.
func (sr *scenarioRun) calibrateArranged(ctx context.Context, w engine.Cohorts) (*arranged, error) {
	p, o := sr.plans[0], sr.opts
	o.Cohorts = w
	a := &arranged{cohorts: w, wall: engine.RunWall(ctx, sr.plans, o)}
	var err error
	if a.cal, err = calibrate(ctx, p, o); err != nil {
		return nil, err
	}
	a.choice, err = engine.ChooseSlowMotion(ctx, p, a.cal, a.wall, autoBudget)
	return a, err
}

// choiceText says what the calibration measured and what auto chose:
// "500 clients learned of a crash over p99 38ms here; the model holds the
// figures at 50 ms at 2× (exact needs 16×): --slow-motion 2"; with both
// arrangements weighed (both), which cohorts arrangement it took.
func choiceText(a *arranged, both bool) string {
	cal, c := a.cal, a.choice
	here := "this machine's harness was never late enough to matter"
	spread, lag := cal.Spread, cal.SendLag
	if cal.Clients == 0 {
		spread = nil
	}
	switch {
	case spread != nil && (lag == nil || spread.P99 >= lag.P99):
		here = fmt.Sprintf("%d clients learned of a crash over p99 %s here", cal.Clients, msText(spread.P99))
	case lag != nil:
		here = fmt.Sprintf("attempts went out late by p99 %s here", msText(lag.P99))
	}
	var model string
	switch c.Predicted {
	case results.Exact:
		model = fmt.Sprintf("the model holds the figures exactly at %d×", c.Factor)
	case results.Holds:
		model = fmt.Sprintf("the model holds the figures at %d× with the waves read at %d ms", c.Factor, c.Resolution/time.Millisecond)
	default:
		model = fmt.Sprintf("the model holds the figures at no factor within %s of runs", autoBudget)
	}
	if c.Exact > c.Factor {
		model += fmt.Sprintf(" (exactly at %d×: %s)", c.Exact, roundWall(time.Duration(c.Exact)*c.Wall/time.Duration(c.Factor)))
	} else if c.Exact == 0 && c.Predicted != results.Exact {
		model += fmt.Sprintf(" (exactly at none up to %d×)", engine.MaxAutoSlowMotion)
	}
	flags := fmt.Sprintf("--slow-motion %d", c.Factor)
	if both {
		flags = fmt.Sprintf("--cohorts %s %s", map[engine.Cohorts]string{engine.Apart: "apart", engine.Together: "together"}[a.cohorts], flags)
		here = "with the cohorts " + map[engine.Cohorts]string{engine.Apart: "apart", engine.Together: "together"}[a.cohorts] + ", " + here
	}
	return fmt.Sprintf("%s; %s: %s, the runs lasting %s (--slow-motion 1 for real speed).", here, model, flags, roundWall(c.Wall))
}

// msText writes milliseconds as "38ms", or "0.4ms" below 1.
func msText(ms float64) string {
	if ms < 1 {
		return strconv.FormatFloat(ms, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(ms, 'f', 0, 64) + "ms"
}

// roundWall rounds a wall time as people read one: to the second.
func roundWall(d time.Duration) time.Duration { return d.Round(time.Second) }
