package cliff

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// world is a synthetic fleet: seed k of strategy s collapses from its own
// edge on (edge(s, y, k) in X's unit), or below it with down.
type world struct {
	x, y *Axis
	edge func(s, y, seed int) float64
	down bool
}

func (w world) run(p Probe) Result {
	v := w.x.Value(p.X)
	e := w.edge(p.Strategy, p.Y, p.Seed)
	collapsed := v >= e
	if w.down {
		collapsed = v <= e
	}
	s := 1 - v/100 // a success during the fault that falls as X grows
	return Result{Probe: p, Collapsed: collapsed, DuringFault: &s}
}

// search runs the search to its end against w.
func search(t *testing.T, sp Spec, w world) []Result {
	t.Helper()
	var rs []Result
	for round := 0; ; round++ {
		next := Next(sp, rs)
		if len(next) == 0 {
			return rs
		}
		if round > 500 {
			t.Fatal("the search does not end")
		}
		for _, p := range next {
			for _, r := range rs {
				if r.Probe == p {
					t.Fatalf("probe %+v asked for again", p)
				}
			}
			rs = append(rs, w.run(p))
		}
	}
}

// brute is what a sweep over the whole grid finds for strategy s at y
// over seeds: each seed's first collapsing value, and their median.
func brute(w world, s, y, seeds int) (edges []float64, median float64) {
	for k := range seeds {
		first := math.Inf(1)
		for i := range w.x.Len() {
			r := w.run(Probe{Strategy: s, Y: y, X: i, Seed: k})
			if r.Collapsed {
				first = w.x.Value(i)
				break
			}
		}
		edges = append(edges, first)
	}
	sorted := slices.Clone(edges)
	slices.Sort(sorted)
	n := len(sorted)
	return edges, (sorted[(n-1)/2] + sorted[n/2]) / 2
}

// TestSearchAgreesWithTheGrid: on a synthetic fleet whose seeds' edges
// spread around 6.3 s (two strategies, one 3 s later), the search finds
// each seed's edge exactly where a sweep of the whole grid does, its
// median within a step of the sweep's, its interval holding the true
// median in at least 90 of 100 worlds, with a fraction of the sweep's runs.
func TestSearchAgreesWithTheGrid(t *testing.T) {
	x, err := ParseAxis("chaos[blip].for=1s..20s")
	if err != nil {
		t.Fatal(err)
	}
	covered, runs, grid := 0, 0, 0
	for trial := range 100 {
		rng := rand.New(rand.NewPCG(uint64(trial), 9))
		noise := make([]float64, DefaultMaxSeeds)
		for i := range noise {
			noise[i] = rng.NormFloat64() * 0.8
		}
		w := world{x: &x, edge: func(s, _, k int) float64 { return 6.3 + 3*float64(s) + noise[k] }}
		sp := Spec{X: x, Strategies: []string{"naive", "jitter"}}
		rs := search(t, sp, w)
		sum := Summarize(sp, rs)
		if !sum.Done || len(sum.Strategies) != 2 {
			t.Fatalf("summary %+v", sum)
		}
		runs += sum.Runs
		grid += sum.GridRuns
		for s, st := range sum.Strategies {
			b := st.Lines[0]
			if !b.Complete || !b.Found {
				t.Fatalf("trial %d %s: %+v", trial, st.Name, b)
			}
			edges, med := brute(w, s, 0, b.Seeds)
			if math.Abs(b.Median-med) > x.Step/2+1e-9 {
				t.Fatalf("trial %d %s: median %v, the grid's %v", trial, st.Name, b.Median, med)
			}
			if b.Low > med || b.High < med {
				t.Fatalf("trial %d %s: the grid's median %v outside [%v, %v]", trial, st.Name, med, b.Low, b.High)
			}
			// Every seed's edge is where the grid's is.
			bk := index(rs)
			for k, e := range edges {
				r := bk[key{s, 0, k}][int(math.Round((e-x.Lo)/x.Step))]
				if r == nil || !r.Collapsed {
					t.Fatalf("trial %d: seed %d's edge %v was not probed as collapsed", trial, k, e)
				}
			}
			truth := 6.3 + 3*float64(s)
			if b.Low <= truth && truth <= b.High {
				covered++
			}
		}
	}
	if covered < 180 {
		t.Errorf("the intervals held the true median %d times in 200", covered)
	}
	if runs*5 > grid {
		t.Errorf("%d runs against the grid's %d", runs, grid)
	}
	t.Logf("%d runs, the grid %d (%.1f%%); the true median inside the interval %d/200", runs, grid, 100*float64(runs)/float64(grid), covered)
}

// TestSearchAddsSeeds: edges spread wide leave the 16 seeds' interval wider
// than asked, so the search doubles the seeds up to the most; tightly
// spread ones do not.
func TestSearchAddsSeeds(t *testing.T) {
	x, _ := ParseAxis("workload.rate=50..250")
	for _, c := range []struct {
		spread float64
		seeds  int
	}{{0.5, 16}, {40, 64}} {
		rng := rand.New(rand.NewPCG(1, 2))
		noise := make([]float64, 64)
		for i := range noise {
			noise[i] = rng.NormFloat64() * c.spread
		}
		w := world{x: &x, edge: func(_, _, k int) float64 { return 140 + noise[k] }}
		sp := Spec{X: x, Strategies: []string{"s"}}
		b := Summarize(sp, search(t, sp, w)).Strategies[0].Lines[0]
		if b.Seeds != c.seeds {
			t.Errorf("spread %v: %d seeds, want %d (%+v)", c.spread, b.Seeds, c.seeds, b)
		}
	}
}

// TestSearchEnds: a fleet that never collapses on the grid, one that
// always does, and one that collapses at low values (down) are told
// apart.
func TestSearchEnds(t *testing.T) {
	x, _ := ParseAxis("target.concurrency=2..40")
	cases := []struct {
		name  string
		w     world
		check func(b Line) bool
	}{
		{"never", world{x: &x, edge: func(int, int, int) float64 { return 1000 }}, func(b Line) bool {
			return !b.Found && b.Beyond == Recovered && b.Above == b.Seeds && b.HighOpen && b.Doomed == nil && b.Safe != nil && *b.Safe == 40
		}},
		{"always", world{x: &x, edge: func(int, int, int) float64 { return -1 }}, func(b Line) bool {
			return !b.Found && b.Beyond == Collapsed && b.Below == b.Seeds && b.Safe == nil && *b.Doomed == 2
		}},
		{"down", world{x: &x, down: true, edge: func(_, _, k int) float64 { return 11 + float64(k%3) }}, func(b Line) bool {
			return b.Found && b.Down && b.Median == 12.5 && b.Low == 12 && b.High == 13 && *b.Safe == 14 && *b.Doomed == 11
		}},
	}
	for _, c := range cases {
		sp := Spec{X: x, Strategies: []string{"s"}}
		rs := search(t, sp, c.w)
		b := Summarize(sp, rs).Strategies[0].Lines[0]
		if !c.check(b) {
			t.Errorf("%s: %+v safe %v doomed %v", c.name, b, deref(b.Safe), deref(b.Doomed))
		}
		if c.name != "down" && (len(rs) != 2*b.Seeds || b.Seeds != DefaultSeeds) {
			t.Errorf("%s: %d runs: the ends tell it all", c.name, len(rs))
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestTrace: with two fields, the boundary along X moves with Y (at Y's
// low half it is 5, at its high half 15): the trace puts a line between
// the two halves where they differ, and each line's boundary is its own.
func TestTrace(t *testing.T) {
	x, _ := ParseAxis("chaos[blip].for=1s..20s")
	y, _ := ParseAxis("workload.rate=50..130")
	w := world{x: &x, y: &y, edge: func(_, yi, _ int) float64 {
		if y.Value(yi) < 93 {
			return 5
		}
		return 15
	}}
	sp := Spec{X: x, Y: &y, Strategies: []string{"s"}, Seeds: 6}
	rs := search(t, sp, w)
	sum := Summarize(sp, rs)
	lines := sum.Strategies[0].Lines
	if len(lines) < 5 || len(lines) > DefaultLines {
		t.Fatalf("%d lines", len(lines))
	}
	var at5, at15 float64
	for _, l := range lines {
		want := 5.0
		if *l.Y >= 93 {
			want = 15
		}
		if math.Abs(l.Median-want) > x.Step/2+1e-9 {
			t.Errorf("line at %v: median %v, want %v", *l.Y, l.Median, want)
		}
		if want == 5 {
			at5 = max(at5, *l.Y)
		} else if at15 == 0 {
			at15 = *l.Y
		}
	}
	if at15-at5 > y.Step {
		t.Errorf("the lines around the step are at %v and %v: the trace did not close in on it", at5, at15)
	}
	if len(sum.Strategies[0].Cells) == 0 {
		t.Error("no cells")
	}
}

// TestCost: budget sizing runs every seed at the safe setting and reports
// the mean success during the fault there and at the range's ends.
func TestCost(t *testing.T) {
	x, _ := ParseAxis("strategies[naive].budget.budget_percent=0..100/5")
	w := world{x: &x, edge: func(_, _, k int) float64 { return 40 + float64(k%4)*5 }}
	sp := Spec{X: x, Strategies: []string{"naive"}, Cost: true, Seeds: 8}
	rs := search(t, sp, w)
	l := Summarize(sp, rs).Strategies[0].Lines[0]
	if l.Cost == nil || l.Cost.Safe != 35 || math.Abs(*l.Cost.AtSafe-0.65) > 1e-9 || *l.Cost.AtLow != 1 || *l.Cost.AtHigh != 0 {
		t.Fatalf("%+v %+v", l, l.Cost)
	}
}

func TestParseAxis(t *testing.T) {
	good := []struct {
		arg  string
		want Axis
		n    int
		text string
	}{
		{"chaos[blip].for=1s..20s", Axis{Path: "chaos[blip].for", Lo: 1, Hi: 20, Step: 0.2, Unit: Duration}, 96, "1.6s"},
		{"workload.rate=50..300", Axis{Path: "workload.rate", Lo: 50, Hi: 300, Step: 5, Unit: Integer}, 51, "65"},
		{"workload.clients=100..130", Axis{Path: "workload.clients", Lo: 100, Hi: 130, Step: 1, Unit: Integer}, 31, "103"},
		{"x=0.05..0.5", Axis{Path: "x", Lo: 0.05, Hi: 0.5, Step: 0.01, Unit: Number}, 46, "0.08"},
		{"x=0..1/0.3", Axis{Path: "x", Lo: 0, Hi: 0.9, Step: 0.3, Unit: Number}, 4, "0.9"},
		{"chaos[0].for=500ms..2s/250ms", Axis{Path: "chaos[0].for", Lo: 0.5, Hi: 2, Step: 0.25, Unit: Duration}, 7, "1.25s"},
	}
	for _, c := range good {
		a, err := ParseAxis(c.arg)
		if err != nil || a != c.want || a.Len() != c.n || a.Text(3) != c.text {
			t.Errorf("%s: %+v (%d values, 4th %s), %v; want %+v, %d, %s", c.arg, a, a.Len(), a.Text(3), err, c.want, c.n, c.text)
		}
	}
	for _, arg := range []string{"", "x", "=1..2", "x=1", "x=2..1", "x=1s..3", "x=1..2/0", "x=1..2/3", "x=1..3/0.5s", "x=a..b", "x=0..1000000/1"} {
		if _, err := ParseAxis(arg); err == nil {
			t.Errorf("%q: no error", arg)
		}
	}
}

func TestMedianRanks(t *testing.T) {
	for _, c := range []struct{ n, lo, hi int }{{6, 0, 5}, {16, 3, 12}, {64, 23, 40}} {
		lo, hi, ok := medianRanks(c.n)
		if !ok || lo != c.lo || hi != c.hi {
			t.Errorf("n %d: %d, %d, %v; want %d, %d", c.n, lo, hi, ok, c.lo, c.hi)
		}
	}
	if _, _, ok := medianRanks(5); ok {
		t.Error("5 seeds bound a median at 95%")
	}
}
