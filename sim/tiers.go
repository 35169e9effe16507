package sim

import (
	"time"

	"github.com/herdbench/herdbench/seeds"
)

// A chain of tiers in virtual time. A request that reaches a middle tier
// goes through its capacity model as at a single target (ingress faults,
// queue, a slot), and holds its slot for its own service time and then
// for its call to the next tier: a fresh client of the tier's strategy
// (Strategy.Tiers), in the same slab as the workload's clients, whose
// attempts go to the next tier and are recorded in Cohort.Below. When
// the call's request ends, the slot frees and the tier answers its
// caller: 200 if the call succeeded, 503 if it gave up.
//
// When the caller goes away first (its timeout, or a crash of the tier
// it called), the call is cancelled at that instant, as a Go server's
// request context is: its attempt in flight below counts as a timeout
// (clients.Client.Cancel), the job it had there is abandoned, and so on
// down the chain. A tier's crash resets the attempts in it, which cancels
// the calls they were making.

// relay starts the call to the next tier of middle-tier job w, whose own
// service has ended at now.
func (s *Sim) relay(w *job, now time.Duration) {
	if !s.lv[w.tier].m.Running(w.j) {
		return // lost to a crash, which reset its caller
	}
	if s.cl(w.client).job != w.idx {
		// Its caller went away during its service: the request ends here,
		// its slot free, with nothing sent below.
		s.finishJob(w, now)
		return
	}
	ci := s.newCall(int(w.tier)+1, w.client, w.idx)
	w.call = ci
	w.refs++
	s.schedule(ci, s.cl(ci).cl.BeginAt(now), now)
}

// newCall returns a fresh call to tier t, made for the attempt of client
// parent whose job at tier t-1 is pjob.
func (s *Sim) newCall(t int, parent, pjob int32) int32 {
	ci := s.slot()
	c := s.cl(ci)
	gen := c.gen
	*c = client{gen: gen + 1, job: -1, slot: -1, tier: uint8(t), flags: callFlag}
	k := s.cold(ci)
	k.parent, k.pjob = parent, pjob
	lv := &s.lv[t]
	n := lv.calls
	lv.calls++
	seeds.Place(&c.rng, &c.pcg, s.co.Seed, seeds.Call(t-1, n))
	lv.k.InitClient(&c.cl, n, &s.callWork, s.co.Duration, &c.rng, lv.rec.Shard(n))
	return ci
}

// callDone ends call ci, whose request is over at now: the calling tier's
// slot frees, and its caller gets 200 or 503.
func (s *Sim) callDone(ci int32, now time.Duration) {
	c := s.cl(ci)
	if c.cl.Unfinished() {
		// Its next attempt would come after the run's end: it waits for
		// the end, as the real tier does, unless its caller goes first.
		return
	}
	k := s.cold(ci)
	w := s.jobs[k.pjob]
	parent, ok := k.parent, c.has(okFlag)
	s.free(ci)
	w.call = -1
	s.finishJob(w, now)
	if pc := s.cl(parent); pc.job == w.idx {
		pc.job = -1
		s.unref(w)
		a := s.lv[w.tier].m.Relayed(now, ok)
		s.answer(parent, now, &a)
	}
	s.unref(w)
}

// cancelCall cancels the call of middle-tier job w at now, because the
// caller of w's request went away: the call's attempt in flight, and the
// calls below it, are given up; w's slot frees.
func (s *Sim) cancelCall(w *job, now time.Duration) {
	ci := w.call
	w.call = -1
	c := s.cl(ci)
	// An attempt scheduled straight to its arrival is tracked before it
	// is sent: it went out only if its send time has come.
	inFlight := c.slot >= 0 && c.sent <= now
	s.untrack(ci)
	if c.job >= 0 {
		below := s.jobs[c.job]
		c.job = -1
		s.lv[below.tier].m.Abandon(now, below.j)
		if below.call >= 0 {
			s.cancelCall(below, now)
		}
		s.unref(below)
	}
	c.cl.Cancel(now, inFlight, c.sent)
	s.free(ci)
	s.finishJob(w, now)
	s.unref(w)
}

// free gives call ci's slot back; events naming its last attempt are stale.
func (s *Sim) free(ci int32) {
	c := s.cl(ci)
	c.gen++
	c.set(callFlag, false)
	s.freeCS = append(s.freeCS, ci)
}

// finishJob ends middle-tier job w's hold on its slot at now, starting the
// queued jobs that take it.
func (s *Sim) finishJob(w *job, now time.Duration) {
	for _, nj := range s.lv[w.tier].m.Finish(now, w.j) {
		s.startJob(now, nj)
	}
}
