package sim

import (
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// TestQueueOrder checks the queue against a stable sort: events come out
// by time, and in push order among equal times, whatever the mix of pushes
// and pops (time never going back). Even seeds draw few distinct offsets,
// so equal times are common; odd seeds draw distinct times, as a run's
// hops do, so most spreads are of one event (pop's shortcut).
func TestQueueOrder(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
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
				at := now + time.Duration(r.IntN(4))*time.Duration(1<<r.IntN(40))
				if seed%2 == 1 {
					at = now + time.Duration(r.Int64N(1<<30))
				}
				q.push(at, ord<<8) // the arg's low byte is the kind's and the queue's
				pending = append(pending, rec{at, ord << 8})
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

// TestQueueSoon checks the prefetch's lookahead: every event is handed out
// as imminent at most once, before it is popped, and comes out within
// soonMax pops plus the pushes made meanwhile; and most events are
// handed out (a lookahead that names nothing buys nothing).
func TestQueueSoon(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	q := queue{ahead: true}
	type mark struct{ pops, pushes int }
	handed := map[uint64]mark{}
	var now time.Duration
	var ord uint64
	var pops, pushes, named int
	for step := 0; step < 20000; step++ {
		if q.len() == 0 || r.IntN(2) > 0 {
			q.push(now+time.Duration(r.IntN(1<<20)), ord<<8)
			ord++
			pushes++
			continue
		}
		e := q.pop()
		pops++
		now = e.at
		for _, a := range q.soon {
			a &^= soonMark
			if _, dup := handed[a]; dup {
				t.Fatalf("event #%d handed out twice", a>>8)
			}
			handed[a] = mark{pops, pushes}
		}
		if m, ok := handed[e.arg]; ok {
			named++
			if pops-m.pops > soonMax+pushes-m.pushes {
				t.Fatalf("event #%d popped %d pops and %d pushes after it was handed out", e.arg>>8, pops-m.pops, pushes-m.pushes)
			}
			delete(handed, e.arg)
		}
	}
	if named < pops/2 {
		t.Fatalf("%d of %d popped events were handed out first", named, pops)
	}
}

// A full bucket grows to twice its capacity, keeping its events in order;
// one with room is handed back as it is.
func TestRoomyDoubles(t *testing.T) {
	var b []event
	for i := range 10_000 {
		before := cap(b)
		full := len(b) == cap(b)
		b = append(roomy(b), event{at: time.Duration(i), arg: uint64(i)})
		if full && cap(b) < 2*before {
			t.Fatalf("a full bucket of %d grew to %d, want at least %d", before, cap(b), 2*before)
		}
		if !full && cap(b) != before {
			t.Fatalf("a bucket with room (%d of %d) was copied to %d", len(b)-1, before, cap(b))
		}
	}
	for i, e := range b {
		if e.at != time.Duration(i) || e.arg != uint64(i) {
			t.Fatalf("event %d is %+v after growing", i, e)
		}
	}
}
