package scenarios

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/target/model"
)

// A chain of tiers (docs/topologies.md) is written in three places:
//
//   - tiers: the servers, from the one the clients call down to the
//     bottom one, each with a name and its own capacity model (the fields
//     of target). A scenario with tiers has no target section.
//   - chaos[i].tier: the tier a fault strikes; the bottom one by default,
//     where a single target's faults go.
//   - strategies[i].tiers: how each tier that calls another retries, by
//     tier name. A tier's strategy is the cohort's with the fields it sets
//     changed, so "retry at every tier" is a strategy alone, "retry only
//     at the edge" sets max_attempts: 1 at each tier, and a budget at the
//     edge is a budget at every tier (each tier its own: a tier's policies
//     are shared by every call it makes).

// Tier is one server of a chain of tiers.
type Tier struct {
	Name   string
	Target model.Config
	Chaos  *chaos.Plan // the faults that strike this tier; never nil
}

// FaultTier returns the name of the tier the i-th fault of Chaos strikes,
// or "" for a single target.
func (p *Plan) FaultTier(i int) string {
	if i < len(p.faultTiers) {
		return p.faultTiers[i]
	}
	return ""
}

// tiers compiles the chain of tiers into p: each tier's capacity model,
// with the bottom one's as p.Target.
func (c *compiler) tiers(f *File, p *Plan, o Overrides) {
	if len(f.Tiers) > MaxTiers {
		c.fail([]step{key("tiers")}, "%d tiers; a chain has from 1 to %d", len(f.Tiers), MaxTiers)
		return
	}
	bottom := len(f.Tiers) - 1
	if !reflect.DeepEqual(f.Target, TargetFile{}) {
		c.fail([]step{key("target")}, "with tiers, each tier has its own capacity model: move these fields into the bottom tier, tiers[%d] (%s), and remove target", bottom, f.Tiers[bottom].Name)
	}
	if o.Target != "" {
		c.errs.Problems = append(c.errs.Problems, Problem{Msg: "--target: this scenario chains tiers, every one embedded on 127.0.0.1; to put herdbench's retrying tiers in front of a real service, run herdbench proxy --retry in front of it (docs/topologies.md)"})
	}
	f.Tiers = append([]TierFile(nil), f.Tiers...) // defaults are filled in
	seen := map[string]int{}
	for i := range f.Tiers {
		t := &f.Tiers[i]
		base := []step{key("tiers"), index(i)}
		at := func(k string) []step { return with(base, key(k)) }
		switch j, dup := seen[t.Name]; {
		case t.Name == "":
			c.fail(at("name"), "missing; every tier needs a name (faults and strategies name it, and the figures are per tier), e.g. name: gateway")
		case labelProblem(t.Name) != "":
			c.fail(at("name"), "%s", labelProblem(t.Name))
		case dup:
			c.fail(at("name"), "%q is already the name of tiers[%d]; tier names must be unique", t.Name, j)
		default:
			seen[t.Name] = i
		}
		if t.URL != "" {
			c.fail(at("url"), "every tier is embedded, on 127.0.0.1; to chain herdbench's retrying tiers to a real service, run herdbench proxy --retry in front of it (docs/topologies.md)")
		}
		if t.Kind != "" && t.Kind != model.Plain.String() {
			c.fail(at("kind"), "%q: a tier is a plain service; an OCC row is for a single target, without tiers", t.Kind)
		}
		if t.Protocol != "" && t.Protocol != ProtocolHTTP {
			c.fail(at("protocol"), "%q: the tiers of a chain speak HTTP to each other; gRPC is for a single target (target.protocol: grpc)", t.Protocol)
		}
		p.Tiers = append(p.Tiers, Tier{Name: t.Name, Target: c.target(&t.TargetFile, base)})
		if len(t.Routes) > 0 {
			c.fail(with(base, key("routes")), "routes are for a single target; in a chain of tiers every request takes its tier's service_time")
		}
	}
	p.Target = p.Tiers[bottom].Target
}

// tierNames returns the names of a chain's tiers, in order.
func tierNames(tiers []TierFile) []string {
	out := make([]string, len(tiers))
	for i, t := range tiers {
		out[i] = t.Name
	}
	return out
}

// tierFaults checks each fault's tier and, with tiers, gives each tier
// the plan of its own faults.
func (c *compiler) tierFaults(faults []FaultFile, p *Plan) {
	names := make([]string, len(p.Tiers))
	for i, t := range p.Tiers {
		names[i] = t.Name
	}
	strikes := make([]int, len(faults))
	for i, f := range faults {
		at := []step{key("chaos"), index(i), key("tier")}
		strikes[i] = len(p.Tiers) - 1
		switch k := indexOf(names, f.Tier); {
		case f.Tier == "":
		case len(p.Tiers) == 0:
			c.fail(at, "the scenario has no tiers; a fault names its tier in a scenario that chains them (tiers:), and strikes the target otherwise: remove tier")
		case k < 0:
			if m, near := closest(f.Tier, names); near {
				c.fail(at, "unknown tier %q (did you mean %q?); the tiers: %s", f.Tier, m, validList(names))
			} else {
				c.fail(at, "unknown tier %q; the tiers: %s", f.Tier, validList(names))
			}
		default:
			strikes[i] = k
		}
	}
	if len(p.Tiers) == 0 || p.Chaos == nil {
		return // no tiers, or faults that did not compile (reported)
	}
	per := make([][]chaos.Timed, len(p.Tiers))
	for i, f := range p.Chaos.Faults() { // one per fault of the file, in order
		per[strikes[i]] = append(per[strikes[i]], f)
		p.faultTiers = append(p.faultTiers, names[strikes[i]])
	}
	for k := range p.Tiers {
		plan, err := chaos.NewPlan(per[k], p.Duration)
		if err != nil { // the faults were checked as one plan: unreachable
			c.fail([]step{key("chaos")}, "%v", err)
			continue
		}
		p.Tiers[k].Chaos = plan
	}
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// tierStrategies compiles how the cohort of strategies[i] retries at
// each tier that calls another: raw is the strategy as written, sf the
// one being resolved, whose tiers it writes back as they ran (every such
// tier, in full, so the resolved scenario says what each did).
func (c *compiler) tierStrategies(tiers []TierFile, raw, sf *StrategyFile, i int) []clients.Strategy {
	at := func(k string) []step { return []step{key("strategies"), index(i), key(k)} }
	if len(tiers) == 0 {
		if raw.Tiers != nil {
			c.fail(at("tiers"), "the scenario has no tiers; a strategy sets how each tier retries in a scenario that chains them (tiers:): remove tiers here")
		}
		return nil
	}
	names := tierNames(tiers)
	callers, bottom := names[:len(names)-1], names[len(names)-1]
	keys := make([]string, 0, len(raw.Tiers))
	for k := range raw.Tiers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		path := []step{key("strategies"), index(i), key("tiers"), key(k)}
		switch {
		case indexOf(callers, k) >= 0:
		case k == bottom:
			c.fail(path, "%s is the bottom tier: it calls no other, so it has no retries to set; the tiers that call another: %s", k, validList(callers))
		default:
			if m, near := closest(k, callers); near {
				c.fail(path, "unknown tier %q (did you mean %q?); the tiers that call another: %s", k, m, validList(callers))
			} else {
				c.fail(path, "unknown tier %q; the tiers that call another: %s", k, validList(callers))
			}
		}
	}
	var out []clients.Strategy
	resolved := map[string]*StrategyFile{}
	for _, name := range callers {
		o := raw.Tiers[name]
		set := setFields(o)
		path := func(k string) []step {
			if set[k] {
				return []step{key("strategies"), index(i), key("tiers"), key(name), key(k)}
			}
			return at(k)
		}
		for _, k := range notAtTier {
			if set[k] {
				c.fail(path(k), "%s belongs to the cohort, not to one of its tiers: write it at strategies[%d]", k, i)
			}
		}
		merged := inherit(raw, o, set)
		c.atTier = true
		st := c.strategy(&merged, path)
		c.atTier = false
		st.Name = raw.Name
		out = append(out, st)
		merged.Name, merged.Thresholds, merged.Tiers = "", nil, nil
		resolved[name] = &merged
	}
	sf.Tiers = resolved
	return out
}

// notAtTier are the fields of a StrategyFile that are the cohort's alone.
var notAtTier = []string{"name", "thresholds", "tiers", "transport"}

// setFields returns the YAML keys of the fields o sets (not zero).
func setFields(o *StrategyFile) map[string]bool {
	set := map[string]bool{}
	if o == nil {
		return set
	}
	v := reflect.ValueOf(o).Elem()
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		if name != "" && !v.Field(i).IsZero() {
			set[name] = true
		}
	}
	return set
}

// inherit returns a tier's strategy as written: the cohort's, raw, with
// the fields that o sets (set) changed. The policies it inherits lose
// their scope: at a tier they are the tier's (the default there).
func inherit(raw, o *StrategyFile, set map[string]bool) StrategyFile {
	merged := *raw
	for _, p := range []**PolicyFile{&merged.Budget, &merged.Breaker, &merged.Throttle} {
		if *p != nil && !(*p).None {
			cp := **p
			cp.Scope = ""
			*p = &cp
		}
	}
	if o == nil {
		return merged
	}
	dst, src := reflect.ValueOf(&merged).Elem(), reflect.ValueOf(o).Elem()
	for i := 0; i < dst.NumField(); i++ {
		name, _, _ := strings.Cut(dst.Type().Field(i).Tag.Get("yaml"), ",")
		if set[name] && !contains(notAtTier, name) {
			dst.Field(i).Set(src.Field(i))
		}
	}
	return merged
}

// tierTimeouts checks, for each tier with a blackhole, that whoever calls
// it gives up on an attempt: a per-attempt timeout at its callers or at a
// tier above them, whose giving up cancels the calls below.
func (c *compiler) tierTimeouts(p *Plan) {
	for k, t := range p.Tiers {
		if t.Chaos == nil || !t.Chaos.Ever(func(e *chaos.Effect) bool { return e.Blackhole }) {
			continue
		}
		for i, st := range p.Strategies {
			has := st.Timeout > 0
			for j := 0; j < k && j < len(st.Tiers) && !has; j++ {
				has = st.Tiers[j].Timeout > 0
			}
			if !has {
				c.fail([]step{key("strategies"), index(i), key("timeout")}, "strategy %q has no per-attempt timeout at %s's callers or above them, but the chaos plan has a blackhole at %s that holds requests until the caller gives up; set e.g. timeout: 2s", st.Name, t.Name, t.Name)
			}
		}
	}
}

// serverTier narrows p, compiled for a standalone target or proxy, to
// the tier it plays (o.Tier; the bottom one when empty): that tier's
// capacity model and faults.
func (c *compiler) serverTier(p *Plan, o Overrides) {
	if len(p.Tiers) == 0 {
		if o.Tier != "" {
			c.errs.Problems = append(c.errs.Problems, Problem{Msg: fmt.Sprintf("--tier %s: the scenario has no tiers; leave --tier out, or name a scenario that chains them (tiers:)", o.Tier)})
		}
		return
	}
	names := make([]string, len(p.Tiers))
	for i, t := range p.Tiers {
		names[i] = t.Name
	}
	k := len(p.Tiers) - 1
	if o.Tier != "" {
		if k = indexOf(names, o.Tier); k < 0 {
			c.errs.Problems = append(c.errs.Problems, Problem{Msg: fmt.Sprintf("--tier %s: no such tier; the scenario's tiers: %s", o.Tier, validList(names))})
			return
		}
	}
	p.Target, p.Chaos = p.Tiers[k].Target, p.Tiers[k].Chaos
}

// RetryStrategy returns the strategy a retrying proxy calls its upstream
// with (herdbench proxy --retry NAME): strategy name of the scenario, as
// the tier named tier retries it in a chain of tiers ("" in a scenario
// without tiers), or else the preset of that name. A proxy makes a fresh
// call for every request it forwards, so its policies are shared by all
// of them, as a tier's are (scope cohort).
func (s *Scenario) RetryStrategy(name, tier string, o Overrides) (*clients.Strategy, error) {
	for _, sf := range s.File.Strategies {
		if sf.Name != name {
			continue
		}
		p, err := s.Compile(Overrides{Seed: o.Seed, Strategies: []string{name}})
		if err != nil {
			return nil, err
		}
		st := p.Strategies[0]
		if len(p.Tiers) > 0 {
			names := make([]string, len(p.Tiers))
			for i, t := range p.Tiers {
				names[i] = t.Name
			}
			callers := names[:len(names)-1]
			k := indexOf(callers, tier)
			switch {
			case k >= 0:
				st = st.Tiers[k]
			case tier == names[len(names)-1]:
				return nil, fmt.Errorf("--tier %s is the bottom tier of %s: it calls no other, so it has no retries; a retrying proxy plays a tier that calls another: %s", tier, s.Filename, validList(callers))
			default:
				return nil, fmt.Errorf("--retry %s: %s chains tiers, and each retries its own way: name the tier the proxy plays with --tier (%s)", name, s.Filename, validList(callers))
			}
		} else if tier != "" {
			return nil, fmt.Errorf("--tier %s: %s has no tiers; leave --tier out", tier, s.Filename)
		}
		st.Tiers = nil
		st.Requests = nil // the proxy forwards what it receives, not the scenario's mix
		shareAll(&st)
		return &st, nil
	}
	if p, ok := clients.FindPreset(name); ok {
		c := &compiler{s: &Scenario{Filename: "--retry"}, errs: &Error{File: "--retry"}, atTier: true}
		// A preset retries a POST or PATCH without an idempotency key as
		// its design does, as in the swarm.
		sf := StrategyFile{Name: name, Preset: name, RetryNonIdempotent: &p.RetryNonIdempotent}
		st := c.strategy(&sf, func(k string) []step { return []step{key(k)} })
		if len(c.errs.Problems) > 0 { // a preset is valid by construction: unreachable
			return nil, c.errs
		}
		return &st, nil
	}
	if successors, was := clients.RenamedPreset(name); was {
		return nil, fmt.Errorf("--retry %s: preset %s was renamed, for the library it models: %s", name, name, successors)
	}
	names := make([]string, 0, len(s.File.Strategies))
	for _, sf := range s.File.Strategies {
		names = append(names, sf.Name)
	}
	have := "it has no strategies"
	if len(names) > 0 {
		have = "its strategies: " + validList(names)
	}
	return nil, fmt.Errorf("--retry %s: no strategy of %s nor preset of that name; %s; presets: %s", name, s.Filename, have, validList(clients.PresetNames()))
}

// shareAll makes st's policies shared by every call (scope cohort).
func shareAll(st *clients.Strategy) {
	if st.Budget != nil {
		b := *st.Budget
		b.Scope = clients.PerCohort
		st.Budget = &b
	}
	if st.Breaker != nil {
		b := *st.Breaker
		b.Scope = clients.PerCohort
		st.Breaker = &b
	}
	if st.Throttle != nil {
		b := *st.Throttle
		b.Scope = clients.PerCohort
		st.Throttle = &b
	}
}
