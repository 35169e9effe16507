package chaos

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/kinds"
)

// OutageMode says how a service that is down answers.
type OutageMode uint8

// Outage modes.
const (
	NoOutage    OutageMode = iota
	Unavailable            // up but answering 503 at once (a load balancer with no healthy backend)
	Refuse                 // not listening: connections are refused
	Reset                  // crashed: in-flight and new connections are reset
	// Goaway drains the server gracefully: every connection is told to go
	// away (an HTTP/2 GOAWAY; for HTTP/1.1, Connection: close on the answer
	// in flight and idle connections closed), the requests in flight finish
	// and are answered, and new connections are refused until it ends.
	Goaway
)

var outageNames = [...]string{NoOutage: "none", Unavailable: "503", Refuse: "refuse", Reset: "reset", Goaway: "goaway"}

// harshness orders the modes for overlapping outages: reset > refuse >
// goaway > 503. (Goaway came last, so its value is not its rank.)
var harshness = [...]uint8{NoOutage: 0, Unavailable: 1, Goaway: 2, Refuse: 3, Reset: 4}

// Harsher reports whether m is a harsher outage than o.
func (m OutageMode) Harsher(o OutageMode) bool { return harshness[m] > harshness[o] }

// Listening reports whether a server in this mode accepts connections:
// not while refusing, nor while going away.
func (m OutageMode) Listening() bool { return m != Refuse && m != Goaway }

func (m OutageMode) String() string {
	if int(m) < len(outageNames) {
		return outageNames[m]
	}
	return fmt.Sprintf("OutageMode(%d)", uint8(m))
}

// Crashes reports whether entering this mode drops all in-flight work.
func (m OutageMode) Crashes() bool { return m == Refuse || m == Reset }

// Effect is what the active faults do to the target at one instant. The zero
// value is not "no fault"; use Healthy.
//
// Each field is one effect, named by its effect tag (Uses). The target
// model turns an Effect into each request's Answer; a field added here is
// a new effect, which the model must turn into the answer and which the
// proxy refuses until it lists it (proxy.CheckFault).
type Effect struct {
	Outage      OutageMode  `effect:"outage"`
	Blackhole   bool        `effect:"blackhole"`    // requests are accepted and never answered
	Delays      []dist.Dist `effect:"delay"`        // added before the request reaches the server, summed
	ErrorRate   float64     `effect:"error-rate"`   // probability of an immediate error answer
	ErrorStatus int         `effect:"error-status"` // the status of that answer
	Capacity    float64     `effect:"capacity"`     // fraction of the target's concurrency available (brownout)
	// Truncate is the probability that a served 2xx answer has its body
	// cut half-way, the connection closed (Answer.Truncate).
	Truncate float64 `effect:"truncate"`
	// RecoveredAt is the end of the most recent outage before this instant
	// (the target is cold-starting from then on), or -1 if there was none.
	RecoveredAt time.Duration
	// Active names the faults active at this instant, for progress displays.
	Active []string
	// RetryAfter is sent as a Retry-After header with pushback answers and
	// with the error answers of 503 outages and error rates; 0 for none.
	// Whole seconds (RetryAfterHeader). Overlapping faults: the longest.
	RetryAfter time.Duration `effect:"retry-after"`
	// Pushback is a gRPC target's grpc-retry-pushback-ms with its error
	// answers (a pushback fault's pushback_ms), PushbackStop for the "do
	// not retry" form, 0 for none (a gRPC target then sends RetryAfter as
	// the pushback). Overlapping faults: the longest, stop over any.
	Pushback time.Duration `effect:"grpc-pushback"`
}

// PushbackStop is an Effect's and an Answer's Pushback in its "do not
// retry" form: the longest, so overlapping faults keep it.
const PushbackStop time.Duration = math.MaxInt64

// Healthy returns the effect of no fault at all.
func Healthy() Effect { return Effect{Capacity: 1, RecoveredAt: -1} }

// ActiveNames returns the active fault names joined by "+", or "" when none.
func (e *Effect) ActiveNames() string { return strings.Join(e.Active, "+") }

// Fault is one kind of misbehaviour. Apply folds the fault's effect into e
// while the fault is active; it is called once per plan segment at compile
// time, never on the request path.
//
// Everything outside this package decides on the compiled Effect, never on
// a fault's concrete type, so a new kind that composes the effects below is
// one file here (its Fault, its Spec, its registration) and every driver
// (the target, the simulator, the proxy) and every check follows.
type Fault interface {
	Apply(e *Effect)
}

// EffectOf returns what f does on its own: its effect on a healthy target.
func EffectOf(f Fault) Effect {
	e := Healthy()
	f.Apply(&e)
	return e
}

// Outage makes the target unavailable in the given mode. RetryAfter is the
// pushback sent with the 503 answers of mode Unavailable, whole seconds.
type Outage struct {
	Mode       OutageMode
	RetryAfter time.Duration
}

// Apply implements Fault.
func (o Outage) Apply(e *Effect) {
	// When outages overlap, the harsher mode wins: reset > refuse > goaway > 503.
	if o.Mode.Harsher(e.Outage) {
		e.Outage = o.Mode
	}
	e.RetryAfter = max(e.RetryAfter, o.RetryAfter)
}

// Blip is a network blip: added latency, or a blackhole that accepts
// requests and never answers, so they hang until the client's timeout.
type Blip struct {
	Blackhole bool
	Delay     dist.Dist
}

// Apply implements Fault.
func (b Blip) Apply(e *Effect) {
	if b.Blackhole {
		e.Blackhole = true
		return
	}
	e.Delays = append(e.Delays, b.Delay)
}

// ErrorRate answers a fraction of requests at once with an error status,
// with a Retry-After header when RetryAfter (whole seconds) is set
// (pushback).
type ErrorRate struct {
	Rate       float64
	Status     int
	RetryAfter time.Duration
	// Pushback is a gRPC target's pushback in milliseconds (Effect.Pushback).
	Pushback time.Duration
}

// Apply implements Fault.
func (f ErrorRate) Apply(e *Effect) {
	// Independent error sources combine: 1-(1-p)(1-q).
	e.ErrorRate = 1 - (1-e.ErrorRate)*(1-f.Rate)
	if e.ErrorStatus == 0 {
		e.ErrorStatus = f.Status
	}
	e.RetryAfter = max(e.RetryAfter, f.RetryAfter)
	e.Pushback = max(e.Pushback, f.Pushback)
}

// Brownout cuts the target's capacity to a fraction of its concurrency.
type Brownout struct{ Capacity float64 }

// Apply implements Fault.
func (b Brownout) Apply(e *Effect) { e.Capacity *= b.Capacity }

var (
	_ Fault = Outage{}
	_ Fault = Blip{}
	_ Fault = ErrorRate{}
	_ Fault = Brownout{}
)

// Timed is a fault with its window, relative to the start of the run.
type Timed struct {
	Name  string // shown while active; defaults to the fault's kind
	Kind  string
	At    time.Duration
	For   time.Duration
	Fault Fault
}

// End returns the end of the fault's window.
func (t Timed) End() time.Duration { return t.At + t.For }

// ParamError is a problem with one parameter of a fault, reported by a Spec.
type ParamError = kinds.ParamError

// Spec is the YAML-shaped parameters of one fault kind. The scenario loader
// decodes a fault's parameters (everything but kind, name, at and for) into
// a fresh Spec from the registry, then compiles it.
type Spec interface {
	Compile() (Fault, []*ParamError)
}

var registry = kinds.New[Spec]("fault kind")

// Register makes a fault kind available to scenarios. It panics if kind is
// already registered, so two kinds can never silently shadow each other.
func Register(kind string, newSpec func() Spec) { registry.Register(kind, "", newSpec) }

// NewSpec returns a fresh Spec for kind.
func NewSpec(kind string) (Spec, bool) { return registry.Spec(kind) }

// Kinds returns the registered fault kinds, sorted.
func Kinds() []string { return registry.Kinds() }
