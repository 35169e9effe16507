package engine

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// One scheduler runs every plan's repetitions × cohorts, in real time or
// in virtual time: it cuts them into units, hands the units to a driver
// (realDriver, simDriver: drivers.go) on one worker or several, and keeps
// each unit's outcome in a fixed slot. assemble then makes each point's
// summary from those outcomes, once.

// unit is what a driver runs at once: cohorts of one repetition of one
// point, all of them (a real-time run's cohorts together) or one.
type unit struct {
	point, rep int
	cohorts    []int // indices into the plan's strategies, in order
}

// outcome is what a unit left: each cohort's figures and recorders, in
// the unit's order, and how the unit ended.
type outcome struct {
	runs    []results.Run
	cohorts []results.Cohort // nil when the driver did not keep them
	origin  time.Time        // a real-time unit's t = 0 on the wall clock
	check   *selfCheck       // a real-time unit's self-check; nil in virtual time
	cut     bool             // stopped before its end (an interrupt, a panic)
	end     time.Duration    // where a cut unit stopped
	err     error            // the *PanicError that stopped it, if a bug did
}

// A driver runs units: package clients' swarm against embedded targets
// in real time, or package sim in virtual time.
type driver interface {
	// together reports whether a repetition of p runs its cohorts as one
	// unit (all at once) rather than one unit per cohort.
	together(p *scenarios.Plan) bool
	// workers is how many units may run at once.
	workers() int
	// startsCancelled reports whether the first unit starts even when ctx
	// is already done (a real-time run then sets up and ends at once,
	// partial); the units after it start only while ctx is live.
	startsCancelled() bool
	// newRunner returns what one worker runs its units with: each worker
	// has its own (a simulator, recorders to reuse).
	newRunner() runner
}

// A runner runs one unit of plans[u.point]; keep asks it for the
// cohorts' recorders in the outcome (a driver may keep them anyway).
type runner interface {
	run(ctx context.Context, p *scenarios.Plan, u unit, keep bool) (outcome, error)
}

// scheduled is what the scheduler ran of one plan: per repetition, per
// unit, the outcome; nil where the unit never ran.
type scheduled struct {
	units [][]unit
	got   [][]*outcome
}

// ran reports whether any unit of the point ran.
func (sc *scheduled) ran() bool {
	for _, rep := range sc.got {
		for _, oc := range rep {
			if oc != nil {
				return true
			}
		}
	}
	return false
}

// partial reports whether the point's figures miss anything: a unit that
// never ran, or one cut short.
func (sc *scheduled) partial() bool {
	for _, rep := range sc.got {
		for _, oc := range rep {
			if oc == nil || oc.cut || oc.err != nil {
				return true
			}
		}
	}
	return false
}

// schedule runs every unit of plans with d, o.Runs repetitions each, in
// the order point, repetition, cohort, on d's workers; the outcomes land
// in fixed slots, so they never depend on which worker ran what. keep(rep)
// says which repetitions' recorders to keep. Once ctx is done no unit
// starts (but the first, if d.startsCancelled); once a unit fails (a
// panic) none starts either, and the first such error is returned with
// what ran.
func schedule(ctx context.Context, d driver, plans []*scenarios.Plan, o Options, keep func(rep int) bool) ([]scheduled, error) {
	reps := max(1, o.Runs)
	out := make([]scheduled, len(plans))
	var all []unit
	var slots []**outcome // all[i]'s outcome goes into *slots[i]
	cohortRuns := 0
	for pi, p := range plans {
		sc := &out[pi]
		sc.units = make([][]unit, reps)
		sc.got = make([][]*outcome, reps)
		for rep := range reps {
			if d.together(p) {
				u := unit{point: pi, rep: rep}
				for ci := range p.Strategies {
					u.cohorts = append(u.cohorts, ci)
				}
				sc.units[rep] = []unit{u}
			} else {
				for ci := range p.Strategies {
					sc.units[rep] = append(sc.units[rep], unit{point: pi, rep: rep, cohorts: []int{ci}})
				}
			}
			sc.got[rep] = make([]*outcome, len(sc.units[rep]))
			all = append(all, sc.units[rep]...)
			for k := range sc.units[rep] {
				slots = append(slots, &sc.got[rep][k])
			}
		}
		cohortRuns += reps * len(p.Strategies)
	}
	var next, ended atomic.Int64
	var failed atomic.Pointer[error]
	fail := func(err error) { failed.CompareAndSwap(nil, &err) }
	var wg sync.WaitGroup
	for range min(max(1, d.workers()), len(all)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					fail(&PanicError{Value: v, Stack: debug.Stack()})
				}
			}()
			r := d.newRunner()
			for failed.Load() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(all) || ctx.Err() != nil && (i > 0 || !d.startsCancelled()) {
					return
				}
				u := all[i]
				if o.beforeTask != nil {
					o.beforeTask(u.point, u.cohorts[0], u.rep)
				}
				oc, err := r.run(ctx, plans[u.point], u, keep(u.rep))
				if err != nil {
					fail(err)
					return
				}
				*slots[i] = &oc
				if oc.err != nil {
					fail(oc.err) // keep what it recorded, and stop
					return
				}
				if oc.cut && u.rep > 0 {
					continue // not counted: a repetition cut short is not one
				}
				if n := ended.Add(int64(len(u.cohorts))); o.OnDone != nil {
					o.OnDone(int(n), cohortRuns)
				}
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		return out, *err
	}
	return out, nil
}

// assemble makes the point of plan p from what the scheduler ran of it,
// once: every cohort's figures (with stats over the repetitions), the
// seed, whether it is partial and where it stopped, the self-check, the
// shard's marks, the thresholds (checked, or a shard's left to the
// merge), and ref's figures, a simulated run of the same plan, beside
// each cohort's own (nil: none), with the model's second opinion, late
// (lateness.go; nil: none). started is the time a simulated point
// began; a real-time point's is its first unit's t = 0.
func assemble(p *scenarios.Plan, o Options, mode string, started time.Time, sc *scheduled, ref *simulated, late *opinion) Point {
	reps := len(sc.got)
	cohortRuns := make([][]results.Run, len(p.Strategies))
	first := make([]*results.Cohort, len(p.Strategies)) // the first repetition's recorders
	var check *selfCheck
	partial, apart := false, false
	cut := time.Duration(-1) // the earliest a cut unit of the first repetition reached
	for rep := range reps {
		var repCheck *selfCheck
		for k, u := range sc.units[rep] {
			oc := sc.got[rep][k]
			if oc == nil {
				partial = true // never ran
				continue
			}
			if oc.cut || oc.err != nil {
				partial = true
			}
			if oc.cut && rep > 0 {
				// A repetition cut short is not one: the figures over
				// repetitions keep those that ran whole.
				continue
			}
			if oc.cut && (cut < 0 || oc.end < cut) {
				// The first repetition's figures and timelines are the
				// ones shown: ended_s says where they stop.
				cut = oc.end
			}
			if rep == 0 && k == 0 && mode == "real" {
				started = oc.origin
			}
			apart = apart || mode == "real" && len(u.cohorts) < len(p.Strategies)
			for j, ci := range u.cohorts {
				cohortRuns[ci] = append(cohortRuns[ci], oc.runs[j])
				if rep == 0 && oc.cohorts != nil {
					first[ci] = &oc.cohorts[j]
				}
			}
			switch {
			case oc.check == nil:
			case repCheck == nil:
				repCheck = oc.check
			default:
				repCheck.join(oc.check) // the next cohorts, run apart
			}
		}
		switch {
		case repCheck == nil:
		case check == nil:
			check = repCheck
		default:
			check.merge(repCheck) // over every repetition
		}
	}
	s := newSummary(p, mode, o.Version, started)
	if mode == "real" {
		s.Target = secret.URL(p.TargetURL) // summary.json, the report, --json
	}
	s.Partial, s.CohortsApart = partial, apart
	if mode == "real" && o.SlowMotion.On() {
		s.SlowMotion = int(o.SlowMotion)
	}
	if cut >= 0 {
		ended := cut.Seconds()
		s.EndedS = &ended
	}
	fillRuns(s, p, cohortRuns, reps)
	if check != nil {
		check.limit = results.Limit(timescales(p)) // every cohort's strategy counts, not the first's alone
		check.apply(s)
	}
	out := folder.Output{Summary: s, Scenario: p.Resolved}
	// Every cohort whose figures the summary holds has its timeline, whole
	// or cut where the interrupt found it; a cohort that never began has
	// neither.
	for ci, c := range first {
		if c != nil && len(cohortRuns[ci]) > 0 {
			out.Cohorts = append(out.Cohorts, *c)
		}
	}
	markShard(&out, p, o.Part, o.Clock)
	if !o.Timelines {
		out.Cohorts = nil
	}
	simBeside(s, ref, late)
	if s.Harness != nil {
		s.Verdict = results.Decide(s, evidence(p, s, first, ref, late), remedy(p, o, s, late))
		s.Harness.Trustworthy = s.Verdict.Trusted()
	}
	pt := Point{Plan: p, Output: out, Repetitions: repetitions(cohortRuns, reps)}
	if s.Shard == nil { // a shard's figures are its share: the merge checks them (Shard.Thresholds)
		s.Thresholds = results.CheckThresholds(s, p.Thresholds, pt.Repetitions)
	}
	return pt
}

// evidence is what the verdict of a real point weighs (results.Decide):
// for each cohort, its figures and herd factor at every resolution (of
// its first repetition's recorders, first), the simulator's (ref) and
// the simulator's with the run's own lateness (late); none without a
// whole reference.
func evidence(p *scenarios.Plan, s *results.Summary, first []*results.Cohort, ref *simulated, late *opinion) []results.Evidence {
	if ref == nil || ref.sum.Partial {
		return nil
	}
	var lm *simulated
	if late != nil && !late.late.sum.Partial {
		lm = late.late
	}
	var ev []results.Evidence
	for i := range s.Runs {
		name := s.Runs[i].Strategy
		sim := ref.reading(name)
		if sim == nil {
			continue
		}
		e := results.Evidence{Cohort: name, Real: results.Reading{Figures: results.SimFigures(s.Runs[i])}, Sim: *sim, Late: lm.reading(name)}
		for _, c := range first {
			if c != nil && c.Rec != nil && c.Strategy == name {
				e.Real.Herd = results.HerdFactorsOf(*c, window(p))
			}
		}
		ev = append(ev, e)
	}
	return ev
}

// remedy is what a real point that is not trustworthy could do instead
// (results.Remedy): run again in slow motion, where slow motion can slow
// it, by the factor at which the model given its lateness holds its
// figures (twice the run's own when the model was not asked or held them
// already), unless none up to results.MaxLatenessNeeds did.
func remedy(p *scenarios.Plan, o Options, s *results.Summary, late *opinion) results.Remedy {
	// What the run took, at real speed: a one-shot workload ends before
	// its plan's duration.
	r := results.Remedy{Wall: time.Duration(s.Harness.CPU.WallS * float64(time.Second) / float64(max(1, s.SlowMotion))).Round(time.Second)}
	r.Slowable = CheckSlowMotion(p, Options{Mode: Mode{SlowMotion: 2}, Drive: o.Drive}) == nil
	r.Together = !s.CohortsApart && len(p.Strategies) > 1 && o.Drive == nil && ApartByDefault(p)
	if !r.Slowable {
		return r
	}
	need := 2
	if late != nil {
		need = max(need, late.hold)
		if late.hold == 0 {
			return r // no slow motion up to the most the model tries holds them
		}
	}
	if k := max(1, int(o.SlowMotion)) * need; k <= slowmo.Max {
		r.SlowMotion = k
	}
	return r
}

// simBeside puts the simulator's figures of the same plans and seeds
// beside a real run's own (runs[].sim), and the model's second opinion
// with the run's own lateness (lateness.go), when they ran whole.
func simBeside(s *results.Summary, ref *simulated, late *opinion) {
	if ref == nil || ref.sum.Partial {
		return
	}
	for i := range s.Runs {
		if r := refRun(ref.sum, s.Runs[i].Strategy); r != nil {
			s.Runs[i].Sim = results.SimFigures(*r)
		}
	}
	if late == nil || late.late.sum.Partial || s.Harness == nil {
		return
	}
	for i := range s.Runs {
		if r := refRun(late.late.sum, s.Runs[i].Strategy); r != nil && s.Runs[i].Sim != nil {
			s.Runs[i].SimLate = results.SimFigures(*r)
			if len(results.ModelMoved(s.Runs[i].Sim, s.Runs[i].SimLate)) > 0 {
				s.Runs[i].LatenessNeeds = late.exact
			}
		}
	}
}
