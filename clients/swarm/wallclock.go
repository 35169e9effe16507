package swarm

import (
	"context"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/seeds"
)

// Alarm is one goroutine's timer on the wall clock, reused from sleep to
// sleep so that a client's waits allocate nothing: the real-time swarms'
// (over every wire).
type Alarm struct {
	t      *time.Timer
	waited bool // the last SleepUntil waited for its time
}

// SleepUntil waits until t; it reports false if ctx ended first.
func (a *Alarm) SleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	a.waited = d > 0
	if d <= 0 {
		return ctx.Err() == nil
	}
	if a.t == nil {
		a.t = time.NewTimer(d)
	} else {
		a.t.Reset(d) // since Go 1.23 a reset timer never delivers a stale tick
	}
	select {
	case <-a.t.C:
		return true
	case <-ctx.Done():
		a.t.Stop()
		return false
	}
}

// Stop stops the timer; the alarm is done with.
func (a *Alarm) Stop() {
	if a.t != nil {
		a.t.Stop()
	}
}

// Arrivals runs an open workload's arrivals on the wall clock (slow times
// slower in slow motion: package slowmo), from origin until the run's end
// d or until ctx is done: at each Poisson arrival that part owns it calls
// start with the arriving client's id and its time. It
// draws every arrival of the whole run (seeds.Arrivals of seed), so that
// the shards of a split run keep the one-process run's stream, and starts
// only those of its part. start runs on Arrivals' goroutine: it starts the
// client and returns.
func Arrivals(ctx context.Context, w *clients.Workload, seed uint64, part clients.Part, origin time.Time, slow slowmo.Factor, d time.Duration, start func(id int, at time.Duration)) {
	rng := seeds.Stream(seed, seeds.Arrivals)
	var at time.Duration
	var next Alarm
	defer next.Stop()
	for id := 0; ; id++ {
		var more bool
		if at, more = w.NextArrival(at, rng.ExpFloat64(), d); !more {
			return
		}
		if !part.Owns(id) {
			continue
		}
		if !next.SleepUntil(ctx, slow.At(origin, at)) {
			return
		}
		start(id, at)
	}
}
