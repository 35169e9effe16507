package drive

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
)

// Search is a cliff search over a scenario.
type Search struct {
	// Scenario is the scenario, opened (scenarios.Open) with the root seed
	// and the fixed values.
	Scenario *scenarios.Opened
	// Fixed are the values every point takes (--set with one value each).
	Fixed []scenarios.Axis
	Spec  cliff.Spec
	// Workers is how many runs go at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is told after each run how many runs were made
	// and about how many are left (cliff.Remaining), from one goroutine
	// at a time.
	Progress func(done, remaining int)

	plans map[[2]int]*scenarios.Plan
}

// Check compiles the scenario at the corners of the grid and checks that
// every strategy searched is in it and that it has a fault to recover
// from: a bad field, value or name fails here, before any run, with the
// scenario's own message.
func (sr *Search) Check() error {
	corners := [][2]int{{0, 0}, {sr.Spec.X.Len() - 1, 0}}
	if y := sr.Spec.Y; y != nil {
		corners = append(corners, [2]int{0, y.Len() - 1}, [2]int{sr.Spec.X.Len() - 1, y.Len() - 1})
	}
	for _, c := range corners {
		p, err := sr.plan(c[0], c[1])
		if err != nil {
			return err
		}
		if _, _, ok := p.Chaos.Span(); p.Chaos == nil || !ok {
			return fmt.Errorf("%s has no fault at %s: the cliff search measures recovery from the end of the last fault; add one to the scenario's chaos list", p.Name, sr.pointText(c[0], c[1]))
		}
		for _, name := range sr.Spec.Strategies {
			if strategyIndex(p, name) < 0 {
				return fmt.Errorf("%s has no strategy %q; it has %s", p.Name, name, strings.Join(strategyNames(p), ", "))
			}
		}
	}
	return nil
}

func (sr *Search) pointText(x, y int) string {
	s := sr.Spec.X.Path + "=" + sr.Spec.X.Text(x)
	if sr.Spec.Y != nil {
		s += ", " + sr.Spec.Y.Path + "=" + sr.Spec.Y.Text(y)
	}
	return s
}

// plan returns the scenario compiled at grid value (x, y), compiling it
// the first time.
func (sr *Search) plan(x, y int) (*scenarios.Plan, error) {
	if p, ok := sr.plans[[2]int{x, y}]; ok {
		return p, nil
	}
	set := slices.Clone(sr.Fixed)
	set = append(set, scenarios.Axis{Path: sr.Spec.X.Path, Values: []string{sr.Spec.X.Text(x)}, Origin: "--vary"})
	if a := sr.Spec.Y; a != nil {
		set = append(set, scenarios.Axis{Path: a.Path, Values: []string{a.Text(y)}, Origin: "--vary"})
	}
	plans, err := Compile(sr.Scenario, set)
	if err != nil {
		return nil, fmt.Errorf("at %s: %w", sr.pointText(x, y), err)
	}
	if sr.plans == nil {
		sr.plans = map[[2]int]*scenarios.Plan{}
	}
	sr.plans[[2]int{x, y}] = plans
	return plans, nil
}

// Compile compiles the opened scenario with set (each field one value) as
// one plan.
func Compile(op *scenarios.Opened, set []scenarios.Axis) (*scenarios.Plan, error) {
	for i := range set {
		a, err := scenarios.ParseSet(set[i].Path + "=" + strings.Join(set[i].Values, ","))
		if err != nil {
			return nil, err
		}
		if set[i].Origin != "" {
			a.Origin = set[i].Origin
		}
		set[i] = a
	}
	plans, err := op.Scenario.Expand(scenarios.Overrides{Seed: &op.Seed, Set: set})
	if err != nil {
		return nil, err
	}
	if len(plans) != 1 {
		var fields []string
		for _, a := range plans[0].Sweep {
			fields = append(fields, a.Path)
		}
		return nil, fmt.Errorf("the scenario sweeps %s: give each one value with --set for the cliff search", strings.Join(fields, ", "))
	}
	return plans[0], nil
}

func strategyIndex(p *scenarios.Plan, name string) int {
	for i := range p.Strategies {
		if p.Strategies[i].Name == name {
			return i
		}
	}
	return -1
}

func strategyNames(p *scenarios.Plan) []string {
	out := make([]string, len(p.Strategies))
	for i := range p.Strategies {
		out[i] = p.Strategies[i].Name
	}
	return out
}

// Run runs the search until cliff.Next asks for no more runs, and returns
// every result, in the order they were asked for. When ctx ends it stops
// every run where it is and returns the results of the runs that ended,
// with ctx's error.
func (sr *Search) Run(ctx context.Context, done []cliff.Result) ([]cliff.Result, error) {
	if err := sr.Check(); err != nil {
		return nil, err
	}
	rs := slices.Clone(done)
	for {
		next := cliff.Next(sr.Spec, rs)
		if len(next) == 0 {
			return rs, nil
		}
		if err := ctx.Err(); err != nil {
			return rs, err
		}
		round, err := sr.round(ctx, next, len(rs), cliff.Remaining(sr.Spec, rs))
		rs = append(rs, round...)
		if err != nil {
			return rs, err
		}
	}
}

// round makes the runs of next on the workers and returns the results of
// those that ended, in next's order; before runs were made before it and
// about left are left, this round's included.
func (sr *Search) round(ctx context.Context, next []cliff.Probe, before, left int) ([]cliff.Result, error) {
	runs := make([]*engine.CohortRun, len(next))
	for i, pr := range next {
		p, err := sr.plan(pr.X, pr.Y)
		if err != nil {
			return nil, err
		}
		runs[i] = engine.NewCohortRun(p, strategyIndex(p, sr.Spec.Strategies[pr.Strategy]), pr.Seed)
	}
	out := make([]cliff.Result, len(next))
	ended := make([]bool, len(next))
	var mu sync.Mutex
	made := before
	each(ctx, sr.Workers, len(next), func(s *sim.Sim, stop *atomic.Bool, i int) {
		r, ok := probe(s, stop, runs[i], next[i])
		out[i], ended[i] = r, ok
		if ok && sr.Progress != nil {
			mu.Lock()
			made++
			sr.Progress(made, max(0, left-(made-before)))
			mu.Unlock()
		}
	})
	var kept []cliff.Result
	for i := range out {
		if ended[i] {
			kept = append(kept, out[i])
		}
	}
	return kept, ctx.Err()
}

// probe runs one probe's cohort run on s; ok is false when stop cut it.
func probe(s *sim.Sim, stop *atomic.Bool, c *engine.CohortRun, pr cliff.Probe) (cliff.Result, bool) {
	w := engine.Window(c.Plan)
	var during duringFault
	c.Cohort.Stop, c.Cohort.OnRequest = stop, during.tally(w)
	res := s.Run(c.Cohort, c.Rec)
	if res.Stopped {
		return cliff.Result{}, false
	}
	run := c.Summarize(res, c.Rec, c.Below, w)
	return cliff.Result{Probe: pr, Collapsed: Collapsed(c.Plan, c.Strategy, w, run.RecoveryS), RecoveryS: run.RecoveryS, DuringFault: during.ratio()}, true
}

// Collapsed is the search's criterion (cliff.Criterion): a run of
// strategy (an index in p.Strategies) whose faults ended at w.LastEnd
// collapsed when it never recovered (recovery null), or when the 1 s
// window its recovery starts with reaches into the run's last stretch as
// long as the strategy's timeout: the attempts sent then have not all
// ended by the run's end, so those windows count the fast answers alone,
// and a fleet stuck in timeouts shows as recovered in them.
func Collapsed(p *scenarios.Plan, strategy int, w results.Window, recovery *float64) bool {
	if recovery == nil {
		return true
	}
	margin := p.Strategies[strategy].Timeout
	at := w.LastEnd + time.Duration(*recovery*float64(time.Second))
	return margin > 0 && at+time.Second > p.Duration-margin
}

// duringFault counts the requests that began during a fault window and
// how many of them succeeded, whenever they ended: what a budget costs
// while the fault lasts (a request denied a retry fails at once; one
// allowed to retry may succeed once the fault is over).
type duringFault struct{ ok, failed int64 }

// tally returns the function that counts the requests that began in w.
func (d *duringFault) tally(w results.Window) func(results.Request) {
	return func(q results.Request) {
		if q.Start < w.FirstStart || q.Start >= w.LastEnd {
			return
		}
		if q.Succeeded {
			d.ok++
		} else {
			d.failed++
		}
	}
}

// ratio is the success ratio of the requests counted; nil when none ended.
func (d *duringFault) ratio() *float64 {
	if d.ok+d.failed == 0 {
		return nil
	}
	v := float64(d.ok) / float64(d.ok+d.failed)
	return &v
}

// each calls f for 0 to n-1 on workers goroutines (0: GOMAXPROCS), each
// with a simulator of its own, until all are done or ctx ends: then stop
// is set, which stops the simulated runs under way, and no more start.
func each(ctx context.Context, workers, n int, f func(s *sim.Sim, stop *atomic.Bool, i int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	stop := new(atomic.Bool)
	release := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer release()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			s := sim.New()
			for i := range jobs {
				f(s, stop, i)
			}
		})
	}
	for i := range n {
		if stop.Load() {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}
