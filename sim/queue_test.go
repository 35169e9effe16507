package sim

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// TestQueueOrder checks the queue against a stable sort: events come out
// by time, and in push order among equal times, whatever the mix of pushes
// and pops (time never going back).
func TestQueueOrder(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var q queue
		type rec struct {
			at  time.Duration
			ord uint64
		}
		var pending []rec
		var now time.Duration
		var ord uint64
		for step := 0; step < 1000; step++ {
			if len(pending) == 0 || r.IntN(3) > 0 {
				// Few distinct offsets, so equal times are common.
				at := now + time.Duration(r.IntN(4))*time.Duration(1<<r.IntN(40))
				q.push(at, ord)
				pending = append(pending, rec{at, ord})
				ord++
				continue
			}
			sort.SliceStable(pending, func(i, j int) bool { return pending[i].at < pending[j].at })
			want := pending[0]
			pending = pending[1:]
			got := q.pop()
			if got.at != want.at || got.arg != want.ord {
				t.Fatalf("seed %d step %d: popped (%d, #%d), want (%d, #%d)", seed, step, got.at, got.arg, want.at, want.ord)
			}
			now = got.at
			if q.len() != len(pending) {
				t.Fatalf("len %d, want %d", q.len(), len(pending))
			}
		}
	}
}

func TestPack(t *testing.T) {
	e := event{arg: pack(evTimeout, 1<<24+5, 1<<31+3)}
	if e.kind() != evTimeout || e.gen() != 5 || e.index() != 1<<31+3 {
		t.Fatalf("unpacked %v %d %d", e.kind(), e.gen(), e.index())
	}
}

func TestPushInThePastPanics(t *testing.T) {
	var q queue
	q.push(10, 0)
	q.pop()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	q.push(9, 0)
}
