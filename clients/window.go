package clients

import "time"

// windowSlices is the number of slices a sliding window is cut into, as in
// Finagle's WindowedAdder: events expire a tenth of the window at a time.
const windowSlices = 10

// window counts two quantities over a sliding time window, in slices of a
// tenth of its span. Its sums at t cover the slice holding t and the nine
// before it. Times may arrive out of order (a client records an intended
// send time ahead of its replies): an event older than the window is
// dropped, a newer one advances the window.
type window struct {
	width time.Duration
	slots [windowSlices]slot
}

type slot struct {
	index int64 // absolute slice number, t / width
	a, b  int64
}

func newWindow(span time.Duration) window {
	w := window{width: max(span/windowSlices, 1)}
	for i := range w.slots {
		w.slots[i].index = -1
	}
	return w
}

// add adds da and db at time t.
func (w *window) add(t time.Duration, da, db int64) {
	idx := int64(t / w.width)
	s := &w.slots[idx%windowSlices]
	switch {
	case s.index > idx:
		return // a newer slice took this slot: t is older than the window
	case s.index < idx:
		*s = slot{index: idx}
	}
	s.a += da
	s.b += db
}

// sums returns the totals of the window ending at t.
func (w *window) sums(t time.Duration) (a, b int64) {
	idx := int64(t / w.width)
	for i := range w.slots {
		if s := &w.slots[i]; s.index <= idx && s.index > idx-windowSlices {
			a += s.a
			b += s.b
		}
	}
	return a, b
}

// reset forgets every event.
func (w *window) reset() {
	for i := range w.slots {
		w.slots[i] = slot{index: -1}
	}
}
