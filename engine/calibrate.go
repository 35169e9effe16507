package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
)

// Slow motion chosen by calibration (--slow-motion auto): a short real
// run measures how late this machine's harness is for a plan (how far
// apart its clients learn of a crash, how late they send), and the model,
// given that lateness K times smaller, says which slow motion K the
// plan's figures need (the verdict it predicts, results.Predict). The
// choice is a decision (ChooseSlowMotion); the calibration its only
// measurement.

// The calibration run: the plan's clients, target and strategies, their
// requests held (a blackhole) from the start for calibrationHold, then
// the target crashed (its port closed, every held request reset) for
// calibrationCrash, and calibrationTail after it to learn of it.
const (
	calibrationHold  = time.Second
	calibrationCrash = 300 * time.Millisecond
	calibrationTail  = 200 * time.Millisecond
)

// Calibration is what a short real run measured of this machine's
// harness for a plan: how late its clients learned of a crash and how
// late they sent.
type Calibration struct {
	// Clients is how many attempts the crash ended at once, over the
	// cohorts calibrated (the first alone when the cohorts run apart).
	Clients int64
	// Spread and SendLag are what they measured, every cohort together.
	Spread, SendLag *results.Lag
	// Wall is what the calibration took on the wall clock.
	Wall time.Duration
	// tables are each cohort of the plan's lateness as the model takes
	// it (a cohort run apart takes the first's).
	tables []lateTables
}

// CalibrationWall is about how long Calibrate takes on the wall clock:
// the run and its lead.
func CalibrationWall(p *scenarios.Plan, o Options) time.Duration {
	q := calibrationPlan(p, o.Apart(p))
	return q.Duration + leadFor(q, o.Part)
}

// Calibrate measures this machine's harness for real-time runs of p with
// o (its cohorts together or apart, its network): it runs calibrationPlan
// at real speed and reads its self-check.
func Calibrate(ctx context.Context, p *scenarios.Plan, o Options) (*Calibration, error) {
	q := calibrationPlan(p, o.Apart(p))
	began := time.Now()
	r, err := Start(ctx, q, Options{Network: o.Network, BeforeSend: o.BeforeSend, Version: o.Version})
	if err != nil {
		return nil, err
	}
	<-r.done
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	c := &Calibration{Wall: time.Since(began)}
	lag, spread := results.NewLagHistogram(), results.NewLagHistogram()
	var measured []lateTables
	for i := range r.check.lag {
		s := results.NewLagHistogram()
		for _, e := range r.check.spread[i] {
			s.Merge(e.H)
		}
		c.Clients += s.TotalCount()
		lag.Merge(r.check.lag[i])
		spread.Merge(s)
		measured = append(measured, lateTables{crash: latenessTable(s), send: latenessTable(r.check.lag[i])})
	}
	c.Spread, c.SendLag = results.LagOf(spread), results.LagOf(lag)
	c.tables = make([]lateTables, len(p.Strategies))
	for ci := range c.tables {
		c.tables[ci] = measured[min(ci, len(measured)-1)]
	}
	return c, nil
}

// calibrationPlan is p with its chaos plan replaced by the calibration's
// (a blackhole, then a crash that resets every request it held), run for
// as long; p's first cohort alone when apart. In a chain of tiers the
// first tier, the one the clients call, crashes.
func calibrationPlan(p *scenarios.Plan, apart bool) *scenarios.Plan {
	q := *p
	q.Duration = calibrationHold + calibrationCrash + calibrationTail
	plan, err := chaos.NewPlan([]chaos.Timed{
		{Name: "hold", Kind: "blip", At: 0, For: calibrationHold, Fault: chaos.Blip{Blackhole: true}},
		{Name: "crash", Kind: "outage", At: calibrationHold, For: calibrationCrash, Fault: chaos.Outage{Mode: chaos.Refuse}},
	}, q.Duration)
	if err != nil {
		panic("engine: the calibration's chaos plan: " + err.Error()) // a constant plan
	}
	q.Chaos = plan
	if len(p.Tiers) > 0 {
		q.Tiers = append([]scenarios.Tier(nil), p.Tiers...)
		none, _ := chaos.NewPlan(nil, q.Duration)
		for i := range q.Tiers {
			q.Tiers[i].Chaos = none
		}
		q.Tiers[0].Chaos = plan
	}
	q.Thresholds = nil
	q.Runs = 1
	if apart && len(p.Strategies) > 1 {
		q.Strategies = p.Strategies[:1]
	}
	return &q
}

// Choice is what --slow-motion auto chose for a plan, and why.
type Choice struct {
	// Factor is the slow motion chosen.
	Factor slowmo.Factor
	// Predicted is the verdict the model predicts at Factor, its waves
	// read at Resolution.
	Predicted  results.Judgement
	Resolution time.Duration
	// Exact is the least factor at which the model predicts exact
	// figures (0: none up to MaxAutoSlowMotion).
	Exact slowmo.Factor
	// Wall is how long the runs last on the wall clock at Factor.
	Wall time.Duration
}

// MaxAutoSlowMotion is the largest factor --slow-motion auto considers.
const MaxAutoSlowMotion = 64

// ChooseSlowMotion chooses the slow motion for real-time runs of p that
// last wall at real speed (every point, repetition and cohort apart),
// from this machine's calibration: the model is given the calibrated
// lateness 1, 2, 4, ... MaxAutoSlowMotion times smaller, and predicts
// each factor's verdict. The least factor it predicts exact is chosen if
// its runs last at most budget; else, among the factors whose runs fit in
// budget (1 always does), the one whose prediction is best (exact, then
// holding at the finest resolution), the larger of equals: more slow
// motion than the model needs is a margin against a machine busier than
// at its calibration.
func ChooseSlowMotion(ctx context.Context, p *scenarios.Plan, cal *Calibration, wall, budget time.Duration) (Choice, error) {
	plans := []*scenarios.Plan{p}
	o := Options{Mode: Mode{Runs: 1}}
	ref := simulate(ctx, plans, []int{0}, nil, o)
	if ref == nil || ctx.Err() != nil {
		return Choice{Factor: 1, Wall: wall}, fmt.Errorf("engine: the model of %s did not run", p.Name)
	}
	best := Choice{Factor: 1, Wall: wall, Predicted: results.NotTrustworthy, Resolution: time.Hour}
	var exact slowmo.Factor
	for k := 1; k <= MaxAutoSlowMotion && ctx.Err() == nil; k *= 2 {
		t := make([]lateTables, len(cal.tables))
		for ci, l := range cal.tables {
			t[ci] = l.scaled(k)
		}
		late := simulate(ctx, plans, []int{0}, map[*scenarios.Plan][]lateTables{p: t}, o)
		if late == nil || ctx.Err() != nil {
			break
		}
		j, res := results.Predict(evidenceOf(p, ref[0], late[0]), hasFaults(p))
		fits := time.Duration(k)*wall <= budget || k == 1
		if fits && better(j, res, best.Predicted, best.Resolution, k >= int(best.Factor)) {
			best = Choice{Factor: slowmo.Factor(k), Predicted: j, Resolution: res, Wall: time.Duration(k) * wall}
		}
		if j == results.Exact {
			exact = slowmo.Factor(k)
			break
		}
	}
	best.Exact = exact
	return best, ctx.Err()
}

// BetterChoice reports whether choice a is better than b, for runs of
// one plan arranged two ways (its cohorts together or apart, each with
// its own calibration): the better prediction (exact, then holding at
// the finer resolution), then the shorter wall time, then the larger
// factor (a margin against a machine busier than at its calibration).
func BetterChoice(a, b Choice) bool {
	res := func(c Choice) time.Duration {
		if c.Predicted == results.Exact {
			return 0
		}
		return c.Resolution
	}
	switch {
	case a.Predicted != b.Predicted || res(a) != res(b):
		return better(a.Predicted, res(a), b.Predicted, res(b), false)
	case a.Wall != b.Wall:
		return a.Wall < b.Wall
	}
	return a.Factor > b.Factor
}

// better reports whether a prediction (j, at res) beats the best so far:
// a better outcome, or the same at a finer resolution, or the same at the
// same when larger (the factor is larger than the best's).
func better(j results.Judgement, res time.Duration, bj results.Judgement, bres time.Duration, larger bool) bool {
	rank := map[results.Judgement]int{results.Exact: 2, results.Holds: 1, results.NotTrustworthy: 0}
	switch {
	case rank[j] != rank[bj]:
		return rank[j] > rank[bj]
	case j == results.Holds && res != bres:
		return res < bres
	}
	return larger
}

// evidenceOf is what results.Predict weighs of a model with lateness
// (late) against the model (ref): each cohort's figures.
func evidenceOf(p *scenarios.Plan, ref, late *simulated) []results.Evidence {
	var ev []results.Evidence
	for _, st := range p.Strategies {
		r, s := late.reading(st.Name), ref.reading(st.Name)
		if r != nil && s != nil {
			ev = append(ev, results.Evidence{Cohort: st.Name, Real: *r, Sim: *s})
		}
	}
	return ev
}

// Lead is how long before its t = 0 a real-time unit of p starts setting
// up with o: its clients' and targets' lead (one cohort's, when apart).
func Lead(p *scenarios.Plan, o Options) time.Duration {
	if o.Apart(p) {
		q := *p
		q.Strategies = p.Strategies[:1]
		p = &q
	}
	return leadFor(p, o.Part)
}

// RunWall is about how long real-time runs of plans last on the wall clock
// with o at real speed, their leads aside: every point's duration, times
// its repetitions and, apart, its cohorts. A one-shot workload ends with
// its last unit of work: its cohorts' completion in the simulator (the
// plan's duration where the simulator's does not end before it).
func RunWall(ctx context.Context, plans []*scenarios.Plan, o Options) time.Duration {
	var wall time.Duration
	for _, p := range plans {
		each := make([]time.Duration, len(p.Strategies)) // each cohort's
		for i := range each {
			each[i] = p.Duration
		}
		if p.Workload.Kind == clients.OneShot {
			each = completions(ctx, p)
		}
		var d time.Duration
		if o.Apart(p) {
			for _, c := range each {
				d += c
			}
		} else {
			d = slices.Max(each)
		}
		wall += d * time.Duration(max(1, p.Runs))
	}
	return wall
}

// completions returns each cohort of p's completion in the simulator, its
// first repetition's, or p's duration for one that does not complete.
func completions(ctx context.Context, p *scenarios.Plan) []time.Duration {
	out := make([]time.Duration, len(p.Strategies))
	for i := range out {
		out[i] = p.Duration
	}
	m := simulate(ctx, []*scenarios.Plan{p}, []int{0}, nil, Options{Mode: Mode{Runs: 1}})
	if m == nil || m[0] == nil {
		return out
	}
	for i, st := range p.Strategies {
		if r := refRun(m[0].sum, st.Name); r != nil && r.CompletionS != nil {
			out[i] = min(p.Duration, time.Duration(*r.CompletionS*float64(time.Second)))
		}
	}
	return out
}
