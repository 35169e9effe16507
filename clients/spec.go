package clients

import (
	"fmt"
	"strings"
	"time"

	"github.com/herdbench/herdbench/internal/kinds"
)

// Client policies (a retry budget, a circuit breaker, adaptive throttling)
// come in kinds, one published design each, registered by name in three
// families: Budgets, Breakers and Throttles. A kind is one file: its Spec
// (the design's parameters, with yaml tags, in the shape a scenario writes
// them), the state its Spec makes (a Budget, a Breaker or a Throttle), and
// an init function that registers it with a one-line summary and a
// constructor that returns the design's published constants. The scenario
// loader reads a policy's kind, then decodes the rest into a fresh Spec,
// field by field, so scenarios, validation, error messages and the
// resolved scenario follow from the registration alone.

// Spec is the parameters of one kind of policy: a pointer to a struct whose
// fields carry yaml tags (time.Duration for durations). It is immutable
// once resolved and shared by every client of a cohort; New makes the
// mutable state that a client (or, with scope cohort, the cohort) keeps.
type Spec[P any] interface {
	// Resolve fills in the defaults that depend on which fields a
	// scenario set (set reports it, by YAML key) and returns every
	// problem with the parameters, each naming its field. A Spec built in
	// Go with valid values needs no Resolve.
	Resolve(set func(key string) bool) []*ParamError
	// New returns fresh state with these parameters.
	New() P
}

// The Specs of the three families.
type (
	BudgetSpec   = Spec[Budget]
	BreakerSpec  = Spec[Breaker]
	ThrottleSpec = Spec[Throttle]
)

// ParamError is a problem with one parameter of a Spec.
type ParamError = kinds.ParamError

// Policy is one of a strategy's policies: its kind, who shares its state,
// and the kind's parameters.
type Policy[P any] struct {
	Kind  string
	Scope Scope
	Spec  Spec[P]
}

// Family is the registry of one family of policies: its kinds by name, each
// with a one-line summary and a constructor of its Spec filled with the
// design's published constants.
type Family[P any] struct {
	*kinds.Registry[Spec[P]]
	name string
	def  string
}

func newFamily[P any](name, def string) *Family[P] {
	return &Family[P]{Registry: kinds.New[Spec[P]](name + " kind"), name: name, def: def}
}

// Name returns the family's name in scenarios and messages: budget,
// breaker, throttle.
func (f *Family[P]) Name() string { return f.name }

// Default returns the kind a scenario gets when it names none, or "" when
// it must name one.
func (f *Family[P]) Default() string { return f.def }

// Menu lists the kinds with their summaries, for messages: "aws (retry
// quota, AWS SDK standard), envoy (...)".
func (f *Family[P]) Menu() string {
	var b strings.Builder
	for i, k := range f.Kinds() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		if s := f.Summary(k); s != "" {
			fmt.Fprintf(&b, " (%s)", s)
		}
	}
	return b.String()
}

// The families. A budget names its kind; a breaker and a throttle have a
// default one.
var (
	Budgets   = newFamily[Budget]("budget", "")
	Breakers  = newFamily[Breaker]("breaker", "standard")
	Throttles = newFamily[Throttle]("throttle", "sre")
)

// The ranges the kinds check, beyond what each parameter means
// (docs/limits.md).
const (
	// MaxCount bounds the counts of policies: tokens, costs, failures,
	// calls, retries per second.
	MaxCount = 1_000_000_000
	// MaxRatio bounds the budget ratios that may exceed 1 (gRPC's
	// max_tokens and token_ratio, Finagle's percent_can_retry, the SRE
	// ratio) and the throttle's k.
	MaxRatio = 1000
)

// problems collects a Spec's ParamErrors.
type problems []*ParamError

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, &ParamError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// count checks a count of a policy against [lo, MaxCount].
func (p *problems) count(field string, v, lo int) {
	if v < lo || v > MaxCount {
		p.add(field, "%d; write from %d to %d", v, lo, MaxCount)
	}
}

// positive checks a duration that must be more than 0; def is the example.
func (p *problems) positive(field string, v, def time.Duration) {
	if v <= 0 {
		p.add(field, "%s; write a duration more than 0, e.g. %s", v, def)
	}
}

// Scope says who shares a policy's state.
type Scope uint8

// Scopes.
const (
	PerClient Scope = iota // every client has its own (an SDK in each process)
	PerCohort              // the whole cohort shares one (a sidecar or a shared channel)
	// PerShard: the clients of one shard of a split run share one (a
	// sidecar per machine); in a run that is not split, the whole cohort,
	// as PerCohort.
	PerShard
)

// Shared reports whether the scope's state is shared by many clients.
func (s Scope) Shared() bool { return s == PerCohort || s == PerShard }

var scopeNames = [...]string{PerClient: "client", PerCohort: "cohort", PerShard: "shard"}

func (s Scope) String() string {
	if int(s) < len(scopeNames) {
		return scopeNames[s]
	}
	return fmt.Sprintf("Scope(%d)", uint8(s))
}

// ParseScope reads a scope name.
func ParseScope(name string) (Scope, bool) {
	for i, n := range scopeNames {
		if n == name {
			return Scope(i), true
		}
	}
	return 0, false
}
