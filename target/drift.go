package target

import (
	"context"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// driftLog records how much later than the model said the server ended each
// wait the model set: a service time, a network hop, an added latency. On
// an idle machine a timer fires within tens of microseconds; on a busy one
// the server serves slower than its model, and the run's self-check says
// so. Values are microseconds, 2 significant figures.
type driftLog struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

func (d *driftLog) record(late time.Duration) {
	us := min(max(int64(late/time.Microsecond), 0), int64(time.Hour/time.Microsecond))
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.h == nil {
		d.h = hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 2)
	}
	_ = d.h.RecordValue(us)
}

// Drift returns how late the server ended the waits its model set, in
// microseconds, since it started: a copy, empty if there were none.
func (s *Server) Drift() *hdrhistogram.Histogram {
	s.drift.mu.Lock()
	defer s.drift.mu.Unlock()
	h := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 2)
	if s.drift.h != nil {
		h.Merge(s.drift.h)
	}
	return h
}

// wait is sleep for a wait the model set, recording its drift when it ran
// its course.
func (s *Server) wait(ctx context.Context, crashed <-chan struct{}, d time.Duration) bool {
	start, wall := time.Now(), s.slow.Wall(d)
	if !sleep(ctx, crashed, wall) {
		return false
	}
	s.drift.record(s.slow.Scenario(time.Since(start) - wall))
	return true
}
