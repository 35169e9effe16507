package target

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/target/model"
)

// Every wait the model sets (two hops and a service time per request here)
// is recorded with its drift: none in a synctest bubble, where every timer
// fires on time.
func TestDriftOfTheModelsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStandalone(t, Options{Config: model.Config{
			Concurrency: 2, Queue: 10, QueueTimeout: time.Second,
			ServiceTime: dist.Const(10 * time.Millisecond), Network: dist.Const(3 * time.Millisecond),
		}})
		if h := s.srv.Drift(); h.TotalCount() != 0 {
			t.Fatalf("%d drifts before any request", h.TotalCount())
		}
		for range 5 {
			if code, err := s.get(0); code != 200 {
				t.Fatalf("status %d, %v", code, err)
			}
		}
		h := s.srv.Drift()
		if h.TotalCount() != 15 || h.Max() != 0 {
			t.Errorf("%d waits recorded, the latest %d µs late; want 15 (2 hops and a service per request), none late", h.TotalCount(), h.Max())
		}
	})
}

// A wait that ends late is recorded late by as much.
func TestDriftRecordsLateness(t *testing.T) {
	s := &Server{}
	s.drift.record(-time.Millisecond) // a timer never fires early; a clock may step
	s.drift.record(1500 * time.Microsecond)
	h := s.Drift()
	if h.TotalCount() != 2 || h.Min() != 0 || h.Max() < 1490 || h.Max() > 1510 {
		t.Errorf("count %d, min %d, max %d µs; want 2, 0 and 1500", h.TotalCount(), h.Min(), h.Max())
	}
}
