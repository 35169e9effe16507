package engine

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// The answer table: one synthetic fault kind per effect of chaos.Effect,
// registered here, run on every wire (HTTP/1.1, h2c and gRPC: the real
// engine's server and swarm over an in-memory network, in a synctest
// bubble) and compared with the simulator in the same protocol, at a
// single target and (over HTTP/1.1, the tiers' wire) at the middle tier of
// a chain, and through the proxy's check. Every engine and wire applies
// the model's answer (chaos.Answer) in one function; the table checks
// that each makes of every effect the attempts, outcomes and timing the
// simulator makes, and that the proxy takes exactly the effects it lists.
// A row states what a wire cannot send of its answer, and what its clients
// see then. An effect added to chaos.Effect without a row here fails
// TestEveryEffectHasARow.

// answerCase is one row: a fault made of one effect, the outcome its
// clients see on every attempt and when their work ends, whether the
// proxy applies it, and what each wire that cannot send the whole answer
// makes of it instead.
type answerCase struct {
	name    string // the fault kind is "answer-" + name
	effect  string // the effect it exercises (chaos.Effect.Uses)
	apply   func(e *chaos.Effect)
	outcome string
	done    float64 // when the last client's work ends, seconds (up to 50 ms later)
	proxy   bool
	cannot  map[string]answerSeen // by wire: what it cannot send, and what its clients see
}

// answerSeen is what a wire's clients see of a row's answer when the wire
// cannot send all of it, and why.
type answerSeen struct {
	why     string
	outcome string
	done    float64
}

// httpHasNoPushback: HTTP has no grpc-retry-pushback-ms; its clients back
// off as their strategy says.
var httpHasNoPushback = map[string]answerSeen{
	"http1": {"HTTP has no pushback trailer", "http_429", 0.1},
	"h2c":   {"HTTP has no pushback trailer", "http_429", 0.1},
}

var answerCases = []answerCase{
	{"unavailable", "outage", func(e *chaos.Effect) { e.Outage = chaos.Unavailable }, "http_5xx", 0.1, true, nil},
	{"reset", "outage", func(e *chaos.Effect) { e.Outage = chaos.Reset }, "reset", 0.1, true, nil},
	{"refuse", "outage", func(e *chaos.Effect) { e.Outage = chaos.Refuse }, "refused", 0.1, true, nil},
	{"goaway", "outage", func(e *chaos.Effect) { e.Outage = chaos.Goaway }, "refused", 0.1, true, nil},
	{"blackhole", "blackhole", func(e *chaos.Effect) { e.Blackhole = true }, "timeout", 2.1, true, nil},
	{"delay", "delay", func(e *chaos.Effect) { e.Delays = append(e.Delays, dist.Const(300*time.Millisecond)) }, "ok", 0.3, true, nil},
	{"error-rate", "error-rate", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus = 1, 500 }, "http_5xx", 0.1, true, nil},
	{"error-status", "error-status", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus = 1, 429 }, "http_429", 0.1, true, nil},
	{"retry-after", "retry-after", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus, e.RetryAfter = 1, 503, time.Second }, "http_5xx", 1, true, nil},
	{"capacity", "capacity", func(e *chaos.Effect) { e.Capacity *= 0.5 }, "ok", 0, false, nil},
	{"truncate", "truncate", func(e *chaos.Effect) { e.Truncate = 1 }, "reset", 0.1, false, nil},
	// A gRPC pushback of 250 ms, which the strategy honours as it honours
	// a Retry-After; an HTTP target, in both engines, sends none of it.
	{"grpc-pushback", "grpc-pushback", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus, e.Pushback = 1, 429, 250*time.Millisecond }, "http_429", 0.25, false, httpHasNoPushback},
	// Its "do not retry" form: the strategy backs off as it would without.
	{"grpc-pushback-stop", "grpc-pushback", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus, e.Pushback = 1, 429, chaos.PushbackStop }, "http_429", 0.1, false, nil},
}

// answerWires are the wires every row runs on, each a scenario's text
// from the HTTP/1.1 one.
var answerWires = []struct {
	name string
	edit func(yaml string) string
}{
	{"http1", func(y string) string { return y }},
	{"h2c", func(y string) string { return y + "protocol: h2c\n" }},
	{"grpc", func(y string) string { return strings.Replace(y, "target: {", "target: {protocol: grpc, ", 1) }},
}

// synthetic is a fault kind of the answer table: it applies its row's
// effect.
type synthetic struct{ apply func(e *chaos.Effect) }

func (f synthetic) Apply(e *chaos.Effect) { f.apply(e) }

// syntheticSpec is its parameters: none.
type syntheticSpec struct{ apply func(e *chaos.Effect) }

func (s *syntheticSpec) Compile() (chaos.Fault, []*chaos.ParamError) {
	return synthetic(*s), nil
}

func init() {
	for _, c := range answerCases {
		chaos.Register("answer-"+c.name, func() chaos.Spec { return &syntheticSpec{apply: c.apply} })
	}
}

// answerScenario is a run of 4 clients, each making 2 attempts (the second
// after the first answer's Retry-After, if any) under the fault of kind
// for its whole length: at the single target, or, with tiers, at the
// first of two tiers.
func answerScenario(kind string, tiers bool) string {
	where := `
target: {concurrency: 4, queue: 4, queue_timeout: 2s, service_time: 10ms}`
	on := ""
	if tiers {
		where = `
tiers:
  - {name: front, concurrency: 4, queue: 4, queue_timeout: 2s, service_time: 1ms}
  - {name: back, concurrency: 4, queue: 4, queue_timeout: 2s, service_time: 10ms}`
		on = ", tier: front"
	}
	return fmt.Sprintf(`
name: answer
duration: 6s
seed: 7%s
chaos:
  - {kind: %s%s, at: 0s, for: 6s}
workload: {kind: oneshot, clients: 4}
strategies:
  - {name: twice, backoff: constant, base: 100ms, max_attempts: 2, timeout: 1s, retry_after: honor}
`, where, kind, on)
}

// TestAnswerTable: every effect, on every wire against the simulator in
// the same protocol, at a single target and at a middle tier, and in the
// proxy's check.
func TestAnswerTable(t *testing.T) {
	for _, c := range answerCases {
		for _, w := range answerWires {
			t.Run(c.name+"/"+w.name, func(t *testing.T) {
				p := scenariotest.Plan(t, w.edit(answerScenario("answer-"+c.name, false)), scenarios.Overrides{})
				checkAnswer(t, c, w.name, p)
			})
		}
		t.Run(c.name+"/tiers", func(t *testing.T) {
			checkAnswer(t, c, "http1", scenariotest.Plan(t, answerScenario("answer-"+c.name, true), scenarios.Overrides{}))
		})
		t.Run(c.name+"/proxy", func(t *testing.T) {
			f := chaos.Timed{Name: c.name, Kind: "answer-" + c.name, For: time.Second, Fault: synthetic{c.apply}}
			e := chaos.EffectOf(f.Fault)
			if uses := e.Uses(); !slices.Contains(uses, c.effect) {
				t.Fatalf("the fault uses %v, not %s", uses, c.effect)
			}
			err := proxy.CheckFault(f)
			if c.proxy && err != nil {
				t.Errorf("the proxy refuses %s: %v", c.effect, err)
			}
			if !c.proxy && err == nil {
				t.Errorf("the proxy takes %s, which it does not apply", c.effect)
			}
		})
	}
}

// checkAnswer runs row c's plan p in the simulator and on wire, and checks
// that the simulator makes what the row says the wire's clients see, and
// the wire what the simulator makes: the same attempts with the same
// outcomes, the work ending within 5 ms of it.
func checkAnswer(t *testing.T, c answerCase, wire string, p *scenarios.Plan) {
	t.Helper()
	outcome, done := c.outcome, c.done
	if seen, ok := c.cannot[wire]; ok {
		outcome, done = seen.outcome, seen.done
	}
	sim := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs[0]
	real := runInBubble(t, p).Summary.Runs[0]
	want := int64(8) // two attempts each, or one that succeeds
	if outcome == "ok" {
		want = 4
	}
	if sim.Attempts != want || sim.Outcomes[outcome] != want {
		t.Errorf("simulator: %d attempts, outcomes %v; want %d attempts, all %s", sim.Attempts, sim.Outcomes, want, outcome)
	}
	if real.Attempts != sim.Attempts || !maps.Equal(real.Outcomes, sim.Outcomes) {
		t.Errorf("%s: %d attempts, outcomes %v; the simulator: %d, %v", wire, real.Attempts, real.Outcomes, sim.Attempts, sim.Outcomes)
	}
	// When the work ended shows the timing side of the answer: its delay,
	// its hang, its Retry-After or pushback.
	if sim.CompletionS == nil || real.CompletionS == nil {
		t.Fatalf("completion: simulator %v, %s %v", sim.CompletionS, wire, real.CompletionS)
	}
	sd, rd := *sim.CompletionS, *real.CompletionS
	if sd < done || sd > done+0.05 || math.Abs(rd-sd) > 0.005 {
		t.Errorf("the work ended at %.3fs in the simulator, %.3fs on %s; want both at %.2fs or up to 50ms later", sd, rd, wire, done)
	}
}

// TestEveryEffectHasARow: each field of chaos.Effect that a fault sets has
// a row in the answer table.
func TestEveryEffectHasARow(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range answerCases {
		covered[c.effect] = true
	}
	ty := reflect.TypeFor[chaos.Effect]()
	for i := range ty.NumField() {
		f := ty.Field(i)
		if f.Name == "Active" || f.Name == "RecoveredAt" {
			continue // the plan's, not a fault's
		}
		name := f.Tag.Get("effect")
		if name == "" {
			name = f.Name
		}
		if !covered[name] {
			t.Errorf("chaos.Effect.%s (%s) has no row in answerCases", f.Name, name)
		}
	}
}
