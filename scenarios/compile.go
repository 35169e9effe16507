package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios/decode"

	"github.com/herdbench/herdbench/target/model"
	"go.yaml.in/yaml/v3"
)

// Defaults for fields a scenario leaves out.
const (
	DefaultDuration     = 30 * time.Second
	DefaultConcurrency  = 64
	DefaultQueue        = 128
	DefaultQueueTimeout = time.Second
	DefaultServiceTime  = "exponential(5ms)"
	DefaultClients      = 100
	DefaultThink        = "exponential(100ms)"
	DefaultBase         = 100 * time.Millisecond
	DefaultCap          = 30 * time.Second
	DefaultMaxAttempts  = 5
	DefaultTimeout      = 5 * time.Second
)

// Overrides are command-line values that win over the file's.
type Overrides struct {
	// Seed replaces the file's seed. Open resolves the run's root seed
	// once (seeds.Resolve: this, the file's, or a fresh one) and compiles
	// every plan with it; Compile draws none: with neither, the plan's seed
	// is 0.
	Seed       *uint64
	Duration   time.Duration // 0: keep
	Clients    int           // 0: keep
	Strategies []string      // run only these cohorts, in this order
	// Target sends the swarm to this URL instead of the file's target.
	Target string
	// AllowRemote lets the swarm send to a target that is not on loopback.
	AllowRemote bool
	// Runs replaces the file's runs (repetitions) when more than 0.
	Runs int
	// Set are fields set from the command line (--set, --clients), each
	// with its values: one value sets the field at every point, several
	// sweep it. An axis replaces the file's sweep of the same field.
	// Expand applies them; Compile, one point's compiler, ignores them.
	Set []Axis
	// Tier is, with Server in a chain of tiers, the tier a
	// standalone target or proxy plays: its capacity model and its
	// faults. "" is the bottom tier.
	Tier string
	// Shard compiles the scenario for one shard of a run split over
	// processes (herdbench scenario --shard K/N): it needs an external
	// target (one service for every shard), and a policy whose state the
	// whole cohort shares (scope cohort) is refused: no state is shared
	// across machines. scope: shard says what each shard shares.
	Shard bool
	// Server opens the scenario for a standalone target or proxy: Open
	// then compiles only what they read (the target's model, the chaos
	// plan, the thresholds of a recording), and needs no strategies.
	Server bool
	// Cohorts says the caller brings its own cohorts (herdtest): a scenario
	// with no strategies gets one to name, which the caller replaces.
	Cohorts bool
	// Headers are added to every request (--header, --header-file): the
	// secrets a scenario file must not hold. The resolved scenario names
	// them, never their values.
	Headers []clients.Header
}

// Plan is a compiled scenario, ready to run in either engine.
type Plan struct {
	Name        string
	Description string
	Duration    time.Duration
	Seed        uint64
	Target      model.Config
	Chaos       *chaos.Plan
	Workload    clients.Workload
	Strategies  []clients.Strategy
	// TargetURL is the external target; "" for the embedded one. Target
	// then still holds the file's capacity model, for herdbench target.
	TargetURL string
	// AllowRemote lets the engine send to a TargetURL off loopback.
	AllowRemote bool
	// GRPC is set when the target speaks gRPC (target.protocol: grpc,
	// grpc.go).
	GRPC bool
	// Protocol is what the swarm and the embedded target speak; Shared,
	// over HTTP/2 or gRPC, how many clients share a connection or a
	// channel (0: each its own; wire.go).
	Protocol wire.Protocol
	Shared   int
	// Thresholds are the release gates, per cohort or ("" cohort) for all.
	Thresholds []results.Threshold
	// Runs is how many times each cohort runs (1 or more). Sweep is the
	// swept fields, each with its values, the file's and the overrides'
	// (none for a single run), and Point this plan's value of each. Resolved
	// records the repetitions and the sweep, so rerunning it repeats them.
	Runs  int
	Sweep []Axis
	Point []results.Setting
	// Resolved is the scenario as run: the file with overrides and defaults
	// filled in, as YAML.
	Resolved []byte

	// Tiers is the chain of tiers, from the one the clients call down to
	// the bottom one; nil for a single target. With tiers, Target is the
	// bottom tier's model and Chaos holds every tier's faults (the span the
	// metrics measure, the summary's list); each Tier has its own plan,
	// and each strategy one strategy per tier that calls another
	// (clients.Strategy.Tiers).
	Tiers []Tier
	// faultTiers names the tier of each of Chaos's faults, with tiers.
	faultTiers []string

	// Method is, for a gRPC target, the method the swarm calls
	// (grpcwire.Method when empty; grpc.go).
	Method string

	// Files are the files the scenario names (request bodies, a targets
	// file and its bodies), each once, as paths relative to its folder,
	// in the order read: what a copy of the scenario elsewhere needs
	// beside it (herdbench k8s ships them). Scenario.ReadFile reads them.
	Files []string
}

// compiler accumulates problems while reading values.
type compiler struct {
	s    *Scenario
	errs *Error
	kind clients.WorkloadKind // the workload's, compiled before the strategies, whose policy scopes depend on it
	// durationFlag is set when --duration gave the run's length: a fault
	// it cuts is then the flag's doing, not the file's.
	durationFlag bool
	// instant is set when an answer can arrive at the instant it was
	// asked: the network takes no time, or an outage refuses connections.
	instant bool
	// atTier is set while a tier's strategy compiles: its policies are
	// the tier's, shared by every call it makes (tiers.go).
	atTier bool
	// shard is set when compiling for one shard of a split run
	// (Overrides.Shard).
	shard bool
	// The scenario's requests (its own, or a targets file's), the
	// command line's headers, and the embedded target whose routes they
	// map to (nil for an external one).
	requests []RequestFile
	headers  []clients.Header
	routed   *model.Config
	occ      bool
	// grpc is set when the target speaks gRPC (target.protocol: grpc),
	// external when it is not embedded (a URL), tiered with a chain of
	// tiers.
	grpc, external, tiered bool
	// method is the gRPC method the swarm calls, as written ("" for
	// grpcwire.Method): a grpc-go cohort's service config applies to it.
	method string
	// urlAuth names the target URL with a user and password, which
	// herdbench sends as Authorization (""; none), and authReported says
	// a second source of Authorization was refused (oneAuthorization).
	urlAuth      string
	urlAuthAt    []step // target.url, or nil for --target
	authReported bool
	// files are the files read from the scenario's folder (Plan.Files).
	files []string
}

func (c *compiler) fail(path []step, format string, args ...any) {
	c.errs.Problems = append(c.errs.Problems, Problem{Line: c.s.lineOf(path), Path: pathOf(path), Msg: fmt.Sprintf(format, args...)})
}

// duration reads a duration field; def is used when it is empty.
func (c *compiler) duration(v *string, def time.Duration, path []step) time.Duration {
	if *v == "" {
		*v = def.String()
		return def
	}
	d, err := time.ParseDuration(*v)
	if err != nil {
		c.fail(path, "%q is not a duration; write a number with a unit, e.g. 250ms, 1.5s or 2m", *v)
		return def
	}
	if d < 0 {
		c.fail(path, "%s is negative; durations are 0 or more", *v)
		return def
	}
	if d > MaxDuration {
		c.fail(path, "%s is more than a day; durations go from 0 to %s", *v, durationText(MaxDuration))
		return def
	}
	return d
}

func (c *compiler) dist(v *string, def string, path []step) dist.Dist {
	if *v == "" {
		*v = def
	}
	d, err := dist.Parse(*v)
	if err != nil {
		c.fail(path, "%v", strings.TrimPrefix(strings.TrimPrefix(err.Error(), dist.ErrSyntax.Error()+": "), dist.ErrSyntax.Error()+" "))
	}
	return d
}

// Compile checks the scenario's values, applies overrides, and returns the
// plan, or an *Error listing every problem.
func (s *Scenario) Compile(o Overrides) (*Plan, error) {
	f := s.File // a copy: defaults and overrides are filled into it
	f.Strategies = append([]StrategyFile(nil), s.File.Strategies...)
	c := &compiler{s: s, errs: &Error{File: s.Filename}, shard: o.Shard, headers: o.Headers}
	p := &Plan{Name: f.Name, Description: strings.TrimSpace(f.Description)}

	if msg := nameProblem(f.Name); msg != "" {
		c.fail([]step{key("name")}, "%s", msg)
	}

	p.Duration = c.duration(&f.Duration, DefaultDuration, []step{key("duration")})
	if o.Duration > MaxDuration {
		c.errs.Problems = append(c.errs.Problems, Problem{Msg: fmt.Sprintf("--duration %s is more than a day; a run lasts at most %s", o.Duration, durationText(MaxDuration))})
	} else if o.Duration > 0 {
		p.Duration = o.Duration
		f.Duration = o.Duration.String()
		c.durationFlag = true
	}
	if p.Duration == 0 {
		c.fail([]step{key("duration")}, "the run lasts 0s; write how long it runs, e.g. duration: 30s")
	}

	p.Seed = seedOf(o, &f)
	f.Seed = &p.Seed // recorded in the results, so the run can be repeated

	if len(f.Tiers) > 0 {
		c.tiered = true
		c.tiers(&f, p, o)
	} else {
		p.Target = c.target(&f.Target, []step{key("target")})
		p.TargetURL, p.AllowRemote = c.targetURL(&f.Target, o.Target), o.AllowRemote
		if p.TargetURL == "" {
			c.routed = &p.Target
		}
		c.grpc = c.protocol(&f.Target, &p.Target, []step{key("target")})
		c.external = p.TargetURL != ""
	}
	p.GRPC = c.grpc
	c.occ = p.Target.Kind == model.OCC
	c.requests = c.sceneRequests(&f)
	if o.Shard && p.TargetURL == "" { // a chain of tiers has no URL: its tiers are embedded
		c.fail([]step{key("target"), key("url")}, "a shard of a split run sends to one external service with the other shards (--target URL, or target.url): with embedded targets each shard would have its own small target, and the merged figures would be of no one service; start 'herdbench target' or 'herdbench proxy' and give its URL (a chain of tiers: herdbench proxy --retry as its middle tiers, docs/topologies.md)")
	}
	if f.Network != nil {
		n := *f.Network
		f.Network = &n
		at := []step{key("network"), key("delay")}
		if n.Delay == "" {
			c.fail(at, `missing; write each hop's delay, e.g. delay: "normal(10ms, 2ms)"`)
		} else {
			p.Target.Network = c.dist(&n.Delay, "0s", at)
			for i := range p.Tiers {
				p.Tiers[i].Target.Network = p.Target.Network
			}
		}
	}
	p.Chaos = c.chaos(f.Chaos, p.Duration)
	c.tierFaults(f.Chaos, p)
	p.Workload = c.workload(&f.Workload, o.Clients)
	c.kind = p.Workload.Kind
	c.wire(&f, p)
	// A refused connection answers at once, network or not.
	c.instant = p.Target.Network.IsZero() || p.Chaos != nil && p.Chaos.Ever(func(e *chaos.Effect) bool { return !e.Outage.Listening() })
	p.Strategies = c.strategies(&f, o.Strategies)
	c.grpcPlan(&f, p)
	p.Thresholds = c.thresholds(&s.File, p.Strategies)
	p.Runs = c.runs(&f, o)
	p.Sweep, p.Point = s.axes, s.point
	if !s.expanded && s.File.Sweep != nil {
		p.Sweep = s.File.Sweep.Axes
	}
	f.Sweep = nil
	if len(p.Sweep) > 0 {
		f.Sweep = &SweepFile{Axes: p.Sweep}
	}

	if len(p.Tiers) > 0 {
		c.tierTimeouts(p)
	} else if p.Chaos != nil && p.Chaos.Ever(func(e *chaos.Effect) bool { return e.Blackhole }) {
		for i, st := range p.Strategies {
			if st.Timeout == 0 {
				c.fail([]step{key("strategies"), index(i), key("timeout")}, "strategy %q has no per-attempt timeout, but the chaos plan has a blackhole that holds requests until the client gives up; set e.g. timeout: 2s", st.Name)
			}
		}
	}
	if len(c.errs.Problems) > 0 {
		c.errs.Sort()
		return nil, c.errs
	}
	masked := maskSecrets(f)
	out, err := yaml.Marshal(&masked)
	if err != nil {
		return nil, fmt.Errorf("scenarios: writing the resolved scenario: %w", err)
	}
	p.Resolved = append(out, redactedHeaders(o.Headers)...)
	p.Files = c.files
	return p, nil
}

// target compiles a capacity model: the target's, or a tier's (base is
// its path: target, or tiers[i]).
func (c *compiler) target(t *TargetFile, base []step) model.Config {
	at := func(k string) []step { return with(base, key(k)) }
	cfg := model.Config{ServeAbandoned: t.ServeAbandoned}
	if t.Kind == "" {
		t.Kind = model.Plain.String()
	}
	if k, ok := model.ParseKind(t.Kind); ok {
		cfg.Kind = k
	} else {
		c.fail(at("kind"), "unknown target kind %q; valid kinds: plain (answers ok once served), occ (one row under optimistic concurrency control: read, then write the version read)", t.Kind)
	}
	if t.Concurrency == nil {
		n := DefaultConcurrency
		t.Concurrency = &n
	}
	cfg.Concurrency = *t.Concurrency
	if cfg.Concurrency < 1 {
		c.fail(at("concurrency"), "%d requests at once serves nothing; write 1 or more (or leave it out for the default, %d)", cfg.Concurrency, DefaultConcurrency)
	} else if cfg.Concurrency > MaxConcurrency {
		c.fail(at("concurrency"), "%d requests at once; the target serves from 1 to %d", cfg.Concurrency, MaxConcurrency)
	}
	if t.Queue == nil {
		q := DefaultQueue
		t.Queue = &q
	}
	cfg.Queue = *t.Queue
	if cfg.Queue < 0 {
		c.fail(at("queue"), "a queue of %d; write 0 (no queue) or more", cfg.Queue)
	} else if cfg.Queue > MaxQueue {
		c.fail(at("queue"), "a queue of %d; the target queues from 0 to %d requests", cfg.Queue, MaxQueue)
	}
	cfg.QueueTimeout = c.duration(&t.QueueTimeout, DefaultQueueTimeout, at("queue_timeout"))
	cfg.Routes = c.routes(t.Routes, at("routes"))
	cfg.ServiceTime = c.dist(&t.ServiceTime, DefaultServiceTime, at("service_time"))
	if t.Contention != "" {
		cfg.Contention = c.duration(&t.Contention, 0, at("contention"))
		if cfg.Contention > MaxContention {
			c.fail(at("contention"), "%s a request in service; write at most %s (each adds it to a new request's service time)", cfg.Contention, MaxContention)
		}
	}
	if cs := t.ColdStart; cs != nil {
		p := func(k string) []step { return with(at("cold_start"), key(k)) }
		cfg.ColdStart.From = cs.From
		if !(cs.From > 0 && cs.From <= 1) { // NaN too
			c.fail(p("from"), "%v is not a fraction of capacity; write the capacity right after an outage, in (0, 1], e.g. from: 0.1", cs.From)
		}
		cfg.ColdStart.Ramp = c.duration(&cs.Ramp, 0, p("ramp"))
		if cfg.ColdStart.Ramp == 0 {
			c.fail(p("ramp"), "missing or 0; write how long capacity takes to come back to full, e.g. ramp: 5s")
		}
	}
	return cfg
}

func (c *compiler) chaos(faults []FaultFile, run time.Duration) *chaos.Plan {
	var timed []chaos.Timed
	ok := true
	if len(faults) > MaxFaults {
		c.fail([]step{key("chaos")}, "%d faults; a chaos plan holds at most %d", len(faults), MaxFaults)
		return nil
	}
	for i := range faults {
		base := []step{key("chaos"), index(i)}
		rules := decode.FaultRules{Run: run, DurationFlag: c.durationFlag, Duration: func(v, k string) (time.Duration, bool) {
			before := len(c.errs.Problems)
			d := c.duration(&v, 0, with(base, key(k)))
			return d, len(c.errs.Problems) == before
		}}
		t, fine := decode.Fault(&faults[i], pathOf(base), rules, c.errs)
		if !fine {
			ok = false
			continue
		}
		c.pushbackNeedsGRPC(&faults[i].Params, base)
		timed = append(timed, t)
	}
	if !ok {
		return nil
	}
	plan, err := chaos.NewPlan(timed, run)
	if err != nil {
		c.fail([]step{key("chaos")}, "%v", err)
		return nil
	}
	return plan
}

func (c *compiler) workload(w *WorkloadFile, clientsOverride int) clients.Workload {
	at := func(k string) []step { return []step{key("workload"), key(k)} }
	if w.Kind == "" {
		w.Kind = "closed"
	}
	kind, ok := clients.ParseWorkloadKind(w.Kind)
	if !ok {
		c.fail(at("kind"), "unknown workload kind %q; valid kinds: closed (N clients, request then think), open (arrivals at a rate), oneshot (N clients, one request each, all at t = 0)", w.Kind)
	}
	out := clients.Workload{Kind: kind, Clients: w.Clients, Rate: w.Rate}
	if kind == clients.Open && clientsOverride > 0 {
		c.errs.Problems = append(c.errs.Problems, Problem{Msg: "--clients: the workload is open (arrivals at a rate), it has no clients to count; change its rate instead"})
		clientsOverride = 0
	}
	if clientsOverride > MaxClients {
		c.errs.Problems = append(c.errs.Problems, Problem{Msg: fmt.Sprintf("--clients %d: a cohort has from 1 to %d clients", clientsOverride, MaxClients)})
	} else if clientsOverride > 0 {
		out.Clients, w.Clients = clientsOverride, clientsOverride
	}
	switch kind {
	case clients.Open:
		switch {
		case w.Rate == 0:
			c.fail(at("rate"), "an open workload needs its arrival rate in requests per second, e.g. rate: 200")
		case !(w.Rate >= MinRate && w.Rate <= MaxRate): // NaN and ±Inf too
			c.fail(at("rate"), "%v arrivals per second; write a rate from %v to %d, e.g. rate: 200", w.Rate, MinRate, MaxRate)
		}
		if w.Clients != 0 {
			c.fail(at("clients"), "an open workload has arrivals, not clients to count or sweep; remove clients and change its rate instead, or use kind: closed")
		}
		out.Surges = c.surges(w.Surges)
	default:
		if len(w.Surges) > 0 {
			c.fail(at("surges"), "surges change an open workload's arrival rate; a %s workload has clients (use kind: open)", kind)
		}
		if w.Rate != 0 {
			c.fail(at("rate"), "rate is for open workloads; a %s workload has clients", kind)
		}
		if w.Clients == 0 && clientsOverride == 0 {
			if _, set := c.s.rootKey("workload", "clients"); set {
				c.fail(at("clients"), "0 clients would send nothing; write 1 or more")
			} else {
				out.Clients, w.Clients = DefaultClients, DefaultClients
			}
		} else if out.Clients < 0 || out.Clients > MaxClients && clientsOverride == 0 {
			c.fail(at("clients"), "%d clients; write from 1 to %d", out.Clients, MaxClients)
		}
	}
	if kind == clients.Closed {
		out.Think = c.dist(&w.Think, DefaultThink, at("think"))
	} else if w.Think != "" {
		c.fail(at("think"), "think time is for closed workloads, where a client pauses between requests")
	}
	return out
}

// surges compiles an open workload's surges: each from at (0 or later)
// for a while (more than 0), at a rate open arrivals may have, in order
// and apart.
func (c *compiler) surges(fs []SurgeFile) []clients.Surge {
	var out []clients.Surge
	for i := range fs {
		f := &fs[i]
		at := func(k string) []step { return []step{key("workload"), key("surges"), index(i), key(k)} }
		s := clients.Surge{At: c.duration(&f.At, 0, at("at")), For: c.duration(&f.For, 0, at("for")), Rate: f.Rate}
		if s.For == 0 {
			c.fail(at("for"), "missing or 0; write how long the surge lasts, e.g. for: 5s")
		}
		if !(s.Rate >= MinRate && s.Rate <= MaxRate) { // NaN and ±Inf too
			c.fail(at("rate"), "%v arrivals per second; write a rate from %v to %d, e.g. rate: 80", s.Rate, MinRate, MaxRate)
		}
		if n := len(out); n > 0 && s.At < out[n-1].At+out[n-1].For {
			c.fail(at("at"), "%s is before the surge above ends (%s); write the surges in order, apart", s.At, out[n-1].At+out[n-1].For)
		}
		out = append(out, s)
	}
	return out
}

// rootKey returns the value node at the given mapping keys.
func (s *Scenario) rootKey(keys ...string) (*yaml.Node, bool) {
	n := s.root
	for _, k := range keys {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil, false
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil, false
		}
		n = next
	}
	return n, true
}

func (c *compiler) strategies(f *File, only []string) []clients.Strategy {
	if len(f.Strategies) == 0 {
		c.fail([]step{key("strategies")}, "no strategies; list at least one cohort, e.g.\n    strategies:\n      - name: full-jitter\n        backoff: full")
		return nil
	}
	if len(f.Strategies) > MaxStrategies {
		c.fail([]step{key("strategies")}, "%d strategies; a scenario compares at most %d cohorts", len(f.Strategies), MaxStrategies)
		return nil
	}
	seen := map[string]int{}
	var out []clients.Strategy
	for i := range f.Strategies {
		sf := &f.Strategies[i]
		at := func(k string) []step { return []step{key("strategies"), index(i), key(k)} }
		if sf.Name == "" {
			c.fail(at("name"), "missing; every strategy needs a name (it labels its cohort)")
		} else if msg := labelProblem(sf.Name); msg != "" {
			c.fail(at("name"), "%s", msg)
		} else if j, dup := seen[sf.Name]; dup {
			c.fail(at("name"), "%q is already the name of strategies[%d]; cohort names must be unique", sf.Name, j)
		} else {
			seen[sf.Name] = i
		}
		raw := *sf // as written: the tiers' strategies change it, not its defaults
		st := c.strategy(sf, at)
		st.Tiers = c.tierStrategies(f.Tiers, &raw, sf, i)
		out = append(out, st)
	}
	if len(only) == 0 {
		return out
	}
	var picked []clients.Strategy
	var kept []StrategyFile
	for _, name := range only {
		j, ok := seen[name]
		if !ok {
			names := make([]string, 0, len(f.Strategies))
			for _, s := range f.Strategies {
				names = append(names, s.Name)
			}
			meant := ""
			if m, near := closest(name, names); near {
				meant = fmt.Sprintf(" (did you mean %q?)", m)
			}
			c.errs.Problems = append(c.errs.Problems, Problem{Msg: fmt.Sprintf("--strategies names %q, which is not a strategy of this scenario%s; its strategies: %s", name, meant, validList(names))})
			continue
		}
		picked = append(picked, out[j])
		kept = append(kept, f.Strategies[j])
	}
	f.Strategies = kept
	return picked
}

func (c *compiler) strategy(sf *StrategyFile, at func(string) []step) clients.Strategy {
	if sf.Client != "" || sf.ServiceConfig != "" || sf.Channel != "" {
		if sf.Client == "" {
			f := "service_config"
			if sf.ServiceConfig == "" {
				f = "channel"
			}
			c.fail(at(f), "is grpc-go's; add client: %s for grpc-go's own retries (herdbench's retry loop takes backoff, max_attempts, budget...)", ClientGRPCGo)
			return clients.Strategy{Name: sf.Name}
		}
		return c.grpcStrategy(sf, at)
	}
	s := clients.Strategy{Name: sf.Name}
	c.preset(sf, at)
	if sf.Backoff == "" && sf.Jitter != nil && sf.Preset == "" {
		sf.Backoff = clients.Exponential.String() // a jitter share is exponential's
	}
	shape, ok := clients.ParseShape(sf.Backoff)
	switch {
	case sf.Backoff == "":
		if sf.Preset == "" { // an unknown preset is reported on its own
			c.fail(at("backoff"), "missing; choose a backoff: %s (or a preset: %s)", validList(clients.ShapeNames()), validList(clients.PresetNames()))
		}
	case !ok:
		if m, near := closest(sf.Backoff, clients.ShapeNames()); near {
			c.fail(at("backoff"), "unknown backoff %q (did you mean %q?); valid: %s", sf.Backoff, m, validList(clients.ShapeNames()))
		} else {
			c.fail(at("backoff"), "unknown backoff %q; valid: %s", sf.Backoff, validList(clients.ShapeNames()))
		}
	}
	s.Backoff = clients.Backoff{Shape: shape, Multiplier: sf.Multiplier}
	s.Backoff.Base = c.duration(&sf.Base, DefaultBase, at("base"))
	s.Backoff.Cap = c.duration(&sf.Cap, DefaultCap, at("cap"))
	if s.Backoff.Cap < s.Backoff.Base {
		c.fail(at("cap"), "cap %s is below base %s; the cap bounds the longest wait, so it must be at least base", s.Backoff.Cap, s.Backoff.Base)
	}
	if sf.Multiplier == 0 {
		sf.Multiplier = 2
	}
	s.Backoff.Multiplier = sf.Multiplier
	if sf.Multiplier < 1 {
		c.fail(at("multiplier"), "%v would shrink the wait after each failure; write 1 or more (2 doubles it)", sf.Multiplier)
	} else if !(sf.Multiplier <= MaxMultiplier) { // NaN and +Inf too
		c.fail(at("multiplier"), "%v; write a growth per failed attempt from 1 to %d (2 doubles the wait)", sf.Multiplier, MaxMultiplier)
	}
	if sf.Jitter != nil {
		s.Backoff.Jitter = c.jitter(*sf.Jitter, shape, sf, at)
	}
	if sf.MaxAttempts == nil {
		l := Limit(DefaultMaxAttempts)
		sf.MaxAttempts = &l
	}
	s.MaxAttempts = int(*sf.MaxAttempts)
	s.Timeout = c.duration(&sf.Timeout, DefaultTimeout, at("timeout"))
	s.Reset = c.reset(sf.Reset, at("reset"))
	if !c.atTier { // a tier's calls go through herdbench's own transport
		s.Transport = c.transport(sf.Transport, at("transport"))
	}
	c.policies(sf, &s, at)
	c.hedge(sf, &s, at)
	if c.atTier {
		c.retryRules(sf, &s, at) // a tier's calls are the probe
		// and the probe is retried whatever its method, unless the tier
		// says otherwise (a retrying proxy playing the tier follows it).
		s.RetryNonIdempotent = sf.RetryNonIdempotent == nil || *sf.RetryNonIdempotent
		s.IdempotencyHeader = sf.IdempotencyHeader
	} else {
		c.traffic(sf, &s, at)
	}
	return s
}

// transport reads the HTTP client transport a strategy's clients send with.
func (c *compiler) transport(v string, path []step) clients.Transport {
	if v == "" {
		return clients.RawTransport
	}
	t, ok := clients.ParseTransport(v)
	if !ok {
		c.fail(path, "unknown transport %q; write herdbench (herdbench's own client, which sends each attempt once: the default) or net/http (Go's, which sends an attempt again by itself when its reused connection is reset before the answer)", v)
	}
	return t
}

// jitter checks a strategy's jitter share f against its backoff shape:
// exponential takes any share from 0 to 1; full and equal are exponential
// with their own share (1 and 0.5), which f may only repeat; the other
// shapes draw their waits otherwise.
func (c *compiler) jitter(f float64, shape clients.Shape, sf *StrategyFile, at func(string) []step) float64 {
	if !(f >= 0 && f <= 1) { // NaN too
		c.fail(at("jitter"), "%v; write the share of the backoff drawn at random, from 0 (none: every client waits the same) to 1 (full jitter), e.g. jitter: 0.5", f)
		return 0
	}
	if _, known := clients.ParseShape(sf.Backoff); !known {
		return f // the unknown backoff is reported on its own
	}
	b := clients.Backoff{Shape: shape}
	share, ok := b.JitterShare()
	switch {
	case shape == clients.Exponential:
	case !ok:
		c.fail(at("jitter"), "backoff %s draws its own wait, so a jitter share does not apply; remove jitter, or write backoff: exponential with jitter %v", sf.Backoff, f)
	case f != share:
		c.fail(at("jitter"), "backoff %s is exponential with jitter %v, not %v; write backoff: exponential (or leave backoff out) with jitter: %v", sf.Backoff, share, f, f)
	}
	return f
}

// reset reads when a strategy's backoff starts afresh. Only a closed
// workload's clients make more than one request each: in the others a
// client's backoff never outlives its request.
func (c *compiler) reset(v string, path []step) clients.Reset {
	if v == "" {
		return clients.PerRequest
	}
	r, ok := clients.ParseReset(v)
	if !ok {
		c.fail(path, "unknown reset %q; write per-request (the backoff starts afresh with every request: the default), on-success (it carries over until a request succeeds) or never (it carries over for the client's life)", v)
		return clients.PerRequest
	}
	if r != clients.PerRequest && c.kind != clients.Closed {
		c.fail(path, "reset %s carries a client's backoff from one request to the next, but in a %s workload each client makes one request; use a closed workload, or remove reset", v, c.kind)
	}
	return r
}

// runs reads the repetitions, the file's or the overrides', and writes
// them back into f as they will run.
func (c *compiler) runs(f *File, o Overrides) int {
	runs := max(1, f.Runs)
	if f.Runs < 0 || f.Runs > MaxRuns {
		c.fail([]step{key("runs")}, "%d runs; repeat each cohort from 1 to %d times", f.Runs, MaxRuns)
	}
	if o.Runs > 0 {
		runs = o.Runs
		if runs > MaxRuns {
			c.errs.Problems = append(c.errs.Problems, Problem{Msg: fmt.Sprintf("--runs %d: repeat each cohort from 1 to %d times", runs, MaxRuns)})
		}
	}
	f.Runs = 0
	if runs > 1 {
		f.Runs = runs
	}
	return runs
}
