package swarm

import (
	"context"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
)

// flight is one attempt of a hedging client, sent in a goroutine of its
// own, and what became of it.
type flight struct {
	a     clients.Action
	r     clients.Reply
	first *clients.Reply
	cut   bool
}

// hedging is one hedging client's drive: its attempts in flight, each in
// a goroutine of its own that hands its reply back on answers, and what
// the client waits for next: a send at next.At, a hedge at hedgeAt.
type hedging struct {
	ctx      context.Context
	d        *Driver
	c        *clients.Client
	s        Sender
	sh       *results.Shard
	answers  chan flight
	inFlight int
	next     clients.Action // Send: the next attempt; Wait: none; Stop: the client is done
	hedgeAt  time.Duration  // when to ask the client for a hedge; 0: never
	ended    Ending
}

// driveHedged is Drive for a client whose strategy hedges
// (clients.Hedge): it sends the step function's attempts as they come due
// and, when an action's Hedge time comes with no answer, the client's
// hedge (Client.Hedge), each attempt in a goroutine of its own, and hands
// each reply to the step function as it arrives, whichever attempt it
// answers. It returns once the client has stopped and every attempt has
// answered, or, cut by ctx's end, once every attempt has returned.
func (d *Driver) driveHedged(ctx context.Context, c *clients.Client, a clients.Action, s Sender, sh *results.Shard) Ending {
	h := &hedging{ctx: ctx, d: d, c: c, s: s, sh: sh, answers: make(chan flight, clients.MaxHedges+2), next: a}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for h.next.Op != clients.Stop && !h.ended.Cut || h.inFlight > 0 {
		var wake <-chan time.Time
		if at, ok := h.due(); ok {
			timer.Reset(time.Until(d.Slow.At(d.Origin, at)))
			wake = timer.C
		}
		done := ctx.Done()
		if h.ended.Cut {
			done = nil // waiting for the attempts the end cut to return
		}
		select {
		case f := <-h.answers:
			h.answer(ctx, f)
		case <-wake:
			h.wake()
		case <-done:
			h.ended.Cut = true
		}
	}
	return h.ended
}

// due returns when the client next has something to send, if it has.
func (h *hedging) due() (time.Duration, bool) {
	if h.ended.Cut {
		return 0, false
	}
	at, ok := time.Duration(0), false
	if h.next.Op == clients.Send {
		at, ok = h.next.At, true
	}
	if h.hedgeAt > 0 && h.inFlight > 0 && (!ok || h.hedgeAt < at) {
		at, ok = h.hedgeAt, true
	}
	return at, ok
}

// wake sends what has come due: the next attempt, or a hedge.
func (h *hedging) wake() {
	now := h.d.Slow.Since(h.d.Origin)
	if h.next.Op == clients.Send && h.next.At <= now {
		h.launch(h.next)
		h.next = clients.Action{Op: clients.Wait}
		return
	}
	if h.hedgeAt > 0 && h.hedgeAt <= now {
		h.hedgeAt = 0
		if a := h.c.Hedge(now); a.Op == clients.Send {
			h.launch(a)
		}
	}
}

// launch sends attempt a in a goroutine of its own.
func (h *hedging) launch(a clients.Action) {
	if h.d.BeforeSend != nil {
		h.d.BeforeSend()
	}
	att := Attempt{Action: a}
	if p, ok := h.s.(Preparer); ok {
		att = p.Prepare(att)
	}
	h.hedgeAt = a.Hedge
	h.inFlight++
	if h.sh != nil {
		h.sh.InFlight(1)
	}
	go func() {
		r, first, cut := h.s.Send(h.ctx, att)
		h.answers <- flight{a: a, r: r, first: first, cut: cut}
	}()
}

// answer hands an attempt's reply to the step function, unless the run
// ended under it.
func (h *hedging) answer(ctx context.Context, f flight) {
	h.inFlight--
	if h.sh != nil {
		h.sh.InFlight(-1)
	}
	if f.cut || ctx.Err() != nil || h.ended.Cut {
		h.ended = Ending{Cut: true, InFlight: true, Sent: f.r.Sent}
		return
	}
	r := f.r
	r.Lag = max(0, r.Sent-f.a.At)
	r.Attempt, r.Of, r.Hedged = f.a.Attempt, f.a.Of, f.a.Hedged
	if f.first != nil {
		f.first.Lag, r.Lag = r.Lag, 0
		h.c.Resent(*f.first)
	}
	switch next := h.c.Result(r); next.Op {
	case clients.Send, clients.Stop:
		h.next = next
		h.hedgeAt = 0 // a new try, or none: the old try's hedge is off
	}
	h.ended.OK = r.Outcome == results.OK
}
