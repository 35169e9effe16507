package cliff

import (
	"slices"
	"time"
)

// NoReturnSpec is a search for the point of no return of one collapsing
// run: the instants at which its state may be continued, in order, and
// how many continuations (fresh randomness, the trigger removed) each
// instant probed gets.
type NoReturnSpec struct {
	Instants []time.Duration
	Runs     int // 0 means 60: the fewest with which 60 collapses of 60 make collapse 95% certain
}

// DefaultContinuations is NoReturnSpec's default Runs.
const DefaultContinuations = 60

// Tally is what the continuations from one instant did.
type Tally struct {
	Runs      int `json:"runs"`
	Collapsed int `json:"collapsed"`
}

func (t Tally) share() float64 { return float64(t.Collapsed) / float64(t.Runs) }

// sure reports whether collapse is surely (95%) 95% likely from there;
// unsure whether it is surely not.
func (t Tally) sure() bool   { return Lower(t.Collapsed, t.Runs) >= Level }
func (t Tally) unsure() bool { return Upper(t.Collapsed, t.Runs) < Level }

// NextInstants returns the instants (indices into Instants) from which to
// run the next continuations, given the tallies so far by instant index;
// none when the search is done. It first runs both ends; if collapse is
// 95% likely at the last, it bisects the instants for the first from
// which it is (by the share of collapses), then walks out from there, in
// doubling steps, to an instant where it is surely not yet (the upper
// bound below 95%) and one where it surely is (the lower bound at or
// above 95%): the interval of the point of no return.
func NextInstants(sp NoReturnSpec, tallies map[int]Tally) []int {
	m := len(sp.Instants) - 1
	if m < 0 {
		return nil
	}
	var ends []int
	for _, i := range []int{0, m} {
		if _, ok := tallies[i]; !ok {
			ends = append(ends, i)
		}
	}
	if len(ends) > 0 {
		return slices.Compact(ends)
	}
	if tallies[m].share() < Level {
		return nil // never 95% likely within the instants
	}
	a, b := bracket(tallies)
	if a >= 0 && b-a > 1 {
		return []int{(a + b) / 2}
	}
	var next []int
	if i, ok := walk(tallies, a, -1, 0, func(t Tally) bool { return t.unsure() }); ok && i >= 0 {
		next = append(next, i)
	}
	if i, ok := walk(tallies, b, +1, m, func(t Tally) bool { return t.sure() }); ok && i >= 0 {
		next = append(next, i)
	}
	return next
}

// bracket returns the last instant probed before b and b, the first
// instant probed at which at least 95% of the continuations collapsed;
// a is -1 when b is the first instant.
func bracket(tallies map[int]Tally) (a, b int) {
	idx := make([]int, 0, len(tallies))
	for i := range tallies {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	b = idx[len(idx)-1]
	for _, i := range idx {
		if tallies[i].share() >= Level {
			b = i
			break
		}
	}
	a = -1
	for _, i := range idx {
		if i < b {
			a = i
		}
	}
	return a, b
}

// walk looks from instant from in direction dir (to the end at end) for
// an instant probed where ok holds: it returns (-1, true) when it found
// one or reached the end, or the next instant to probe: the first one
// not probed at from + dir·(1, 2, 4, ...). from -1 (none) is done.
func walk(tallies map[int]Tally, from, dir, end int, ok func(Tally) bool) (int, bool) {
	if from < 0 {
		return -1, true
	}
	for d := 0; ; d = max(1, 2*d) {
		i := from + dir*d
		if dir*(i-end) > 0 {
			i = end
		}
		t, probed := tallies[i]
		if !probed {
			return i, true
		}
		if ok(t) || i == end {
			return -1, true
		}
	}
}

// NoReturn is the point of no return of one run, from the tallies so far.
type NoReturn struct {
	// Found says collapse is 95% likely from some instant probed on;
	// Instant is the first such, between Low, the last instant at which
	// it is surely not yet (upper bound under 95%), and High, the first
	// at which it surely is (lower bound at least 95%). LowOpen says no
	// instant probed is surely before it, HighOpen none surely after.
	Found    bool          `json:"found"`
	Instant  time.Duration `json:"instant_ns"`
	Low      time.Duration `json:"low_ns"`
	High     time.Duration `json:"high_ns"`
	LowOpen  bool          `json:"low_open,omitempty"`
	HighOpen bool          `json:"high_open,omitempty"`
	Points   []Point       `json:"points"`
	Done     bool          `json:"done"`
}

// Point is one instant probed: how many continuations from it collapsed,
// with the share's one-sided 95% bounds.
type Point struct {
	At time.Duration `json:"at_ns"`
	Tally
	Share float64 `json:"share"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
}

// SummarizeNoReturn returns what the tallies found.
func SummarizeNoReturn(sp NoReturnSpec, tallies map[int]Tally) NoReturn {
	out := NoReturn{Done: len(NextInstants(sp, tallies)) == 0}
	idx := make([]int, 0, len(tallies))
	for i := range tallies {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		t := tallies[i]
		out.Points = append(out.Points, Point{At: sp.Instants[i], Tally: t, Share: t.share(), Lower: Lower(t.Collapsed, t.Runs), Upper: Upper(t.Collapsed, t.Runs)})
	}
	m := len(sp.Instants) - 1
	last, ok := tallies[m]
	if !ok || last.share() < Level {
		return out
	}
	_, b := bracket(tallies)
	out.Found, out.Instant = true, sp.Instants[b]
	out.LowOpen, out.HighOpen = true, true
	for _, i := range idx {
		t := tallies[i]
		if i < b && t.unsure() {
			out.Low, out.LowOpen = sp.Instants[i], false
		}
		if i >= b && t.sure() && out.HighOpen {
			out.High, out.HighOpen = sp.Instants[i], false
		}
	}
	if out.LowOpen {
		out.Low = sp.Instants[0]
	}
	if out.HighOpen {
		out.High = sp.Instants[m]
	}
	return out
}
