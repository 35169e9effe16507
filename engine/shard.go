package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// A run split over processes (Options.Part, Options.StartAt): each shard
// runs its share of the clients from one agreed instant, T0.

// ErrLate is matched (errors.Is) by a *LateError.
var ErrLate = errors.New("too late to start at the agreed time")

// LateError is Start's refusal of a run whose agreed t = 0
// (Options.StartAt) leaves it too little time to be ready: to set up
// every client and open its connection, as a run without a start time
// does in its lead. Nothing was sent.
type LateError struct {
	StartAt time.Time
	Now     time.Time
	Need    time.Duration // the lead the run needs to be ready by StartAt
}

func (e *LateError) Error() string {
	left := e.StartAt.Sub(e.Now)
	when := fmt.Sprintf("%s away", left.Round(time.Millisecond))
	if left <= 0 {
		when = fmt.Sprintf("already %s past", (-left).Round(time.Millisecond))
	}
	return fmt.Sprintf("%v: the start, %s, is %s, and this run needs %s to be ready (its clients set up and their connections open before t = 0); nothing was sent. Start every shard again with a later --start-at (now + a lead that covers the machines' start-up)",
		ErrLate, e.StartAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), when, e.Need.Round(time.Millisecond))
}

func (e *LateError) Unwrap() error { return ErrLate }

// checkStart refuses, at now, a run that cannot be ready by its agreed
// t = 0.
func checkStart(p *scenarios.Plan, o Options, now time.Time) error {
	if o.StartAt.IsZero() {
		return nil
	}
	if need := leadFor(p, o.Part); o.StartAt.Sub(now) < need {
		return &LateError{StartAt: o.StartAt, Now: now, Need: need}
	}
	return nil
}

// Share returns p as shard part runs it: its clients per cohort are the
// shard's (for the checks of open files and memory). The zero Part
// returns p.
func Share(p *scenarios.Plan, part clients.Part) *scenarios.Plan {
	if part.Whole() || p.Workload.Kind == clients.Open {
		return p
	}
	q := *p
	q.Workload.Clients = part.Count(p.Workload.Clients)
	return &q
}

// markShard marks a shard's output (Options.Part with Of set) as that
// shard's: its index, T0, its clients, when its first attempt went out,
// its clock against the chaos controller's, and p's thresholds, which the
// merge checks over every shard's figures.
func markShard(out *folder.Output, p *scenarios.Plan, part clients.Part, clock *results.ClockOffset) {
	if part.Of == 0 {
		return
	}
	s := out.Summary
	info := &results.ShardInfo{Index: part.Index, Of: part.Of, StartAt: s.Started}
	if p.Workload.Kind != clients.Open {
		info.Clients = part.Count(p.Workload.Clients)
	}
	var first time.Duration
	found := false
	for _, c := range out.Cohorts {
		if f, ok := c.Rec.FirstSent(); ok && (!found || f < first) {
			first, found = f, true
		}
	}
	if found {
		v := float64(first.Microseconds()) / 1000
		info.FirstSendMS = &v
	}
	info.Clock = clock
	for _, th := range p.Thresholds {
		info.Thresholds = append(info.Thresholds, results.DeferredThreshold{Cohort: th.Cohort, Expression: th.Expr})
	}
	s.Shard = info
}
