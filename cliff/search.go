package cliff

import (
	"math"
	"slices"
)

// Spec is a cliff search: what it varies, for which strategies, and how
// sure it must be.
type Spec struct {
	X Axis  // the field bisected
	Y *Axis // a second field, traced over lines (nil: one field)
	// Strategies are the cohorts searched, by name; a Probe names one by
	// its index here.
	Strategies []string
	Seeds      int     // seeds every line starts with; 0 means 16
	MaxSeeds   int     // the most seeds a line may get; 0 means 64
	Width      float64 // the widest 95% interval of a boundary wanted, in X's unit; 0 means 5% of X's range, at least 2 steps
	Lines      int     // the most lines of a trace over Y; 0 means 9
	// Cost asks, once a line's boundary is found, for every seed's run at
	// the most permissive value at which every seed recovered (budget
	// sizing: what staying out of collapse costs).
	Cost bool
}

// Defaults.
const (
	DefaultSeeds    = 16
	DefaultMaxSeeds = 64
	DefaultLines    = 9
)

// WithDefaults returns sp with its zero settings given their defaults.
func (sp Spec) WithDefaults() Spec {
	if sp.Seeds <= 0 {
		sp.Seeds = DefaultSeeds
	}
	if sp.MaxSeeds <= 0 {
		sp.MaxSeeds = DefaultMaxSeeds
	}
	sp.MaxSeeds = max(sp.MaxSeeds, sp.Seeds)
	if sp.Width <= 0 {
		sp.Width = max((sp.X.Hi-sp.X.Lo)/20, 2*sp.X.Step)
	}
	if sp.Lines <= 0 {
		sp.Lines = DefaultLines
	}
	sp.Lines = max(sp.Lines, 3)
	return sp
}

// Probe is one simulated run the search asks for: strategy Strategy (an
// index in Spec.Strategies) at the X grid's value X and the Y grid's value
// Y (0 with one field), with the seed of repetition Seed of the root seed
// (seeds.Rep), as a --set sweep with --runs repeats a point.
type Probe struct {
	Strategy int `json:"strategy"`
	Y        int `json:"y"`
	X        int `json:"x"`
	Seed     int `json:"seed"`
}

// Result is what a probe's run did.
type Result struct {
	Probe
	// Collapsed says the run never recovered within it (its recovery_s is
	// null).
	Collapsed bool     `json:"collapsed"`
	RecoveryS *float64 `json:"recovery_s"`
	// DuringFault is the success ratio of the requests that began during
	// the fault window, however late they ended (within the run); nil
	// when none did.
	DuringFault *float64 `json:"success_during_fault"`
}

// key is a line of one strategy and one seed: its outcomes along X.
type key struct{ s, y, seed int }

// book holds the results by line and seed: each X value's outcome and
// result.
type book map[key]map[int]*Result

func index(rs []Result) book {
	bk := book{}
	for i := range rs {
		r := &rs[i]
		k := key{r.Strategy, r.Y, r.Seed}
		if bk[k] == nil {
			bk[k] = map[int]*Result{}
		}
		bk[k][r.X] = r
	}
	return bk
}

// edge is where one seed's run stops recovering along a line, in "up"
// coordinates (u: 0 is the recovering end of the grid): a is the last
// value that recovered and b the first that collapsed, neighbours once
// found; below says it collapsed already at u = 0, above that it still
// recovered at the last value.
type edge struct {
	a, b         int
	below, above bool
	done         bool
	next         []int // u values to run next
}

// seedEdge bisects one seed's line: outcome(u) is what is known at u.
func seedEdge(g int, outcome func(u int) (collapsed, known bool)) edge {
	c0, k0 := outcome(0)
	cg, kg := outcome(g - 1)
	if !k0 || !kg {
		var e edge
		if !k0 {
			e.next = append(e.next, 0)
		}
		if !kg {
			e.next = append(e.next, g-1)
		}
		return e
	}
	switch {
	case c0:
		return edge{a: -1, b: 0, below: true, done: true}
	case !cg:
		return edge{a: g - 1, b: g, above: true, done: true}
	}
	b := g - 1
	for u := 1; u < g-1; u++ {
		if c, ok := outcome(u); ok && c {
			b = u
			break
		}
	}
	a := 0
	for u := b - 1; u > 0; u-- {
		if c, ok := outcome(u); ok && !c {
			a = u
			break
		}
	}
	if b-a > 1 {
		return edge{a: a, b: b, next: []int{(a + b) / 2}}
	}
	return edge{a: a, b: b, done: true}
}

// line is the search along X of one strategy at one value of Y.
type line struct {
	s, y  int
	n     int  // seeds in use
	down  bool // the fleet collapses at low values of X
	edges []edge
	done  bool // every seed's edge found (and, with Cost, the cost's runs made)
	b     Boundary
	next  []Probe
}

// line runs the search's rules on strategy s's line at y.
func (sp Spec) line(bk book, s, y int) line {
	g := sp.X.Len()
	ln := line{s: s, y: y, n: sp.Seeds}
	for seed := range sp.MaxSeeds {
		if bk[key{s, y, seed}] != nil {
			for ln.n <= seed {
				ln.n = min(2*ln.n, sp.MaxSeeds)
			}
		}
	}
	ln.down = sp.orientation(bk, s, y, ln.n)
	for {
		ln.edges = ln.edges[:0]
		all := true
		for seed := range ln.n {
			outcomes := bk[key{s, y, seed}]
			e := seedEdge(g, func(u int) (bool, bool) {
				r, ok := outcomes[ln.x(g, u)]
				return ok && r.Collapsed, ok
			})
			ln.edges = append(ln.edges, e)
			for _, u := range e.next {
				ln.next = append(ln.next, Probe{Strategy: s, Y: y, X: ln.x(g, u), Seed: seed})
			}
			all = all && e.done
		}
		if !all {
			return ln
		}
		ln.b = boundary(sp.X, ln.edges, ln.down)
		// More seeds narrow the median's interval; they do not move a
		// median that lies beyond the grid's end into it.
		if !ln.b.Found || ln.b.Width() <= sp.Width || ln.n >= sp.MaxSeeds {
			break
		}
		ln.n = min(2*ln.n, sp.MaxSeeds)
	}
	ln.done = true
	if sp.Cost && ln.b.Safe != nil {
		safe := int(math.Round((*ln.b.Safe - sp.X.Lo) / sp.X.Step))
		for seed := range ln.n {
			if _, ok := bk[key{s, y, seed}][safe]; !ok {
				ln.next = append(ln.next, Probe{Strategy: s, Y: y, X: safe, Seed: seed})
				ln.done = false
			}
		}
	}
	return ln
}

// x returns the grid index of u on the line.
func (ln *line) x(g, u int) int {
	if ln.down {
		return g - 1 - u
	}
	return u
}

// orientation says whether strategy s's line at y collapses at X's low
// end rather than at its high end: so for more of its first n seeds whose
// both ends are known (a capacity, a timeout: more is safer); otherwise
// high values collapse (a fault's length, a rate, a client count, a
// budget's share).
func (sp Spec) orientation(bk book, s, y, n int) bool {
	up, down := 0, 0
	g := sp.X.Len()
	for seed := range n {
		o := bk[key{s, y, seed}]
		lo, okl := o[0]
		hi, okh := o[g-1]
		if !okl || !okh {
			continue
		}
		switch {
		case !lo.Collapsed && hi.Collapsed:
			up++
		case lo.Collapsed && !hi.Collapsed:
			down++
		}
	}
	return down > up
}

// Next returns the runs the search wants next, given every result so far:
// none when it is done. The order is fixed (by line, strategy, seed,
// value), and so is everything it decides: the same results always ask
// for the same runs.
func Next(sp Spec, rs []Result) []Probe {
	sp = sp.WithDefaults()
	bk := index(rs)
	var out []Probe
	for _, y := range sp.lines(bk) {
		for s := range sp.Strategies {
			ln := sp.line(bk, s, y)
			out = append(out, ln.next...)
		}
	}
	slices.SortFunc(out, func(a, b Probe) int {
		if a.Y != b.Y {
			return a.Y - b.Y
		}
		if a.Strategy != b.Strategy {
			return a.Strategy - b.Strategy
		}
		if a.Seed != b.Seed {
			return a.Seed - b.Seed
		}
		return a.X - b.X
	})
	return slices.Compact(out)
}

// lines returns the Y values (grid indices) of the search's lines: one
// without Y; with it, the ends and the middle, every line that has
// results, and a line midway between two neighbours, both found for
// every strategy, whose boundaries differ by more than the width asked
// (or of which one is inside the grid and the other not), up to the most
// lines.
func (sp Spec) lines(bk book) []int {
	if sp.Y == nil {
		return []int{0}
	}
	gy := sp.Y.Len()
	set := map[int]bool{0: true, gy - 1: true, (gy - 1) / 2: true}
	for k := range bk {
		set[k.y] = true
	}
	for {
		ys := sortedKeys(set)
		added := false
		for i := 0; i+1 < len(ys) && len(set) < sp.Lines; i++ {
			y1, y2 := ys[i], ys[i+1]
			if y2-y1 < 2 || !sp.differ(bk, y1, y2) {
				continue
			}
			set[(y1+y2)/2] = true
			added = true
		}
		if !added || len(set) >= sp.Lines {
			return sortedKeys(set)
		}
	}
}

// differ reports whether the lines at y1 and y2 are both found for every
// strategy and some strategy's boundaries differ between them by more
// than the width asked.
func (sp Spec) differ(bk book, y1, y2 int) bool {
	diff := false
	for s := range sp.Strategies {
		a, b := sp.line(bk, s, y1), sp.line(bk, s, y2)
		if !a.done || !b.done {
			return false
		}
		switch {
		case a.b.Found != b.b.Found:
			diff = true
		case a.b.Found && math.Abs(a.b.Median-b.b.Median) > sp.Width:
			diff = true
		}
	}
	return diff
}

func sortedKeys(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Remaining estimates how many more runs the search makes: for every seed
// of a line not yet found, the bisection's steps left (its ends and
// log2 of its grid when it has not begun). Progress bars show it; lines
// and seeds the search adds later are not in it.
func Remaining(sp Spec, rs []Result) int {
	sp = sp.WithDefaults()
	bk := index(rs)
	g := sp.X.Len()
	n := 0
	for _, y := range sp.lines(bk) {
		for s := range sp.Strategies {
			ln := sp.line(bk, s, y)
			for _, e := range ln.edges {
				switch {
				case e.done:
				case len(e.next) > 0 && (e.next[0] == 0 || e.next[0] == g-1):
					n += len(e.next) + int(math.Ceil(math.Log2(float64(g))))
				default:
					n += int(math.Ceil(math.Log2(float64(max(2, e.b-e.a)))))
				}
			}
			if ln.done {
				continue
			}
			if sp.Cost && len(ln.edges) > 0 {
				n += ln.n
			}
		}
	}
	return n
}
