package scenarios

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

const sweepBase = `name: sw
duration: 10s
seed: 3
chaos:
  - {name: crash, kind: outage, mode: refuse, at: 2s, for: 1s}
  - {name: slow, kind: blip, delay: 50ms, at: 5s, for: 2s}
workload: {kind: closed, clients: 10}
strategies:
  - &common {name: jittered, backoff: exponential, base: 100ms, cap: 2s, timeout: 1s}
  - {<<: *common, name: no-jitter}
  - {name: full, backoff: full}
`

func expand(t *testing.T, src string, o Overrides) ([]*Plan, error) {
	t.Helper()
	s, err := Parse("sw.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s.Expand(o)
}

func set(t *testing.T, args ...string) []Axis {
	t.Helper()
	var out []Axis
	for _, a := range args {
		ax, err := ParseSet(a)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ax)
	}
	return out
}

func TestParsePath(t *testing.T) {
	for _, c := range []struct{ in, canon string }{
		{"workload.clients", "workload.clients"},
		{"strategies[0].jitter", "strategies[0].jitter"},
		{"strategies[no-jitter].base", "strategies[no-jitter].base"},
		{"strategies[ v1.2 ].budget.max_tokens", "strategies[v1.2].budget.max_tokens"},
		{"chaos[1].for", "chaos[1].for"},
		{"target.cold_start.from", "target.cold_start.from"},
	} {
		steps, err := parsePath(c.in)
		if err != nil || pathText(steps) != c.canon {
			t.Errorf("parsePath(%q) = %q, %v; want %q", c.in, pathText(steps), err, c.canon)
		}
	}
	for _, bad := range []string{"", ".clients", "workload.", "workload..clients", "strategies[0", "strategies[]", "strategies[-1].base", "work load", "strategies[0]x"} {
		if _, err := parsePath(bad); !errors.Is(err, errPath) {
			t.Errorf("parsePath(%q) = %v, want a path error", bad, err)
		}
	}
}

func TestParseSet(t *testing.T) {
	a, err := ParseSet(" target.service_time = exponential(5ms), normal(10ms, 2ms) ,10ms")
	if err != nil || a.Path != "target.service_time" || !reflect.DeepEqual(a.Values, []string{"exponential(5ms)", "normal(10ms, 2ms)", "10ms"}) {
		t.Errorf("ParseSet = %+v, %v", a, err)
	}
	for _, bad := range []string{"workload.clients", "=5", "workload.clients=", "workload.clients=1,,2"} {
		if _, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q) accepted", bad)
		}
	}
}

// The cross product: every combination, the first field varying slowest.
func TestPointsAreTheCrossProduct(t *testing.T) {
	got := Points([]Axis{{Path: "a", Values: []string{"1", "2"}}, {Path: "b", Values: []string{"x", "y", "z"}}})
	var labels []string
	for _, p := range got {
		labels = append(labels, results.PointLabel(p))
	}
	want := []string{"a=1, b=x", "a=1, b=y", "a=1, b=z", "a=2, b=x", "a=2, b=y", "a=2, b=z"}
	if !reflect.DeepEqual(labels, want) {
		t.Errorf("points %q, want %q", labels, want)
	}
	if p := Points(nil); len(p) != 1 || p[0] != nil {
		t.Errorf("no axes: %v, want one empty point", p)
	}
}

// A file's sweep and --set together: each point's plan has its values in
// place, by index or by name, in lists and in fields the file lacks; an
// item reached through a YAML alias changes alone.
func TestExpandPutsEachPointsValuesInPlace(t *testing.T) {
	src := sweepBase + "sweep:\n  strategies[0].jitter: [0, 0.5]\n  chaos[crash].for: [1s, 3s]\n"
	plans, err := expand(t, src, Overrides{Set: set(t, "target.concurrency=7", "strategies[no-jitter].base=20ms,40ms")})
	if err != nil {
		t.Fatal(err)
	}
	if len(plans) != 8 {
		t.Fatalf("%d plans, want 2 × 2 × 2", len(plans))
	}
	for i, p := range plans {
		jit := []float64{0, 0.5}[i/4]
		crash := []time.Duration{time.Second, 3 * time.Second}[i/2%2]
		base := []time.Duration{20 * time.Millisecond, 40 * time.Millisecond}[i%2]
		if p.Strategies[0].Backoff.Jitter != jit || p.Chaos.Faults()[0].For != crash || p.Strategies[1].Backoff.Base != base || p.Target.Concurrency != 7 {
			t.Errorf("point %d (%s): jitter %v, crash for %v, no-jitter base %v, concurrency %d", i, results.PointLabel(p.Point), p.Strategies[0].Backoff.Jitter, p.Chaos.Faults()[0].For, p.Strategies[1].Backoff.Base, p.Target.Concurrency)
		}
		if p.Strategies[0].Backoff.Base != 100*time.Millisecond {
			t.Errorf("point %d: the anchored strategy's base moved with its alias: %v", i, p.Strategies[0].Backoff.Base)
		}
		if len(p.Point) != 3 || p.Point[0].Field != "strategies[0].jitter" || p.Point[2].Field != "strategies[no-jitter].base" || len(p.Sweep) != 3 {
			t.Errorf("point %d: settings %v, sweep of %d fields", i, p.Point, len(p.Sweep))
		}
	}
	// The resolved scenario reruns the sweep: the same points.
	again, err := expand(t, string(plans[0].Resolved), Overrides{})
	if err != nil {
		t.Fatalf("%v\n%s", err, plans[0].Resolved)
	}
	if len(again) != 8 || results.PointLabel(again[5].Point) != results.PointLabel(plans[5].Point) || again[5].Strategies[1].Backoff.Base != plans[5].Strategies[1].Backoff.Base {
		t.Errorf("rerunning the resolved scenario: %d points, point 5 %s", len(again), results.PointLabel(again[5].Point))
	}
	if !strings.Contains(string(plans[0].Resolved), "concurrency: 7") {
		t.Errorf("the resolved scenario lacks the fixed value:\n%s", plans[0].Resolved)
	}
}

// sweep: {clients: [...]} (the first form) is workload.clients; --set on a
// field the file sweeps replaces the file's values, and one value fixes it.
func TestSetOverTheFilesSweep(t *testing.T) {
	src := sweepBase + "sweep: {clients: [5, 10, 20]}\n"
	plans, err := expand(t, src, Overrides{})
	if err != nil || len(plans) != 3 || plans[2].Workload.Clients != 20 || plans[2].Point[0].Field != "workload.clients" {
		t.Fatalf("the file's sweep: %d plans, %v", len(plans), err)
	}
	plans, err = expand(t, src, Overrides{Set: set(t, "workload.clients=7,8")})
	if err != nil || len(plans) != 2 || plans[1].Workload.Clients != 8 {
		t.Fatalf("--set over it: %d plans, %v", len(plans), err)
	}
	plans, err = expand(t, src, Overrides{Set: set(t, "workload.clients=7")})
	if err != nil || len(plans) != 1 || plans[0].Workload.Clients != 7 || plans[0].Point != nil || plans[0].Sweep != nil {
		t.Fatalf("one value: %d plans, %v", len(plans), err)
	}
	if strings.Contains(string(plans[0].Resolved), "sweep") {
		t.Errorf("one value left a sweep in the resolved scenario:\n%s", plans[0].Resolved)
	}
	plans, err = expand(t, src, Overrides{Clients: 4})
	if err != nil || len(plans) != 1 || plans[0].Workload.Clients != 4 {
		t.Fatalf("Overrides.Clients over the file's sweep: %d plans, %v", len(plans), err)
	}
}

// Under --strategies a strategy picked by index is named instead (the
// index counts the file's strategies, not those that run); a swept
// strategy left out is refused.
func TestSweepUnderStrategies(t *testing.T) {
	plans, err := expand(t, sweepBase, Overrides{Strategies: []string{"no-jitter"}, Set: set(t, "strategies[1].base=10ms,20ms")})
	if err != nil {
		t.Fatal(err)
	}
	if plans[1].Point[0].Field != "strategies[no-jitter].base" || plans[1].Strategies[0].Backoff.Base != 20*time.Millisecond {
		t.Errorf("point %v: base %v", plans[1].Point, plans[1].Strategies[0].Backoff.Base)
	}
	_, err = expand(t, sweepBase, Overrides{Strategies: []string{"full"}, Set: set(t, "strategies[1].base=10ms,20ms")})
	if err == nil || !strings.Contains(err.Error(), `--set strategies[1].base: --strategies leaves out strategy "no-jitter"`) {
		t.Errorf("a swept strategy left out: %v", err)
	}
}

// Every problem of every point at once, each named by the values that
// have it; problems of the paths themselves before any point is compiled.
func TestSweepProblems(t *testing.T) {
	for _, c := range []struct {
		name string
		src  string
		set  []string
		want []string // each a part of one problem's text
		line int      // the line of the first problem, if a file's
	}{
		{"a value out of range at one point", sweepBase + "sweep:\n  strategies[0].jitter:\n    - 0.5\n    - 1.5\n", nil,
			[]string{"sw.yaml:15: strategies[0].jitter: at strategies[0].jitter=1.5: 1.5; write the share"}, 15},
		{"a bad value named by the one value all its points share", sweepBase, []string{"workload.clients=0,5", "strategies[0].base=10ms,20ms"},
			[]string{"workload.clients: --set: at workload.clients=0: 0 clients would send nothing"}, 0},
		{"a value of the wrong type", sweepBase, []string{"workload.clients=5,many"},
			[]string{`at workload.clients=many: "many" is text, but this field takes a whole number`}, 0},
		{"a field that does not exist, told once", sweepBase, []string{"strategies[0].jiter=0,1"},
			[]string{`strategies[0].jiter: --set: unknown field "jiter" (did you mean "jitter"?)`}, 0},
		{"no such item", sweepBase, []string{"strategies[5].base=1s,2s"},
			[]string{"--set strategies[5].base: strategies has 3 items, numbered from 0: there is no [5]"}, 0},
		{"no such item in the file's sweep", sweepBase + "sweep:\n  chaos[5].for: [1s, 2s]\n", nil,
			[]string{"sw.yaml:13: sweep.chaos[5].for: chaos has 2 items, numbered from 0: there is no [5]"}, 13},
		{"no such name", sweepBase, []string{"chaos[boom].for=1s,2s"},
			[]string{`chaos has no item named "boom"; its names: crash, slow`}, 0},
		{"a whole mapping", sweepBase, []string{"workload=5,6"},
			[]string{"--set workload: workload is a mapping in the scenario; set one value at a time"}, 0},
		{"the seed", sweepBase, []string{"seed=1,2"},
			[]string{"--set seed: seed cannot be swept or set: one root seed serves every point"}, 0},
		{"a path that does not read", sweepBase, []string{"strategies[0.base=1s"},
			[]string{`--set strategies[0.base: "strategies[0.base" opens a [ it never closes`}, 0},
		{"a value twice", sweepBase, []string{"workload.clients=5,6,5"},
			[]string{"--set workload.clients: lists 5 twice"}, 0},
		{"a field set twice", sweepBase, []string{"workload.clients=5,6", "workload.clients=7"},
			[]string{"--set workload.clients: names workload.clients twice"}, 0},
		{"too many points", sweepBase, []string{"workload.clients=1,2,3,4,5,6,7,8,9,10,11", "target.concurrency=1,2,3,4,5,6,7,8,9,10", "target.queue=1,2,3,4,5,6,7,8,9,10"},
			[]string{"the sweep has more than 1000 points (11 × 10 × 10 values"}, 0},
		{"a file's list of one", sweepBase + "sweep:\n  target.queue: [5]\n", nil,
			[]string{"sw.yaml:13: sweep.target.queue: 1 value; a sweep lists two or more"}, 13},
		{"a file's value twice", sweepBase + "sweep:\n  target.queue: [5, 6, 5]\n", nil,
			[]string{"sw.yaml:13: sweep.target.queue[2]: 5 is listed twice (also [0])"}, 13},
	} {
		_, err := expand(t, c.src, Overrides{Set: set(t, c.set...)})
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v, want an *Error", c.name, err)
			continue
		}
		for _, w := range c.want {
			if n := strings.Count(err.Error(), w); n != 1 {
				t.Errorf("%s: %q appears %d times in:\n%v", c.name, w, n, err)
			}
		}
		if c.line > 0 && e.Problems[0].Line != c.line {
			t.Errorf("%s: first problem on line %d, want %d", c.name, e.Problems[0].Line, c.line)
		}
	}
}

// A problem only some points have, with no value they all share and no
// other point has, is told at each of its points.
func TestProblemLabels(t *testing.T) {
	points := Points([]Axis{{Path: "a", Values: []string{"1", "2"}}, {Path: "b", Values: []string{"x", "y"}}})
	p := Problem{Msg: "bad"}
	got := labelled([]occurrence{{p, []int{0, 1, 2, 3}}, {p, []int{2, 3}}, {p, []int{0, 3}}}, points)
	var msgs []string
	for _, g := range got {
		msgs = append(msgs, g.Msg)
	}
	want := []string{"bad", "at a=2: bad", "at a=1, b=x: bad", "at a=2, b=y: bad"}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("labels %q, want %q", msgs, want)
	}
}
