package cliff

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestNoReturn: continuations from instant t collapse with probability
// p(t), a steep logistic crossing 95% at 6.2 s: the search finds the
// point of no return near it, an interval around it whose low end is
// surely before and high end surely after, with far fewer instants than
// the grid has.
func TestNoReturn(t *testing.T) {
	var instants []time.Duration
	for at := 5 * time.Second; at <= 11*time.Second; at += 100 * time.Millisecond {
		instants = append(instants, at)
	}
	cross := 6.2
	p := func(at time.Duration) float64 {
		// logistic with p(cross) = 0.95
		return 1 / (1 + math.Exp(-(at.Seconds()-cross)*6-math.Log(19)))
	}
	sp := NoReturnSpec{Instants: instants}
	missed := 0
	defer func() {
		if missed > 3 {
			t.Errorf("%d of 20 intervals have an end on the wrong side", missed)
		}
	}()
	for trial := range 20 {
		rng := rand.New(rand.NewPCG(uint64(trial), 5))
		tallies := map[int]Tally{}
		probed := 0
		for {
			next := NextInstants(sp, tallies)
			if len(next) == 0 {
				break
			}
			for _, i := range next {
				if _, again := tallies[i]; again {
					t.Fatalf("instant %d asked for again", i)
				}
				n := DefaultContinuations
				k := 0
				for range n {
					if rng.Float64() < p(instants[i]) {
						k++
					}
				}
				tallies[i] = Tally{Runs: n, Collapsed: k}
				probed++
			}
		}
		nr := SummarizeNoReturn(sp, tallies)
		if !nr.Found || !nr.Done {
			t.Fatalf("trial %d: %+v", trial, nr)
		}
		if d := nr.Instant.Seconds() - cross; math.Abs(d) > 0.6 {
			t.Errorf("trial %d: the point of no return at %s, the truth %v s", trial, nr.Instant, cross)
		}
		if nr.LowOpen || nr.HighOpen || nr.Low > nr.Instant || nr.High < nr.Instant {
			t.Errorf("trial %d: interval %s to %s (open %v %v) around %s", trial, nr.Low, nr.High, nr.LowOpen, nr.HighOpen, nr.Instant)
		}
		// Each end is on its side with 95% confidence: of 20 trials, at
		// most 3 may miss.
		if p(nr.Low) >= 0.95 || p(nr.High) < 0.95 {
			missed++
		}
		if probed > 20 {
			t.Errorf("trial %d: %d instants probed of %d", trial, probed, len(instants))
		}
	}
}

// TestNoReturnNever: a run whose continuations recover as often as not even
// at the last instant has no point of no return; one that collapses from
// the first instant has it there, its interval open below.
func TestNoReturnNever(t *testing.T) {
	sp := NoReturnSpec{Instants: []time.Duration{1, 2, 3, 4, 5}}
	half := map[int]Tally{0: {60, 0}, 4: {60, 30}}
	if next := NextInstants(sp, half); len(next) != 0 {
		t.Fatalf("asks for %v", next)
	}
	if nr := SummarizeNoReturn(sp, half); nr.Found || !nr.Done {
		t.Fatalf("%+v", nr)
	}
	all := map[int]Tally{0: {60, 60}, 4: {60, 60}}
	if next := NextInstants(sp, all); len(next) != 0 {
		t.Fatalf("asks for %v", next)
	}
	if nr := SummarizeNoReturn(sp, all); !nr.Found || nr.Instant != 1 || !nr.LowOpen || nr.HighOpen || nr.High != 1 {
		t.Fatalf("%+v", nr)
	}
}

func TestBounds(t *testing.T) {
	// 60 of 60: the lower bound is 0.05^(1/60) = 0.9513.
	if l := Lower(60, 60); math.Abs(l-math.Pow(0.05, 1.0/60)) > 1e-9 {
		t.Errorf("Lower(60, 60) = %v", l)
	}
	// 0 of 60: the upper bound is 1 - 0.05^(1/60).
	if u := Upper(0, 60); math.Abs(u-(1-math.Pow(0.05, 1.0/60))) > 1e-9 {
		t.Errorf("Upper(0, 60) = %v", u)
	}
	if Lower(59, 60) >= Level || Upper(57, 60) >= 1 {
		t.Error("59 of 60 is surely 95%, or 57 of 60 surely not below 1")
	}
}
