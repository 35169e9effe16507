package model

import "math/rand/v2"

// Clone returns a copy of m that goes on from m's state on its own: the
// same configuration and plan, its counters, OCC row, busy slots and
// queue, drawing from rng and recording served writes into calls. Every
// job of its queue is copied by copy, which a driver gives so that the
// jobs it holds and the model's stay one and the same: it returns the
// copy of a job, made on its first call for that job (a job's Owner is
// the driver's, to set on its copies). The simulator's snapshots (package
// sim) continue a run from such copies.
func (m *Model) Clone(rng *rand.Rand, calls CallRecorder, copy func(*Job) *Job) *Model {
	c := *m
	c.rng, c.calls = rng, calls
	c.queue = make([]*Job, 0, len(m.queue)-m.head)
	for _, j := range m.queue[m.head:] {
		if j != nil {
			j = copy(j)
		}
		c.queue = append(c.queue, j)
	}
	c.head = 0
	c.out, c.free, c.seg = nil, nil, nil
	return &c
}
