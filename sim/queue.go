package sim

import (
	"math"
	"math/bits"
	"time"
)

// event is one scheduled happening. arg packs the kind (8 bits), the
// client's attempt generation (24 bits) and an index (32 bits): a client
// slot, or a job in the job registry.
type event struct {
	at  time.Duration
	arg uint64
}

func (e event) kind() kind    { return kind(e.arg & kindMask) }
func (e event) gen() uint32   { return uint32(e.arg>>8) & genMask }
func (e event) index() uint32 { return uint32(e.arg >> 32) }

const genMask = 1<<24 - 1

// kindMask takes the kind out of an event's arg; the top bit of its byte
// is the queue's mark of an event already handed out as soon (see
// queue.soon).
const (
	kindMask = 0x7f
	soonMark = 0x80
)

func pack(k kind, gen uint32, index uint32) uint64 {
	return uint64(k) | uint64(gen&genMask)<<8 | uint64(index)<<32
}

// queue is the event queue: a radix heap. It pops events in time order and
// events of equal time in the order they were pushed (first in, first
// out), so the order never depends on the queue's layout.
//
// A radix heap works because simulated time never goes back: every event
// is pushed at or after the last one popped. Bucket i ≥ 1 holds the
// events whose time first differs from base in bit i-1. Pushing appends to
// one bucket; when the events ready to pop (b[0]) run out, the earliest
// event of the first non-empty bucket becomes base, and that bucket is
// spread over the lower ones. Each event moves down at most 64 times, and
// usually a few: far fewer unpredictable branches than a comparison heap,
// which is what an event costs here.
//
// b[0] is the run: events ready to pop, in order, all at or before every
// event in the buckets. A spread makes it the events equal to base; a
// bucket of at most runMax events is instead sorted into it whole, which
// costs less than spreading it level by level (with distinct times, as a
// run's hops have, most spreads are of a few events). A push before the
// run's last event goes into the run, after every event at or before it;
// any other goes to its bucket. base moves only at a spread, so that every
// bucket stays right for it: between two spreads the run is popped in
// order, and every bucket's events come after the whole run.
//
// FIFO among equal times holds because events of one time always share a
// bucket, pushes append (or go into the run after their equals), and
// spreading or sorting a bucket keeps its order.
type queue struct {
	b    [65][]event
	min  [65]time.Duration // b[i]'s earliest time, kept as events go in (i ≥ 1)
	head int               // next event to pop in b[0]
	full uint64            // bit i set: b[i] is non-empty (i ≥ 1)
	base time.Duration     // the buckets' reference: the earliest event at the last spread
	last time.Duration     // the last event popped: no push may come before it
	n    int
	// soon holds the args of the events that became imminent in the last
	// pop: those of a bucket of at most soonMax events that the pop spread
	// or sorted into the run, which are, with whatever is pushed before
	// them, the next events to come out (empty after any other pop). The
	// simulator loads their clients' state into the cache while it
	// handles the events before them, so that a million clients' cache
	// misses overlap instead of coming one after the other. Each event is
	// handed out once (soonMark). Only with ahead: with clients that fit
	// in the cache the lookahead would cost without saving.
	soon  []uint64
	ahead bool
}

// runMax is the size of a bucket that a pop sorts into the run instead of
// spreading it.
const runMax = 16

// soonMax is the size of a bucket whose events count as imminent: the
// lookahead of the prefetch.
const soonMax = 32

func (q *queue) reset() {
	for i := range q.b {
		q.b[i] = q.b[i][:0]
	}
	q.head, q.full, q.base, q.last, q.n = 0, 0, 0, 0, 0
	q.soon, q.ahead = q.soon[:0], false
}

func (q *queue) len() int { return q.n }

func (q *queue) push(at time.Duration, arg uint64) {
	if at < q.last {
		panic("sim: event scheduled in the past")
	}
	q.n++
	if run := q.b[0]; len(run) > q.head && at < run[len(run)-1].at {
		// Before the run's last event: into the run, after its equals.
		k := len(run)
		run = append(run, event{})
		for k > q.head && run[k-1].at > at {
			run[k] = run[k-1]
			k--
		}
		run[k] = event{at: at, arg: arg}
		q.b[0] = run
		return
	}
	i := bits.Len64(uint64(at ^ q.base))
	if q.full&(1<<i) == 0 || at < q.min[i] {
		q.min[i] = at
	}
	q.b[i] = append(roomy(q.b[i]), event{at: at, arg: arg})
	q.full |= 1 << i
}

func (q *queue) pop() event {
	q.soon = q.soon[:0]
	if q.head == len(q.b[0]) {
		q.b[0], q.head = q.b[0][:0], 0
		i := bits.TrailingZeros64(q.full &^ 1)
		src := q.b[i]
		m := q.min[i]
		q.base = m
		q.full &^= 1 << i
		if len(src) == 1 {
			// The one event is the next, with nothing to sort (nor to
			// prefetch).
			e := src[0]
			q.b[i] = src[:0]
			e.arg &^= soonMark
			q.last = e.at
			q.n--
			return e
		}
		if q.ahead && len(src) <= soonMax {
			for k := range src {
				if src[k].arg&soonMark == 0 {
					src[k].arg |= soonMark
					q.soon = append(q.soon, src[k].arg)
				}
			}
		}
		if len(src) <= runMax {
			// Sorted whole into the run (insertion sort: stable).
			run := append(q.b[0], src...)
			for k := 1; k < len(run); k++ {
				e := run[k]
				j := k
				for j > 0 && run[j-1].at > e.at {
					run[j] = run[j-1]
					j--
				}
				run[j] = e
			}
			q.b[0] = run
		} else {
			for _, e := range src {
				j := bits.Len64(uint64(e.at ^ m))
				if q.full&(1<<j) == 0 || e.at < q.min[j] {
					q.min[j] = e.at
				}
				q.b[j] = append(roomy(q.b[j]), e)
				q.full |= 1 << j
			}
		}
		q.b[i] = src[:0]
	}
	e := q.b[0][q.head]
	e.arg &^= soonMark
	q.head++
	q.n--
	q.last = e.at
	return e
}

// roomy returns b with room for one more event, doubling a full one's
// capacity: append grows a large slice by a quarter, and a bucket that
// grows to hold a million events would be copied four times over.
func roomy(b []event) []event {
	if len(b) < cap(b) {
		return b
	}
	n := make([]event, len(b), 2*cap(b)+64)
	copy(n, b)
	return n
}

// next returns the time of the event pop would return, without taking it:
// the run's next, else the earliest of the first non-empty bucket (b[0]
// is at or before every bucket, and the buckets are in order). The queue
// must not be empty.
func (q *queue) next() time.Duration {
	if q.head < len(q.b[0]) {
		return q.b[0][q.head].at
	}
	return q.min[bits.TrailingZeros64(q.full&^1)]
}

// drop takes out of the queue every event for which gone is true, keeping
// the others' order.
func (q *queue) drop(gone func(e event) bool) {
	run := q.b[0]
	kept := run[:q.head]
	for _, e := range run[q.head:] {
		if gone(e) {
			q.n--
			continue
		}
		kept = append(kept, e)
	}
	q.b[0] = kept
	for i := 1; i < len(q.b); i++ {
		if q.full&(1<<i) == 0 {
			continue
		}
		b := q.b[i][:0]
		first := time.Duration(math.MaxInt64)
		for _, e := range q.b[i] {
			if gone(e) {
				q.n--
				continue
			}
			b = append(b, e)
			first = min(first, e.at)
		}
		q.b[i], q.min[i] = b, first
		if len(b) == 0 {
			q.full &^= 1 << i
		}
	}
}

// clone returns a copy of q that pops what q would, on its own.
func (q *queue) clone() queue {
	c := *q
	for i := range q.b {
		if len(q.b[i]) > 0 {
			c.b[i] = append(make([]event, 0, cap(q.b[i])), q.b[i]...)
		} else {
			c.b[i] = nil
		}
	}
	c.soon = append([]uint64(nil), q.soon...)
	return c
}
