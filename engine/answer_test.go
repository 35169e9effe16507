package engine

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// The answer table: one synthetic fault kind per effect of chaos.Effect,
// registered here, run through the real engine (its HTTP server and swarm
// over an in-memory network, in a synctest bubble) and the simulator, at a
// single target and at the middle tier of a chain, and through the
// proxy's check. Both engines apply the model's answer (chaos.Answer) in
// one function each; the table checks that they make of every effect the
// same attempts with the same outcomes, and that the proxy takes exactly
// the effects it lists. An effect added to chaos.Effect without a row
// here fails TestEveryEffectHasARow.

// answerCase is one row: a fault made of one effect, the outcome its
// clients see on every attempt, and whether the proxy applies it.
type answerCase struct {
	name    string // the fault kind is "answer-" + name
	effect  string // the effect it exercises (chaos.Effect.Uses)
	apply   func(e *chaos.Effect)
	outcome string
	done    float64 // when the last client's work ends, seconds (up to 50 ms later)
	proxy   bool
}

var answerCases = []answerCase{
	{"unavailable", "outage", func(e *chaos.Effect) { e.Outage = chaos.Unavailable }, "http_5xx", 0.1, true},
	{"reset", "outage", func(e *chaos.Effect) { e.Outage = chaos.Reset }, "reset", 0.1, true},
	{"refuse", "outage", func(e *chaos.Effect) { e.Outage = chaos.Refuse }, "refused", 0.1, true},
	{"goaway", "outage", func(e *chaos.Effect) { e.Outage = chaos.Goaway }, "refused", 0.1, true},
	{"blackhole", "blackhole", func(e *chaos.Effect) { e.Blackhole = true }, "timeout", 2.1, true},
	{"delay", "delay", func(e *chaos.Effect) { e.Delays = append(e.Delays, dist.Const(300*time.Millisecond)) }, "ok", 0.3, true},
	{"error-rate", "error-rate", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus = 1, 500 }, "http_5xx", 0.1, true},
	{"error-status", "error-status", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus = 1, 429 }, "http_429", 0.1, true},
	{"retry-after", "retry-after", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus, e.RetryAfter = 1, 503, time.Second }, "http_5xx", 1, true},
	{"capacity", "capacity", func(e *chaos.Effect) { e.Capacity *= 0.5 }, "ok", 0, false},
	{"truncate", "truncate", func(e *chaos.Effect) { e.Truncate = 1 }, "reset", 0.1, false},
	// A gRPC pushback: an HTTP target, in both engines, sends none of it.
	{"grpc-pushback", "grpc-pushback", func(e *chaos.Effect) { e.ErrorRate, e.ErrorStatus, e.Pushback = 1, 429, 250*time.Millisecond }, "http_429", 0.1, false},
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

// TestAnswerTable: every effect, in both engines, at a single target and
// at a middle tier, and in the proxy's check.
func TestAnswerTable(t *testing.T) {
	for _, c := range answerCases {
		for _, tiers := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tiers=%v", c.name, tiers), func(t *testing.T) {
				p := scenariotest.Plan(t, answerScenario("answer-"+c.name, tiers), scenarios.Overrides{})
				sim := execute(t, []*scenarios.Plan{p}, Options{Mode: Mode{Sim: true}})[0].Output.Summary.Runs[0]
				real := runInBubble(t, p).Summary.Runs[0]
				want := int64(8) // two attempts each, or one that succeeds
				if c.outcome == "ok" {
					want = 4
				}
				if sim.Attempts != want || sim.Outcomes[c.outcome] != want {
					t.Errorf("simulator: %d attempts, outcomes %v; want %d attempts, all %s", sim.Attempts, sim.Outcomes, want, c.outcome)
				}
				if real.Attempts != sim.Attempts || !maps.Equal(real.Outcomes, sim.Outcomes) {
					t.Errorf("real engine: %d attempts, outcomes %v; the simulator: %d, %v", real.Attempts, real.Outcomes, sim.Attempts, sim.Outcomes)
				}
				// When the work ended shows the timing side of the
				// answer: its delay, its hang, its Retry-After.
				if sim.CompletionS == nil || real.CompletionS == nil {
					t.Fatalf("completion: simulator %v, real %v", sim.CompletionS, real.CompletionS)
				}
				sd, rd := *sim.CompletionS, *real.CompletionS
				if sd < c.done || sd > c.done+0.05 || math.Abs(rd-sd) > 0.005 {
					t.Errorf("the work ended at %.3fs in the simulator, %.3fs in the real engine; want both at %.2fs or up to 50ms later", sd, rd, c.done)
				}
			})
		}
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
