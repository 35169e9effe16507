package drive

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/scenarios"
)

func open(t *testing.T, name string, seed uint64, set ...string) (*scenarios.Opened, []scenarios.Axis) {
	t.Helper()
	var fixed []scenarios.Axis
	for _, s := range set {
		a, err := scenarios.ParseSet(s)
		if err != nil {
			t.Fatal(err)
		}
		fixed = append(fixed, a)
	}
	op, err := scenarios.Open(name, scenarios.Overrides{Seed: &seed, Set: fixed})
	if err != nil {
		t.Fatal(err)
	}
	return op, fixed
}

// sweep is what a brute-force --set sweep over x's whole grid finds with
// --runs seeds: for each strategy, seed and value, whether the run
// collapsed.
func sweep(t *testing.T, name string, seed uint64, x cliff.Axis, strategies []string, seeds int) map[string][][]bool {
	t.Helper()
	set := scenarios.Axis{Path: x.Path, Values: x.Values(), Origin: "--set"}
	a, err := scenarios.ParseSet(set.Path + "=" + strings.Join(set.Values, ","))
	if err != nil {
		t.Fatal(err)
	}
	op, err := scenarios.Open(name, scenarios.Overrides{Seed: &seed, Set: []scenarios.Axis{a}, Runs: seeds, Strategies: strategies})
	if err != nil {
		t.Fatal(err)
	}
	pts, err := engine.Execute(context.Background(), op.Plans, engine.Options{Mode: engine.Mode{Sim: true, Runs: seeds}})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]bool{}
	for si, s := range strategies {
		out[s] = make([][]bool, seeds)
		for k := range seeds {
			for _, pt := range pts {
				out[s][k] = append(out[s][k], Collapsed(pt.Plan, si, engine.Window(pt.Plan), pt.Repetitions[si][k].RecoveryS))
			}
		}
	}
	return out
}

// TestSearchAgreesWithTheSweep: on metastable (the blip's length) and on
// the outage (the client count), every run the search made collapsed or
// recovered as the same value and seed did in a --set sweep of the whole
// grid with as many --runs, and the sweep's boundary (the median over
// the seeds of each one's first collapsing value) lies within the
// interval the search reports, with fewer runs than the sweep made.
func TestSearchAgreesWithTheSweep(t *testing.T) {
	cases := []struct {
		scenario, vary string
		strategies     []string
	}{
		{"metastable", "chaos[blip].for=0.5s..8s/0.5s", []string{"naive", "full-jitter"}},
		{"outage", "workload.clients=1200..2800/100", []string{"full-jitter"}},
	}
	const seeds = 8
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			if underRace && c.scenario == "outage" {
				t.Skip("the outage's sweep is the model's figures: without -race only")
			}
			x, err := cliff.ParseAxis(c.vary)
			if err != nil {
				t.Fatal(err)
			}
			op, _ := open(t, c.scenario, 7)
			sp := cliff.Spec{X: x, Strategies: c.strategies, Seeds: seeds, MaxSeeds: seeds}
			rs, err := (&Search{Scenario: op, Spec: sp}).Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			grid := sweep(t, c.scenario, 7, x, c.strategies, seeds)
			for _, r := range rs {
				if want := grid[c.strategies[r.Strategy]][r.Seed][r.X]; r.Collapsed != want {
					t.Errorf("%s at %s, seed %d: the search's run collapsed %v, the sweep's %v", c.strategies[r.Strategy], x.Text(r.X), r.Seed, r.Collapsed, want)
				}
			}
			sum := cliff.Summarize(sp, rs)
			for si, st := range sum.Strategies {
				b := st.Lines[0]
				med := sweepMedian(x, grid[c.strategies[si]])
				t.Logf("%s: boundary %v in [%v, %v]; the sweep's %v", st.Name, b.Median, b.Low, b.High, med)
				if !b.Found || med < b.Low || med > b.High {
					t.Errorf("%s: the sweep's boundary %v is outside the search's interval [%v, %v]", st.Name, med, b.Low, b.High)
				}
			}
			if sum.Runs >= sum.GridRuns/2 {
				t.Errorf("%d runs, the sweep's %d", sum.Runs, sum.GridRuns)
			}
		})
	}
}

// sweepMedian is a sweep's boundary: the median over the seeds of the
// middle of each one's edge (its last recovering value before its first
// collapsing one).
func sweepMedian(x cliff.Axis, seeds [][]bool) float64 {
	var edges []float64
	for _, runs := range seeds {
		e := math.Inf(1)
		for i, collapsed := range runs {
			if collapsed {
				e = x.Value(i) - x.Step/2
				if i == 0 {
					e = math.Inf(-1)
				}
				break
			}
		}
		edges = append(edges, e)
	}
	slices.Sort(edges)
	n := len(edges)
	return (edges[(n-1)/2] + edges[n/2]) / 2
}

// TestSearchInterrupted: a search whose context ends midway returns the
// runs that ended, with the context's error, every one a whole run, and
// resumes from them to the same answer as a search never interrupted.
func TestSearchInterrupted(t *testing.T) {
	x, _ := cliff.ParseAxis("chaos[blip].for=0.5s..8s/0.5s")
	op, _ := open(t, "metastable", 7)
	sp := cliff.Spec{X: x, Strategies: []string{"naive"}, Seeds: 6, MaxSeeds: 6}
	ctx, cancel := context.WithCancel(context.Background())
	sr := &Search{Scenario: op, Spec: sp, Workers: 2, Progress: func(done, _ int) {
		if done >= 10 {
			cancel()
		}
	}}
	part, err := sr.Run(ctx, nil)
	if !errors.Is(err, context.Canceled) || len(part) < 10 || len(part) >= len(cliff.Next(sp, nil))+30 {
		t.Fatalf("%d results, %v", len(part), err)
	}
	if cliff.Summarize(sp, part).Done {
		t.Fatal("an interrupted search says it is done")
	}
	whole, err := (&Search{Scenario: op, Spec: sp}).Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := (&Search{Scenario: op, Spec: sp}).Run(context.Background(), part)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(cliff.Summarize(sp, whole).Strategies)
	b, _ := json.Marshal(cliff.Summarize(sp, resumed).Strategies)
	if string(a) != string(b) {
		t.Fatalf("resumed %s, whole %s", b, a)
	}
}

// TestSearchRefusesBadInput: a field that does not exist, a range whose
// end the scenario refuses, a strategy it lacks and a scenario without a
// fault are told before any run, each in the scenario's own words.
func TestSearchRefusesBadInput(t *testing.T) {
	op, _ := open(t, "metastable", 7)
	cases := []struct{ vary, strategy, want string }{
		{"chaos[blip].forr=1s..3s", "naive", "forr"},
		{"chaos[blip].for=1s..30s", "naive", "at chaos[blip].for=30s"},
		{"chaos[blip].for=1s..3s", "nope", `no strategy "nope"`},
	}
	for _, c := range cases {
		x, err := cliff.ParseAxis(c.vary)
		if err != nil {
			t.Fatal(err)
		}
		err = (&Search{Scenario: op, Spec: cliff.Spec{X: x, Strategies: []string{c.strategy}}}).Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.vary, err, c.want)
		}
	}
	calm, _ := open(t, "aws-contention", 7)
	x, _ := cliff.ParseAxis("workload.clients=10..100")
	if err := (&Search{Scenario: calm, Spec: cliff.Spec{X: x, Strategies: []string{"none"}}}).Check(); err == nil || !strings.Contains(err.Error(), "no fault") {
		t.Errorf("a scenario without a fault: %v", err)
	}
}
