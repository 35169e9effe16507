package clients

import (
	"errors"
	"testing"
)

// TestPartIsAPartition: for N = 1 to 8, every client id (and arrival) of a
// cohort belongs to exactly one of the N shards, the ids a shard walks
// (First, Step) are the ones it owns, Count counts them, and Local numbers
// each shard's ids 0, 1, 2, ...
func TestPartIsAPartition(t *testing.T) {
	const ids = 1000
	for n := 1; n <= 8; n++ {
		owners := make([]int, ids)
		total := 0
		for k := 0; k < n; k++ {
			p := Part{Index: k, Of: n}
			walked := 0
			for id := p.First(); id < ids; id += p.Step() {
				if !p.Owns(id) {
					t.Fatalf("%s walks id %d, which it does not own", p, id)
				}
				if p.Local(id) != walked {
					t.Fatalf("%s: Local(%d) = %d, want %d", p, id, p.Local(id), walked)
				}
				walked++
			}
			for id := 0; id < ids; id++ {
				if p.Owns(id) {
					owners[id]++
				}
			}
			if c := p.Count(ids); c != walked {
				t.Errorf("%s: Count(%d) = %d, walked %d", p, ids, c, walked)
			}
			for small := 0; small < 3*n; small++ {
				want := 0
				for id := 0; id < small; id++ {
					if p.Owns(id) {
						want++
					}
				}
				if got := p.Count(small); got != want {
					t.Errorf("%s: Count(%d) = %d, want %d", p, small, got, want)
				}
			}
			total += walked
		}
		for id, o := range owners {
			if o != 1 {
				t.Fatalf("N = %d: id %d belongs to %d shards", n, id, o)
			}
		}
		if total != ids {
			t.Errorf("N = %d: the shards walk %d ids in all, want %d", n, total, ids)
		}
	}
	var whole Part
	if !whole.Whole() || whole.Count(10) != 10 || whole.First() != 0 || whole.Step() != 1 || !whole.Owns(7) {
		t.Errorf("the zero Part is not the whole run: %+v", whole)
	}
}

func TestParsePart(t *testing.T) {
	for in, want := range map[string]Part{"0/1": {0, 1}, "2/3": {2, 3}, " 6 / 7 ": {6, 7}, "0/10000": {0, 10000}} {
		got, err := ParsePart(in)
		if err != nil || got != want {
			t.Errorf("ParsePart(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "3", "3/3", "-1/3", "1/0", "a/3", "1/10001", "1/2/3"} {
		if _, err := ParsePart(in); !errors.Is(err, ErrPart) {
			t.Errorf("ParsePart(%q): err %v, want ErrPart", in, err)
		}
	}
}
