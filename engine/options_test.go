package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// TestOptionsCheck: the rules of which options go together, one place for
// every caller: each pair refused with what to drop, and what goes
// together passes.
func TestOptionsCheck(t *testing.T) {
	plan := func(extra string) *scenarios.Plan {
		return scenariotest.Plan(t, `
name: pairs
duration: 2s
target: {concurrency: 4, service_time: 1ms}
workload: {kind: closed, clients: 2}
strategies: [{name: a, backoff: full, base: 10ms, cap: 100ms}, {name: b, backoff: none, base: 10ms}]
`+extra, scenarios.Overrides{})
	}
	p := plan("")
	external := plan("")
	external.TargetURL = "http://127.0.0.1:9/"
	repeated := plan("runs: 3\n")
	t0 := time.Now().Add(time.Minute)
	for _, c := range []struct {
		name string
		o    Options
		p    *scenarios.Plan
		want string // a part of the message; "" for none
	}{
		{"real time", Options{}, p, ""},
		{"sim", Options{Mode: Mode{Sim: true}}, p, ""},
		{"slow motion", Options{Mode: Mode{SlowMotion: 4}}, p, ""},
		{"shard", Options{Shard: Shard{Part: clients.Part{Index: 0, Of: 2}, StartAt: t0}}, p, ""},
		{"slow motion in virtual time", Options{Mode: Mode{Sim: true, SlowMotion: 4}}, p, "--sim is never late"},
		{"shard without t0", Options{Shard: Shard{Part: clients.Part{Index: 0, Of: 2}}}, p, "--shard needs --start-at"},
		{"shard in virtual time", Options{Mode: Mode{Sim: true}, Shard: Shard{StartAt: t0}}, p, "--shard and --start-at are for real-time runs"},
		{"shard apart", Options{Mode: Mode{Cohorts: Apart}, Shard: Shard{StartAt: t0}}, p, "--cohorts apart starts each cohort at its own t = 0, and --start-at"},
		{"shard repeated", Options{Shard: Shard{StartAt: t0}}, repeated, "run one run at one instant"},
		{"sim beside a controller", Options{Mode: Mode{Sim: true}, Beside: Beside{ChaosControl: true}}, p, "--chaos-control needs a real-time run"},
		{"sim watched live", Options{Mode: Mode{Sim: true}, Beside: Beside{Live: []string{"--ui", "--otlp"}}}, p, "--ui, --otlp need a real-time run: drop --sim, or drop --ui and --otlp"},
		{"sim external", Options{Mode: Mode{Sim: true}}, external, "an external target (--target, target.url) needs a real-time run"},
		{"slow motion beside a controller", Options{Mode: Mode{SlowMotion: 4}, Beside: Beside{ChaosControl: true}}, p, "which --slow-motion does not slow"},
		{"slow motion external", Options{Mode: Mode{SlowMotion: 4}}, external, "--slow-motion: slow motion (4×)"},
		{"apart beside a controller", Options{Mode: Mode{Cohorts: Apart}, Beside: Beside{ChaosControl: true}}, p, "--chaos-control starts one fault plan"},
	} {
		err := c.o.Check(c.p)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want none", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrOptions)):
			t.Errorf("%s: %v, want an ErrOptions saying %q", c.name, err, c.want)
		}
	}
}

// TestApart: cohorts run apart when asked, or by default when the cores
// are too few, never in virtual time, beside a controller, against an
// external target or alone.
func TestApart(t *testing.T) {
	p := scenariotest.Plan(t, `
name: apart
duration: 2s
target: {concurrency: 4, service_time: 1ms}
workload: {kind: closed, clients: 2}
strategies: [{name: a, backoff: none, base: 10ms}, {name: b, backoff: none, base: 10ms}]
`, scenarios.Overrides{})
	one := *p
	one.Strategies = p.Strategies[:1]
	for _, c := range []struct {
		name string
		o    Options
		p    *scenarios.Plan
		want bool
	}{
		{"together", Options{}, p, false},
		{"apart", Options{Mode: Mode{Cohorts: Apart}}, p, true},
		{"auto", Options{Mode: Mode{Cohorts: Auto}}, p, ApartByDefault(p)},
		{"apart in virtual time", Options{Mode: Mode{Cohorts: Apart, Sim: true}}, p, false},
		{"apart beside a controller", Options{Mode: Mode{Cohorts: Apart}, Beside: Beside{ChaosControl: true}}, p, false},
		{"apart alone", Options{Mode: Mode{Cohorts: Apart}}, &one, false},
	} {
		if got := c.o.Apart(c.p); got != c.want {
			t.Errorf("%s: apart %v, want %v", c.name, got, c.want)
		}
	}
	for name, want := range map[string]Cohorts{"together": Together, "apart": Apart, "auto": Auto} {
		if got, ok := ParseCohorts(name); !ok || got != want {
			t.Errorf("ParseCohorts(%q) = %v, %v", name, got, ok)
		}
	}
	if _, ok := ParseCohorts("sometimes"); ok {
		t.Error("ParseCohorts took an unknown word")
	}
}
