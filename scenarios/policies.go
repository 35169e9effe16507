package scenarios

import (
	"fmt"
	"github.com/herdbench/herdbench/scenarios/decode"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/herdbench/herdbench/clients"
	"go.yaml.in/yaml/v3"
)

// PolicyFile is one of a strategy's client policies (its budget, breaker
// or throttle) as written: the kind, the scope, and the kind's own
// parameters, kept as YAML until the kind is known (two-phase decoding, as
// for faults). Compile decodes the parameters into the kind's clients.Spec
// from the family's registry, so a new kind needs nothing here.
type PolicyFile struct {
	Kind  string
	Scope string
	// None is the word none written instead of a mapping: no such policy,
	// not even the preset's nor, at a tier, the cohort's.
	None   bool
	Params yaml.Node // the whole mapping
	// resolved is the policy that ran, every parameter filled in; it is
	// what MarshalYAML writes, once Compile has set it.
	resolved *yaml.Node
}

var policyCommon = []string{"kind", "scope"}

// UnmarshalYAML reads the common fields and keeps the mapping for the
// kind's parameters.
func (f *PolicyFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "none" {
		f.None = true
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: a budget, breaker or throttle is a mapping of its fields, e.g. {kind: sre, scope: cohort}, or none; docs/policies.md lists them", n.Line)}}
	}
	f.Params = *n
	return decode.ReadCommon(n, map[string]*string{"kind": &f.Kind, "scope": &f.Scope})
}

// MarshalYAML writes the policy that ran, or, before Compile, the policy as
// it was written.
func (f PolicyFile) MarshalYAML() (any, error) {
	if f.None {
		return "none", nil
	}
	if f.resolved != nil {
		return f.resolved, nil
	}
	return &f.Params, nil
}

// policy compiles one of a strategy's policies, of family fam: as written
// (f, nil if the strategy has none) or else the preset's kind (preset, ""
// if none), with the kind's published constants for what it leaves out. It
// returns the policy and what the resolved scenario shows, nil and nil when
// there is none.
func policy[P any](c *compiler, fam *clients.Family[P], f *PolicyFile, preset string, path []step) (*clients.Policy[P], *PolicyFile) {
	if f == nil && preset == "" {
		return nil, nil
	}
	if f != nil && f.None {
		return nil, &PolicyFile{None: true}
	}
	at := func(k string) []step { return with(path, key(k)) }
	var w PolicyFile
	if f != nil {
		w = *f
	}
	kind := w.Kind
	switch {
	case kind != "":
	case preset != "":
		kind = preset
	case fam.Default() != "":
		kind = fam.Default()
	default:
		c.fail(at("kind"), "missing; choose a %s: %s", fam.Name(), fam.Menu())
		return nil, nil
	}
	spec, ok := fam.Spec(kind)
	if !ok {
		if m, near := closest(kind, fam.Kinds()); near {
			c.fail(at("kind"), "unknown %s kind %q (did you mean %q?); valid kinds: %s", fam.Name(), kind, m, fam.Menu())
		} else {
			c.fail(at("kind"), "unknown %s kind %q; valid kinds: %s", fam.Name(), kind, fam.Menu())
		}
		return nil, nil
	}
	owner := func(field string) string { // the other kind of the family that has field
		for _, k := range fam.Kinds() {
			if s, _ := fam.Spec(k); k != kind && contains(specFields(s), field) {
				return k
			}
		}
		return ""
	}
	set := c.params(&w.Params, spec, fmt.Sprintf("%s %s", kind, fam.Name()), owner, path)
	for _, pe := range spec.Resolve(func(k string) bool { _, ok := set[k]; return ok }) {
		c.fail(at(pe.Field), "%s", pe.Msg)
	}
	scope := c.scope(&w.Scope, at("scope"))
	// The kind is shown unless it is the family's default, left out.
	showKind := w.Kind != "" || kind != fam.Default()
	out := &PolicyFile{Kind: w.Kind, Scope: w.Scope, Params: w.Params, resolved: resolvedPolicy(kind, showKind, w.Scope, spec, set)}
	return &clients.Policy[P]{Kind: kind, Scope: scope, Spec: spec}, out
}

var durationType = reflect.TypeOf(time.Duration(0))

// specFields returns the YAML keys of a Spec, in the order of its fields.
func specFields(spec any) []string {
	names, _ := decode.Fields(reflect.TypeOf(spec).Elem())
	return names
}

// params decodes a policy's parameters (its mapping but kind and scope)
// into spec, a pointer to a struct with yaml tags, one field at a time, so
// that each problem names its own field: a key the kind does not have (with
// the other kind that has it, found by owner, or the valid keys and a close
// match), a value of the wrong type, a duration that does not read. It
// returns the keys it set, each with its text as written when the field is
// a duration (the resolved scenario keeps it), "" otherwise. what names the
// kind in messages ("grpc budget").
func (c *compiler) params(n *yaml.Node, spec any, what string, owner func(string) string, path []step) map[string]string {
	at := func(k string) []step { return with(path, key(k)) }
	var m map[string]yaml.Node // YAML merges (<<: *defaults) applied
	if err := n.Decode(&m); err != nil {
		c.fail(path, "%v", strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "))
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !contains(policyCommon, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	names := specFields(spec)
	v := reflect.ValueOf(spec).Elem()
	set := map[string]string{}
	for _, k := range keys {
		node := m[k]
		i := fieldIndex(v.Type(), k)
		switch {
		case i < 0 && owner(k) != "":
			c.fail(at(k), "%s belongs to %s %ss; a %s takes %s", k, owner(k), strings.SplitN(what, " ", 2)[1], what, validList(names))
			continue
		case i < 0:
			valid := append(append([]string(nil), policyCommon...), names...)
			if m, near := closest(k, valid); near {
				c.fail(at(k), "unknown field %q (did you mean %q?); valid fields here: %s", k, m, validList(valid))
			} else {
				c.fail(at(k), "unknown field %q; valid fields here: %s", k, validList(valid))
			}
			continue
		}
		f := v.Field(i)
		switch {
		case f.Type() == durationType:
			if node.Kind != yaml.ScalarNode {
				c.fail(at(k), "write a duration, e.g. 2s")
				continue
			}
			text := node.Value
			before := len(c.errs.Problems)
			d := c.duration(&text, 0, at(k))
			if len(c.errs.Problems) > before {
				continue
			}
			f.SetInt(int64(d))
			set[k] = text
		case decode.IsWhole(f.Kind()) && node.Kind == yaml.ScalarNode && node.ShortTag() == "!!float":
			c.fail(at(k), "%s", decode.NotWhole(node.Value, f.Kind()))
		default:
			if err := node.Decode(f.Addr().Interface()); err != nil {
				msg := err.Error()
				if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
					msg = friendlyType(decode.LineProblem(te.Errors[0]).Msg)
				}
				c.fail(at(k), "%s", msg)
				continue
			}
			set[k] = ""
		}
	}
	return set
}

// fieldIndex returns the index of the field of struct type t whose YAML key
// is k, or -1.
func fieldIndex(t reflect.Type, k string) int {
	for i := 0; i < t.NumField(); i++ {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name == k {
			return i
		}
	}
	return -1
}

// resolvedPolicy is a policy as it ran, for the resolved scenario: kind
// (when shown), scope, then every parameter of the kind in the order of its
// Spec's fields, a duration as the scenario wrote it (set holds the texts),
// and the fields tagged omitempty left out when zero.
func resolvedPolicy(kind string, showKind bool, scope string, spec any, set map[string]string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	add := func(k string, v *yaml.Node) {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, v)
	}
	str := func(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }
	if showKind {
		add("kind", str(kind))
	}
	add("scope", str(scope))
	v := reflect.ValueOf(spec).Elem()
	for i := 0; i < v.NumField(); i++ {
		name, opts, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		f := v.Field(i)
		switch {
		case name == "" || name == "-":
		case strings.Contains(opts, "omitempty") && f.IsZero():
		case f.Type() == durationType && set[name] != "":
			add(name, str(set[name]))
		default:
			var vn yaml.Node
			if err := vn.Encode(f.Interface()); err != nil {
				vn = *str(fmt.Sprint(f.Interface())) // a Spec's fields are plain values: unreachable
			}
			add(name, &vn)
		}
	}
	return n
}

// policies compiles a strategy's budget, breaker, throttle and pushback
// handling into s, and writes what ran back into sf. A policy the strategy
// leaves out comes from its preset, if the preset has one; a policy of
// another kind than the preset's (e.g. budget kind aws under preset grpc)
// replaces the preset's.
func (c *compiler) policies(sf *StrategyFile, s *clients.Strategy, at func(string) []step) {
	p, _ := clients.FindPreset(sf.Preset) // an unknown preset is reported by preset
	s.Budget, sf.Budget = policy(c, clients.Budgets, sf.Budget, p.Budget, at("budget"))
	s.Breaker, sf.Breaker = policy(c, clients.Breakers, sf.Breaker, "", at("breaker"))
	s.Throttle, sf.Throttle = policy(c, clients.Throttles, sf.Throttle, p.Throttle, at("throttle"))
	switch sf.RetryAfter {
	case "", "ignore":
		if sf.RetryAfterCap != "" {
			c.fail(at("retry_after_cap"), "caps the wait a Retry-After asks for, which this strategy ignores; add retry_after: honor or remove retry_after_cap")
		}
	case "honor":
		s.RetryAfter.Honor = true
		if sf.RetryAfterCap != "" {
			s.RetryAfter.Cap = c.duration(&sf.RetryAfterCap, 0, at("retry_after_cap"))
		}
	default:
		c.fail(at("retry_after"), "unknown value %q; write honor (wait what the server's Retry-After asks instead of the backoff) or ignore (the default)", sf.RetryAfter)
	}
	// A wait that is always 0 with no limit on attempts spins at one
	// instant: a call refused at once (by the breaker or throttle, or,
	// over a network that takes no time, a full queue's 503) is retried at
	// once, forever, and virtual time never moves on.
	if s.MaxAttempts == 0 && (s.Backoff.Shape == clients.None || s.Backoff.Base == 0) {
		switch {
		case s.Breaker != nil || s.Throttle != nil:
			c.fail(at("max_attempts"), "unlimited attempts with a backoff that never waits: a call the breaker or throttle refuses counts as an attempt and is retried at once, forever; set max_attempts or a backoff that waits")
		case c.instant:
			c.fail(at("max_attempts"), "unlimited attempts with a backoff that never waits: a call answered at once (a full queue's 503 over a network that takes no time, a refused connection) is retried at the same instant, forever, and a simulated run never ends; set max_attempts or a backoff that waits")
		}
	}
}

// scope reads a policy's scope. It defaults to client, except in an open
// workload, where every arrival is a fresh client with a single request: a
// client's own budget, breaker or throttle would never see a second call,
// so there the scope is the cohort (the process that serves the arrivals).
func (c *compiler) scope(v *string, path []step) clients.Scope {
	if *v == "" {
		if c.kind == clients.Open || c.atTier {
			if c.shard && !c.atTier {
				c.fail(path, "an open workload's policies are shared by the whole cohort by default (scope: cohort), which the shards of a split run cannot share across machines; write scope: shard (each shard's arrivals share one, as a sidecar per machine would)")
			}
			*v = clients.PerCohort.String()
			return clients.PerCohort
		}
		*v = clients.PerClient.String()
		return clients.PerClient
	}
	sc, ok := clients.ParseScope(*v)
	if !ok {
		c.fail(path, "unknown scope %q; write client (each client has its own, as an SDK in every process), cohort (the whole cohort shares one, as a sidecar or a shared channel) or shard (each shard of a split run shares one)", *v)
		return clients.PerClient
	}
	if sc == clients.PerClient && c.atTier {
		c.fail(path, "a tier makes a fresh call for every request it serves, so a client's own state would only ever see one request; a tier's policies are the tier's, shared by all its calls: use scope: cohort (the default at a tier)")
		return sc
	}
	if sc == clients.PerClient && c.kind == clients.Open {
		c.fail(path, "an open workload starts a fresh client for every arrival, so a client's own state would only ever see one request; use scope: cohort (the default for open workloads), or scope: shard")
	}
	if sc == clients.PerCohort && c.shard {
		c.fail(path, "scope: cohort shares one state across the whole cohort, which the shards of a split run, on other machines, cannot share; write scope: shard (each shard's clients share one: the cohort's state split N ways, as a sidecar per machine would be) or scope: client")
	}
	return sc
}

// preset fills the fields a strategy leaves unset from its preset, so the
// resolved scenario shows what ran; policies fills in the preset's budget
// and throttle.
func (c *compiler) preset(sf *StrategyFile, at func(string) []step) {
	if sf.Preset == "" {
		return
	}
	p, ok := clients.FindPreset(sf.Preset)
	if successors, was := clients.RenamedPreset(sf.Preset); !ok && was {
		c.fail(at("preset"), "preset %q was renamed, for the library it models: %s", sf.Preset, successors)
		return
	}
	if !ok {
		names := clients.PresetNames()
		if m, near := closest(sf.Preset, names); near {
			c.fail(at("preset"), "unknown preset %q (did you mean %q?); valid presets: %s", sf.Preset, m, validList(names))
		} else {
			c.fail(at("preset"), "unknown preset %q; valid presets: %s", sf.Preset, validList(names))
		}
		return
	}
	if b := p.Backoff; b != nil {
		if _, exp := b.JitterShare(); sf.Backoff == "" && sf.Jitter != nil && exp {
			sf.Backoff = clients.Exponential.String() // the preset's jitter replaced by the strategy's share
		} else if sf.Backoff == "" {
			sf.Backoff = b.Shape.String()
		}
		if sf.Base == "" && b.Base > 0 {
			sf.Base = b.Base.String()
		}
		if sf.Cap == "" && b.Cap > 0 {
			sf.Cap = b.Cap.String()
		}
		if sf.Multiplier == 0 && b.Multiplier > 0 {
			sf.Multiplier = b.Multiplier
		}
		if sf.Jitter == nil && b.Shape == clients.Exponential && sf.Backoff == b.Shape.String() && b.Jitter > 0 {
			j := b.Jitter
			sf.Jitter = &j
		}
	}
	if sf.MaxAttempts == nil && p.MaxAttempts != 0 {
		l := Limit(max(p.MaxAttempts, 0)) // Unlimited is 0, "unlimited"
		sf.MaxAttempts = &l
	}
	if sf.RetryAfter == "" && p.RetryAfter {
		sf.RetryAfter = "honor"
	}
	// What the design retries: its failures, and (at the edge, where the
	// requests are the scenario's) whether a POST or PATCH without an
	// idempotency key is retried. A tier's calls are the probe.
	if sf.RetryOn == nil && p.RetryOn != nil {
		sf.RetryOn = slices.Clone(p.RetryOn)
	}
	if sf.RetryNonIdempotent == nil && !c.atTier {
		v := p.RetryNonIdempotent
		sf.RetryNonIdempotent = &v
	}
}
