package seeds

import (
	"math/rand/v2"
	"testing"
)

// TestRepIsPinned: repetition seeds are part of what a seed reproduces
// (summary.json's seeds): the mix must never change.
func TestRepIsPinned(t *testing.T) {
	for _, c := range []struct {
		root uint64
		rep  int
		want uint64
	}{
		{7, 0, 7},
		{7, 1, 3511274219185729},
		{7, 2, 151215513962380},
		{0, 0, 0},
	} {
		if got := Rep(c.root, c.rep); got != c.want {
			t.Errorf("Rep(%d, %d) = %d, want %d", c.root, c.rep, got, c.want)
		}
	}
	seen := map[uint64]bool{}
	for rep := range 1000 {
		s := Rep(42, rep)
		if seen[s] || s >= 1<<53 {
			t.Fatalf("Rep(42, %d) = %d: repeated, or above 53 bits", rep, s)
		}
		seen[s] = true
	}
}

// TestStreamsRepeatAndDiffer: one (seed, id) gives the same numbers every
// time; another seed or another id gives others.
func TestStreamsRepeatAndDiffer(t *testing.T) {
	draw := func(r *rand.Rand) [4]uint64 { return [4]uint64{r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64()} }
	a := draw(Stream(7, Client(3)))
	if b := draw(Stream(7, Client(3))); a != b {
		t.Fatalf("one stream drew %v then %v", a, b)
	}
	for _, other := range []*rand.Rand{Stream(8, Client(3)), Stream(7, Client(4)), Stream(7, Target), Stream(7, Arrivals)} {
		if draw(other) == a {
			t.Errorf("two streams drew the same numbers: %v", a)
		}
	}
	if Target == Arrivals || Target < 1<<32 || Arrivals < 1<<32 {
		t.Errorf("Target %d and Arrivals %d must differ and stay clear of every client id", Target, Arrivals)
	}
}

// TestPlaceIsStream: a stream placed in memory draws what Stream draws, and
// placing one allocates nothing.
func TestPlaceIsStream(t *testing.T) {
	var r rand.Rand
	var src rand.PCG
	Place(&r, &src, 7, Client(5))
	want := Stream(7, Client(5))
	for i := range 100 {
		if g, w := r.Uint64(), want.Uint64(); g != w {
			t.Fatalf("draw %d: placed %d, Stream %d", i, g, w)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Place(&r, &src, 9, Client(1)) }); n != 0 {
		t.Errorf("Place allocated %.0f times, want 0", n)
	}
}

func TestResolve(t *testing.T) {
	flag, file := uint64(3), uint64(0)
	if got := Resolve(&flag, &file); got != 3 {
		t.Errorf("Resolve(flag 3, file 0) = %d, want the flag's", got)
	}
	if got := Resolve(nil, &file); got != 0 {
		t.Errorf("Resolve(nil, file 0) = %d, want the file's 0", got)
	}
	a, b := Resolve(nil, nil), Resolve()
	if a == b || a >= 1<<53 || b >= 1<<53 {
		t.Errorf("two drawn seeds %d and %d: want different, below 2^53", a, b)
	}
}

// TestTierIDsApart: the streams of a chain's tiers and of their calls are
// clear of every client's, of Arrivals and Target, and of each other's.
func TestTierIDsApart(t *testing.T) {
	const maxClients = 10_000_000 // scenarios.MaxClients
	ids := map[uint64]string{Target: "Target", Arrivals: "Arrivals"}
	add := func(id uint64, what string) {
		if prev, dup := ids[id]; dup {
			t.Fatalf("%s and %s have the same stream id %d", what, prev, id)
		}
		if id < maxClients {
			t.Fatalf("%s's id %d is a client's", what, id)
		}
		ids[id] = what
	}
	for k := range 8 {
		add(TierTarget(k), "TierTarget")
		for _, n := range []int{0, 1, 1 << 30, 1<<40 - 1} {
			add(Call(k, n), "Call")
		}
	}
	if Call(7, 1<<40-1) >= Arrivals {
		t.Errorf("Call ids reach Arrivals")
	}
}
