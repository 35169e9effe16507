package cliff

import (
	"fmt"
	"math"
	"slices"
)

// Boundary is where one strategy stops recovering along X (at one value of
// Y), over its seeds: the median of the seeds' edges and its 95%
// confidence interval.
type Boundary struct {
	Seeds int `json:"seeds"`
	// Found says the median edge is inside the grid. Without it the
	// fleet collapses (Below) or recovers (Above) at most seeds over the
	// whole range, and Median is the range's end.
	Found  bool    `json:"found"`
	Median float64 `json:"median"`
	// Beyond is, when the median is not Found, what the median seed did
	// over the whole range: recovered (the edge is past the collapsing
	// end) or collapsed (before the recovering end).
	Beyond Phase `json:"beyond,omitempty"`
	// Low and High bound the median's 95% confidence interval; LowOpen
	// (HighOpen) says it runs past the grid's low (high) end.
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	LowOpen  bool    `json:"low_open,omitempty"`
	HighOpen bool    `json:"high_open,omitempty"`
	// Safe is the value nearest the collapsing side at which every seed
	// recovered (and on the recovering side of which every seed did, as
	// far as each seed's runs tell); nil when some seed collapsed over the
	// whole range. Doomed is the value nearest the recovering side at
	// which every seed collapsed; nil when some seed recovered over the
	// whole range. Between them is the uncertain band.
	Safe   *float64 `json:"safe"`
	Doomed *float64 `json:"doomed"`
	// Below counts the seeds that collapsed even at the grid's recovering
	// end, Above those that recovered even at its collapsing end.
	Below int `json:"below"`
	Above int `json:"above"`
	// Down says the fleet collapses at low values (a capacity, a
	// timeout): the grid's high end is its recovering side.
	Down bool `json:"down,omitempty"`
}

// Width returns the width of the median's interval, +Inf when it is open.
func (b Boundary) Width() float64 {
	if b.LowOpen || b.HighOpen {
		return math.Inf(1)
	}
	return b.High - b.Low
}

// boundary computes the boundary from every seed's edge along axis x. The
// edges are in "up" coordinates (0 the recovering end); down maps them back.
func boundary(x Axis, edges []edge, down bool) Boundary {
	g := x.Len()
	n := len(edges)
	b := Boundary{Seeds: n, Down: down}
	pos := make([]float64, n) // each seed's edge, the middle of its bracket
	for i, e := range edges {
		switch {
		case e.below:
			b.Below++
			pos[i] = math.Inf(-1)
		case e.above:
			b.Above++
			pos[i] = math.Inf(1)
		default:
			pos[i] = float64(e.a+e.b) / 2
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case pos[i] < pos[j]:
			return -1
		case pos[i] > pos[j]:
			return 1
		}
		return 0
	})
	// The median, in u.
	m := pos[order[(n-1)/2]]
	if n%2 == 0 {
		m = (m + pos[order[n/2]]) / 2
	}
	b.Found = !math.IsInf(m, 0) && !math.IsNaN(m)
	switch {
	case math.IsInf(m, -1) || math.IsNaN(m):
		m, b.Beyond = 0, Collapsed
	case math.IsInf(m, 1):
		m, b.Beyond = float64(g-1), Recovered
	}
	// The interval: the lower rank's last recovering value, the upper
	// rank's first collapsing one.
	lo, hi, ok := medianRanks(n)
	uLow, uHigh := 0.0, float64(g-1)
	lowOpen, highOpen := true, true
	if ok {
		if e := edges[order[lo]]; !e.below {
			uLow, lowOpen = float64(min(e.a, g-1)), false
		}
		if e := edges[order[hi]]; !e.above {
			uHigh, highOpen = float64(max(e.b, 0)), false
		}
	}
	// Safe and doomed, in u.
	safe, doomed := g-1, 0
	for _, e := range edges {
		switch {
		case e.below:
			safe = -1
		case e.above:
			doomed = g
		default:
			safe = min(safe, e.a)
			doomed = max(doomed, e.b)
		}
	}
	at := func(u float64) float64 {
		if down {
			u = float64(g-1) - u
		}
		return round9(x.Lo + u*x.Step)
	}
	b.Median = at(m)
	if down {
		b.Low, b.High, b.LowOpen, b.HighOpen = at(uHigh), at(uLow), highOpen, lowOpen
	} else {
		b.Low, b.High, b.LowOpen, b.HighOpen = at(uLow), at(uHigh), lowOpen, highOpen
	}
	if safe >= 0 {
		v := at(float64(safe))
		b.Safe = &v
	}
	if doomed < g {
		v := at(float64(doomed))
		b.Doomed = &v
	}
	return b
}

// Phase is what the runs of one cell of the grid did.
type Phase string

// Phases.
const (
	Recovered Phase = "recovered" // every seed run there recovered
	Collapsed Phase = "collapsed" // every seed run there collapsed
	Uncertain Phase = "uncertain" // some of each
)

// Cell is one value of the grid that some run probed, for one strategy:
// what the phase map draws.
type Cell struct {
	X         float64  `json:"x"`
	Y         *float64 `json:"y,omitempty"`
	Runs      int      `json:"runs"`
	Collapsed int      `json:"collapsed"`
	Phase     Phase    `json:"phase"`
}

// PhaseOf returns the phase of a cell where collapsed of runs collapsed.
func PhaseOf(collapsed, runs int) Phase {
	switch collapsed {
	case 0:
		return Recovered
	case runs:
		return Collapsed
	}
	return Uncertain
}

// BoundaryTexts are a boundary in words, on axis x: the median edge ("none:
// recovers" or "none: collapses" when it is not Found), its 95% interval
// ("below"/"above" the grid's end where open), the values every seed
// recovers up to and collapses from with their ≤ or ≥ ("" when none in
// the range), and the seeds. The terminal and the report draw them.
type BoundaryTexts struct {
	Median, Interval, Recovers, Collapses, Seeds string
}

// Texts returns b in words on axis x.
func (b Boundary) Texts(x Axis) BoundaryTexts {
	t := BoundaryTexts{Median: x.Format(b.Median), Seeds: fmt.Sprint(b.Seeds)}
	switch {
	case !b.Found && b.Beyond == Recovered:
		t.Median = "none: recovers"
	case !b.Found:
		t.Median = "none: collapses"
	}
	lo, hi := x.Format(b.Low), x.Format(b.High)
	if b.LowOpen {
		lo = "below " + x.Format(x.Lo)
	}
	if b.HighOpen {
		hi = "above " + x.Format(x.Hi)
	}
	t.Interval = lo + " – " + hi
	recovers, collapses := "≤ ", "≥ "
	if b.Down {
		recovers, collapses = collapses, recovers
	}
	if b.Safe != nil {
		t.Recovers = recovers + x.Format(*b.Safe)
	}
	if b.Doomed != nil {
		t.Collapses = collapses + x.Format(*b.Doomed)
	}
	return t
}
