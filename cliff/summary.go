package cliff

import (
	"math"
	"slices"
)

// Summary is what a search found, from its results so far: a boundary per
// strategy (per line of Y), the cells of its phase map, and what it cost.
type Summary struct {
	X Axis  `json:"x"`
	Y *Axis `json:"y,omitempty"`
	// Runs is the simulated runs the search made; GridRuns the runs a
	// brute-force --set sweep over the same grid, strategies and seeds
	// (--runs as many as the line with the most) makes.
	Runs     int `json:"runs"`
	GridRuns int `json:"grid_runs"`
	// Done says the search asks for no more runs: an interrupted one is
	// not.
	Done       bool       `json:"done"`
	Strategies []Strategy `json:"strategies"`
}

// Strategy is one strategy's answer.
type Strategy struct {
	Name  string `json:"name"`
	Lines []Line `json:"lines"`
	Cells []Cell `json:"cells"`
}

// Line is a boundary along X, at one value of Y with two fields.
type Line struct {
	Y *float64 `json:"y,omitempty"`
	// Complete says every seed's edge is known (an interrupted search
	// leaves lines that are not): only then is Boundary the answer.
	Complete bool `json:"complete"`
	Boundary
	// Cost is, for budget sizing (Spec.Cost), what the safe setting costs.
	Cost *Cost `json:"cost,omitempty"`
}

// Cost is what staying out of collapse costs in success during the fault:
// the mean over the seeds of the success ratio of the requests that began
// during the fault window (whenever they ended), at the safe setting and
// at the ends of the range (nil where no run tells).
type Cost struct {
	Safe   float64  `json:"safe"`
	AtSafe *float64 `json:"at_safe"`
	AtLow  *float64 `json:"at_low"`
	AtHigh *float64 `json:"at_high"`
}

// Summarize returns what the results found so far.
func Summarize(sp Spec, rs []Result) Summary {
	sp = sp.WithDefaults()
	bk := index(rs)
	sum := Summary{X: sp.X, Y: sp.Y, Runs: len(rs), Done: len(Next(sp, rs)) == 0}
	ys := sp.lines(bk)
	seeds := 0
	for s, name := range sp.Strategies {
		st := Strategy{Name: name}
		for _, y := range ys {
			ln := sp.line(bk, s, y)
			seeds = max(seeds, ln.n)
			l := Line{Complete: allDone(ln.edges), Boundary: ln.b}
			if !l.Complete {
				l.Boundary = Boundary{Seeds: ln.n, Down: ln.down}
			}
			if sp.Y != nil {
				v := sp.Y.Value(y)
				l.Y = &v
			}
			if sp.Cost && l.Complete && l.Safe != nil {
				l.Cost = sp.cost(bk, s, y, ln.n, *l.Safe)
			}
			st.Lines = append(st.Lines, l)
		}
		st.Cells = sp.cells(rs, s)
		sum.Strategies = append(sum.Strategies, st)
	}
	gy := 1
	if sp.Y != nil {
		gy = sp.Y.Len()
	}
	sum.GridRuns = sp.X.Len() * gy * len(sp.Strategies) * seeds
	return sum
}

func allDone(edges []edge) bool {
	for _, e := range edges {
		if !e.done {
			return false
		}
	}
	return len(edges) > 0
}

// cost is strategy s's line at y's success during the fault at safe and at
// the range's ends, over its first n seeds.
func (sp Spec) cost(bk book, s, y, n int, safe float64) *Cost {
	mean := func(x int) *float64 {
		sum, k := 0.0, 0
		for seed := range n {
			if r, ok := bk[key{s, y, seed}][x]; ok && r.DuringFault != nil {
				sum += *r.DuringFault
				k++
			}
		}
		if k == 0 {
			return nil
		}
		v := sum / float64(k)
		return &v
	}
	i := int(math.Round((safe - sp.X.Lo) / sp.X.Step))
	return &Cost{Safe: safe, AtSafe: mean(i), AtLow: mean(0), AtHigh: mean(sp.X.Len() - 1)}
}

// cells are strategy s's probed cells, in the order of Y then X.
func (sp Spec) cells(rs []Result, s int) []Cell {
	type xy struct{ x, y int }
	tally := map[xy]*Cell{}
	var order []xy
	for _, r := range rs {
		if r.Strategy != s {
			continue
		}
		k := xy{r.X, r.Y}
		c := tally[k]
		if c == nil {
			c = &Cell{X: sp.X.Value(r.X)}
			if sp.Y != nil {
				v := sp.Y.Value(r.Y)
				c.Y = &v
			}
			tally[k] = c
			order = append(order, k)
		}
		c.Runs++
		if r.Collapsed {
			c.Collapsed++
		}
	}
	slices.SortFunc(order, func(a, b xy) int {
		if a.y != b.y {
			return a.y - b.y
		}
		return a.x - b.x
	})
	out := make([]Cell, len(order))
	for i, k := range order {
		c := tally[k]
		c.Phase = PhaseOf(c.Collapsed, c.Runs)
		out[i] = *c
	}
	return out
}
