package sim

import (
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
// is pushed at or after the last one popped (last). Bucket i holds the
// events whose time first differs from last in bit i-1 (bucket 0: equal to
// last). Pushing appends to one bucket; popping takes from bucket 0, and
// when it is empty, finds the earliest event in the first non-empty bucket,
// makes it last, and spreads that bucket over the lower ones. Each event
// moves down at most 64 times, and usually a few: far fewer unpredictable
// branches than a comparison heap, which is what an event costs here.
//
// FIFO among equal times holds because events of one time always share a
// bucket, pushes append, and spreading a bucket keeps its order.
type queue struct {
	b    [65][]event
	min  [65]time.Duration // b[i]'s earliest time, kept as events go in (i ≥ 1)
	head int               // next event to pop in b[0]
	full uint64            // bit i set: b[i] is non-empty (i ≥ 1)
	last time.Duration
	n    int
	// soon holds the args of the events that became imminent in the last
	// pop: those of a bucket of at most soonMax events that the pop spread,
	// which are, with whatever is pushed before them, the next events to
	// come out. The simulator loads their clients' state into the cache
	// while it handles the events before them, so that a million clients'
	// cache misses overlap instead of coming one after the other. Each
	// event is handed out once (soonMark). Only with ahead: with clients
	// that fit in the cache the lookahead would cost without saving.
	soon  []uint64
	ahead bool
}

// soonMax is the size of a bucket whose events count as imminent: the
// lookahead of the prefetch.
const soonMax = 32

func (q *queue) reset() {
	for i := range q.b {
		q.b[i] = q.b[i][:0]
	}
	q.head, q.full, q.last, q.n = 0, 0, 0, 0
	q.soon, q.ahead = q.soon[:0], false
}

func (q *queue) len() int { return q.n }

func (q *queue) push(at time.Duration, arg uint64) {
	if at < q.last {
		panic("sim: event scheduled in the past")
	}
	i := bits.Len64(uint64(at ^ q.last))
	if q.full&(1<<i) == 0 || at < q.min[i] {
		q.min[i] = at
	}
	q.b[i] = append(q.b[i], event{at: at, arg: arg})
	q.full |= 1 << i
	q.n++
}

func (q *queue) pop() event {
	if q.head == len(q.b[0]) {
		q.b[0], q.head = q.b[0][:0], 0
		i := bits.TrailingZeros64(q.full &^ 1)
		src := q.b[i]
		m := q.min[i]
		q.last = m
		q.soon = q.soon[:0]
		if len(src) == 1 {
			// Half the spreads of a run of distinct times: the one event
			// is the next, with nothing to spread (nor to prefetch).
			e := src[0]
			q.b[i] = src[:0]
			q.full &^= 1 << i
			e.arg &^= soonMark
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
		q.full &^= 1 << i
		for _, e := range src {
			j := bits.Len64(uint64(e.at ^ m))
			if q.full&(1<<j) == 0 || e.at < q.min[j] {
				q.min[j] = e.at
			}
			q.b[j] = append(q.b[j], e)
			q.full |= 1 << j
		}
		q.b[i] = src[:0]
	}
	e := q.b[0][q.head]
	e.arg &^= soonMark
	q.head++
	q.n--
	return e
}
