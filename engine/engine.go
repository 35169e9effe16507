package engine

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/clients/swarm"

	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// lead is the time between setting up and the run's t = 0, so that every
// cohort's goroutines are ready when the clock starts.
const lead = 200 * time.Millisecond

// leadPerClient is added to the lead for each closed-loop or one-shot
// client (of every cohort): the time to open its connection before t = 0.
// On 2 cores both ends of a loopback connection cost about 190 µs of wall
// time when 10,000 are opened (bench/scale). A client whose connection is
// not open by its first send opens it then, as part of that attempt.
const leadPerClient = 250 * time.Microsecond

// leadFor returns the lead of plan p's run, of shard part of it.
func leadFor(p *scenarios.Plan, part clients.Part) time.Duration {
	if p.Workload.Kind == clients.Open {
		return lead
	}
	return lead + time.Duration(part.Count(p.Workload.Clients)*len(p.Strategies))*leadPerClient
}

// Run is a scenario running in real time.
type Run struct {
	Plan    *scenarios.Plan
	Origin  time.Time
	Version string

	cohorts   []*cohort
	cert      *wire.Cert // the embedded targets' certificate, for h2; nil otherwise
	cancel    context.CancelFunc
	done      chan struct{}
	partial   bool
	stoppedAt time.Duration // when a partial run was stopped
	check     *selfCheck    // the harness's own lateness and cost (selfcheck.go)
	opts      Options       // what the run was started with (its shard: Options.Part)

	panicMu  sync.Mutex
	panicErr *PanicError // the first panic of the run's goroutines
}

type cohort struct {
	strategy clients.Strategy
	rec      *results.Recorder
	target   *target.Server // the embedded target, or a chain's bottom tier; nil for an external one
	// With tiers: the cohort's chain, and the recorders of the attempts
	// that reached each tier but the first (tiers.go).
	chain *chain
	below []*results.Recorder
}

// Start starts every cohort of p in real time, as o says. Cancelling ctx
// stops the run early; it still ends normally through Wait, marked
// partial. Start is three steps: check what the run needs (prepare), set
// up each cohort's recorder and target (addCohorts), and start the
// clients and the watch for the run's end (launch).
func Start(ctx context.Context, p *scenarios.Plan, o Options) (*Run, error) {
	listen, dial, err := prepare(ctx, p, o)
	if err != nil {
		return nil, err
	}
	check := beginCheck(p)
	origin := time.Now().Add(leadFor(p, o.Part))
	if !o.StartAt.IsZero() {
		origin = o.StartAt
	}
	r := &Run{Plan: p, Origin: origin, Version: o.Version, done: make(chan struct{}), check: check, opts: o}
	if err := r.addCohorts(listen, dial); err != nil {
		r.closeTargets()
		return nil, err
	}
	r.launch(ctx, dial)
	return r, nil
}

// prepare checks, before anything is set up, what a real-time run of p
// needs: its start time, an external target on the loopback, the
// process's open files; gives p an empty chaos plan if it has none; and
// returns how the run listens and dials.
func prepare(ctx context.Context, p *scenarios.Plan, o Options) (target.ListenFunc, swarm.DialFunc, error) {
	if err := checkStart(p, o, time.Now()); err != nil {
		return nil, nil, err
	}
	if err := CheckSlowMotion(p, o); err != nil {
		return nil, nil, err
	}
	listen := o.Listen
	if listen == nil {
		listen = net.Listen
	}
	if p.Chaos == nil {
		plan, err := chaos.NewPlan(nil, p.Duration)
		if err != nil {
			return nil, nil, err
		}
		p.Chaos = plan
	}
	dial := o.Dial
	if p.TargetURL != "" {
		g := guard(p, o)
		if err := checkTarget(ctx, p.TargetURL, g); err != nil {
			return nil, nil, err
		}
		if dial == nil {
			// Checked again on every connection, at the address dialled.
			dial = g.DialContext
		}
	}
	if o.Listen == nil { // a real network: mind the process's open files
		if err := checkFiles(Share(p, o.Part)); err != nil {
			return nil, nil, err
		}
	}
	return listen, dial, nil
}

// addCohorts sets up every cohort of the run: its recorder (and live
// observer), and its embedded target or chain of tiers, on the run's
// clock; an external target gets none.
func (r *Run) addCohorts(listen target.ListenFunc, dial swarm.DialFunc) error {
	p, o := r.Plan, r.opts
	if p.Protocol == wire.H2 && p.TargetURL == "" {
		// One certificate, made in memory, for every embedded target of
		// the run; the swarm trusts exactly it.
		cert, err := wire.NewCert()
		if err != nil {
			return fmt.Errorf("engine: %w", err)
		}
		r.cert = cert
	}
	shards := 4 * runtime.GOMAXPROCS(0)
	for i := range p.Strategies {
		rec := results.NewRecorder(p.Duration, shards)
		splitAtFault(p, rec)
		if o.Observe != nil {
			if obs := o.Observe(p.Strategies[i].Name); obs != nil {
				rec.Observe(obs)
			}
		}
		if p.TargetURL != "" {
			// An external target: no embedded one, and the chaos plan is not applied.
			r.cohorts = append(r.cohorts, &cohort{strategy: p.Strategies[i], rec: rec})
			continue
		}
		// The crashes of the target the clients call (the first tier's, in a
		// chain): how long after each the clients learned of it.
		if len(p.Tiers) > 0 {
			rec.SetEdges(crashEdges(p.Tiers[0].Chaos))
		} else {
			rec.SetEdges(crashEdges(p.Chaos))
		}
		if len(p.Tiers) > 0 {
			below := newBelow(p, func() *results.Recorder { return results.NewRecorder(p.Duration, shards) })
			splitAtFault(p, below...)
			ch, err := startChain(p, &p.Strategies[i], r.Origin, o.SlowMotion, listen, dial, below, embeddedLimits(p))
			if err != nil {
				return fmt.Errorf("engine: starting the tiers for %s: %w", p.Strategies[i].Name, err)
			}
			r.cohorts = append(r.cohorts, &cohort{strategy: p.Strategies[i], rec: rec, target: ch.bottom(), chain: ch, below: below})
			continue
		}
		srv, err := target.Listen(target.Options{
			Config: p.Target, Plan: p.Chaos, RNG: seeds.Stream(p.Seed, seeds.Target),
			Origin: r.Origin, Listen: listen, Limits: embeddedLimits(p), Protocol: p.Protocol, Cert: r.cert,
			Slow: o.SlowMotion,
		})
		if err != nil {
			return fmt.Errorf("engine: starting the target for %s: %w", p.Strategies[i].Name, err)
		}
		srv.RecordCalls(rec)
		r.cohorts = append(r.cohorts, &cohort{strategy: p.Strategies[i], rec: rec, target: srv})
	}
	return nil
}

// launch starts every cohort's clients (herdbench's swarm, or the
// Options' Drive), each in a goroutine of its own, and the goroutine that
// ends the run once they have all stopped.
func (r *Run) launch(ctx context.Context, dial swarm.DialFunc) {
	p, o, origin := r.Plan, r.opts, r.Origin
	ctx, r.cancel = context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i, c := range r.cohorts {
		if o.Drive != nil {
			d := Driven{Index: i, Name: c.strategy.Name, URL: r.targetURL(c), Rec: c.rec, Origin: origin,
				Duration: p.Duration, Dial: dial, Workload: &p.Workload, Seed: p.Seed}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer r.recoverPanic()
				o.Drive(ctx, d)
			}()
			continue
		}
		sw := &swarm.Swarm{
			URL: r.targetURL(c), Strategy: &c.strategy, Workload: &p.Workload,
			Seed: p.Seed, Origin: origin, Duration: p.Duration, Rec: c.rec, Dial: dial, Part: o.Part,
			OCC: p.Target.Kind == model.OCC, Panicked: r.panicked, BeforeSend: o.BeforeSend,
			Protocol: p.Protocol, Shared: p.Shared, Slow: o.SlowMotion,
			GRPC: p.Target.Protocol == model.GRPC, Method: p.Method,
		}
		if r.cert != nil && p.TargetURL == "" {
			sw.Roots = r.cert.Pool // the embedded targets' own certificate
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer r.recoverPanic()
			sw.Run(ctx)
			if el := o.SlowMotion.Since(origin); ctx.Err() == nil && el < p.Duration {
				// Every client of the cohort stopped before the end (a
				// oneshot workload done): its timeline ends now, as in the
				// simulator.
				c.rec.SetEnd(el)
				for _, b := range c.below {
					b.SetEnd(el)
				}
			}
		}()
	}
	var stopMu sync.Mutex
	stopAt := time.Duration(-1)
	context.AfterFunc(ctx, func() {
		stopMu.Lock()
		defer stopMu.Unlock()
		if stopAt < 0 {
			stopAt = max(0, o.SlowMotion.Since(origin))
		}
	})
	go func() {
		wg.Wait()
		// Partial means stopped early (interrupted or Stop), not ended
		// early: every client of a cohort may stop before the run's end
		// because its next step would fall after it (a oneshot workload
		// always does).
		r.partial = ctx.Err() != nil
		if r.partial {
			// The figures end where the run was stopped: the buckets after
			// it were never lived, and counting them as quiet would make
			// an interrupted outage look recovered.
			stopMu.Lock()
			if stopAt < 0 {
				stopAt = max(0, o.SlowMotion.Since(origin))
			}
			r.stoppedAt = min(stopAt, p.Duration)
			stopMu.Unlock()
			for _, c := range r.cohorts {
				c.rec.SetEnd(r.stoppedAt)
				for _, b := range c.below {
					b.SetEnd(r.stoppedAt)
				}
			}
		}
		r.closeTargets()
		r.check.end(r.cohorts)
		r.cancel()
		close(r.done)
	}()
}

// Driven is one cohort a Drive function runs: where its target is, and
// the recorder its attempts and requests go into, on the run's clock.
type Driven struct {
	Index    int    // the cohort's place in the plan's strategies
	Name     string // the cohort's name
	URL      string // its target, e.g. http://127.0.0.1:40123
	Rec      *results.Recorder
	Origin   time.Time     // the run's t = 0 on the wall clock
	Duration time.Duration // the run's length
	// Dial opens connections to the target: the Options' Dial (an
	// in-memory network's, in tests), or nil for the host's TCP stack.
	Dial     swarm.DialFunc
	Workload *clients.Workload
	Seed     uint64 // the run's root seed
}

func (r *Run) closeTargets() {
	for _, c := range r.cohorts {
		switch {
		case c.chain != nil:
			c.chain.close()
		case c.target != nil:
			_ = c.target.Close()
		}
	}
}

// Stop ends the run early; Wait then returns a partial summary.
func (r *Run) Stop() { r.cancel() }

// panicked records a panic of one of the run's goroutines and stops the
// run: what it recorded is kept, marked partial, and Err reports it.
func (r *Run) panicked(v any, stack []byte) {
	r.panicMu.Lock()
	if r.panicErr == nil {
		r.panicErr = &PanicError{Value: v, Stack: stack}
	}
	r.panicMu.Unlock()
	r.cancel()
}

// recoverPanic, deferred by a goroutine of the run's, hands its panic to
// panicked instead of letting it end the process.
func (r *Run) recoverPanic() {
	if v := recover(); v != nil {
		r.panicked(v, debug.Stack())
	}
}

// Err returns the *PanicError that stopped the run, if a bug did; nil
// otherwise. Call it after Wait.
func (r *Run) Err() error {
	r.panicMu.Lock()
	defer r.panicMu.Unlock()
	if r.panicErr == nil {
		return nil
	}
	return r.panicErr
}

// Done is closed when every cohort has stopped.
func (r *Run) Done() <-chan struct{} { return r.done }

// Snapshot is the progress of a run.
type Snapshot struct {
	Elapsed time.Duration
	Faults  string // names of the faults active now, "" if none
	Cohorts []CohortSnapshot
}

// CohortSnapshot is one cohort's running totals.
type CohortSnapshot struct {
	Strategy string
	results.Live
}

// Snapshot returns the run's progress now.
func (r *Run) Snapshot() Snapshot {
	el := min(max(0, r.opts.SlowMotion.Since(r.Origin)), r.Plan.Duration)
	s := Snapshot{Elapsed: el, Faults: r.Plan.Chaos.ActiveAt(el).ActiveNames()}
	for _, c := range r.cohorts {
		s.Cohorts = append(s.Cohorts, CohortSnapshot{Strategy: c.strategy.Name, Live: c.rec.Live()})
	}
	return s
}

// HerdSoFar returns each cohort's herd factor so far (results.Recorder's
// HerdSoFar) over the seconds that ended at least a second ago, so that
// most of their attempts have ended. For live pages: call it about once a
// second.
func (r *Run) HerdSoFar() []float64 {
	upto := min(max(0, r.opts.SlowMotion.Since(r.Origin)-time.Second), r.Plan.Duration)
	out := make([]float64, len(r.cohorts))
	for i, c := range r.cohorts {
		out[i] = c.rec.HerdSoFar(upto)
	}
	return out
}

// Wait waits for the run to end and returns its results, assembled as
// Execute's are (assemble): one repetition, its recorders kept.
func (r *Run) Wait() folder.Output {
	<-r.done
	oc := r.outcome()
	u := unit{}
	for i := range r.cohorts {
		u.cohorts = append(u.cohorts, i)
	}
	o := r.opts
	o.Runs, o.Timelines = 1, true
	sc := &scheduled{units: [][]unit{{u}}, got: [][]*outcome{{&oc}}}
	return assemble(r.Plan, o, "real", r.Origin, sc, nil, nil).Output
}

// outcome returns what the run left, once it has ended: each cohort's
// figures and recorders, its self-check, and how it ended.
func (r *Run) outcome() outcome {
	oc := outcome{origin: r.Origin, check: r.check, cut: r.partial, end: r.stoppedAt, err: r.Err()}
	for _, c := range r.cohorts {
		rc := cohortOf(r.Plan, c.strategy.Name, c.rec, c.below)
		run := results.Summarize(rc, window(r.Plan))
		if c.target != nil { // an external target reports nothing
			run.WastedWork = c.target.Stats().Wasted
		}
		if c.chain != nil {
			tierWaste(&run, c.chain.stats())
		}
		oc.runs = append(oc.runs, run)
		oc.cohorts = append(oc.cohorts, rc)
	}
	return oc
}
