package sim

import (
	"time"

	"github.com/herdbench/herdbench/clients"
)

// A hedging client (clients.Hedge) may have several attempts in flight.
// Its own slot runs its step function and sends nothing itself: each of
// its attempts goes out in a slot of its own, marked hedgeFlag, whose cold
// part names the client (parent), the attempt's number and request and
// whether it is a hedge, and which goes through the same steps as any
// attempt (send, arrive, answer, end) before its reply goes to the client
// (attemptDone). The client's generation marks its tries: a new try, or
// its stop, leaves the old try's hedge event stale. A client that stops
// with attempts in flight ends when the last of them has, as the real
// driver returns once every attempt has answered.

// hedgeState is, in cold, a hedging client's: the send it waits for (its
// attempt's number, request and kind, and when that attempt's hedge comes
// due), its attempts in flight, whether it has stopped; or one of its
// attempts': its number, request and kind.
type hedgeState struct {
	hedgeAt time.Duration
	num, of int32
	kids    int32
	hedged  bool
	stopped bool
}

// scheduleHedged carries out hedging client pi's next action at now.
func (s *Sim) scheduleHedged(pi int32, a clients.Action, now time.Duration) {
	c, h := s.cl(pi), &s.cold(pi).hedge
	switch a.Op {
	case clients.Send:
		c.gen++ // a new try: the last one's hedge is off
		h.num, h.of, h.hedged, h.hedgeAt = int32(a.Attempt), int32(a.Of), a.Hedged, a.Hedge
		s.q.push(a.At, pack(evSend, c.gen, uint32(pi)))
	case clients.Stop:
		c.gen++
		h.stopped = true
		if h.kids == 0 {
			s.stopped(pi, now)
		}
	}
}

// sendHedged sends hedging client pi's attempt that came due at now, and
// schedules its hedge.
func (s *Sim) sendHedged(pi int32, now time.Duration) {
	h := s.cold(pi).hedge
	s.launch(pi, clients.Action{Op: clients.Send, At: now, Attempt: int(h.num), Of: int(h.of), Hedged: h.hedged}, now)
	if h.hedgeAt > 0 {
		s.q.push(h.hedgeAt, pack(evHedge, s.cl(pi).gen, uint32(pi)))
	}
}

// hedgeDue asks hedging client pi for its hedge at now, and sends it.
func (s *Sim) hedgeDue(pi int32, now time.Duration) {
	a := s.cl(pi).cl.Hedge(now)
	if a.Op != clients.Send {
		return
	}
	s.launch(pi, a, now)
	if a.Hedge > 0 {
		s.q.push(a.Hedge, pack(evHedge, s.cl(pi).gen, uint32(pi)))
	}
}

// launch sends hedging client pi's attempt a from a slot of its own.
func (s *Sim) launch(pi int32, a clients.Action, now time.Duration) {
	ci := s.slot()
	c := s.cl(ci)
	gen := c.gen // generations run on through reuse, so old events stay stale
	*c = client{gen: gen + 1, job: -1, slot: -1, flags: hedgeFlag}
	k := s.cold(ci)
	k.parent = pi
	k.hedge = hedgeState{num: int32(a.Attempt), of: int32(a.Of), hedged: a.Hedged}
	s.cold(pi).hedge.kids++
	s.schedule(ci, a, now)
}

// attemptDone hands the reply r of hedging attempt ci, learnt at now, to
// its client, frees its slot, and carries out the client's next action.
func (s *Sim) attemptDone(ci int32, r clients.Reply, now time.Duration) {
	k := s.cold(ci)
	pi := k.parent
	r.Attempt, r.Of, r.Hedged = int(k.hedge.num), int(k.hedge.of), k.hedge.hedged
	s.freeCS = append(s.freeCS, ci)
	h := &s.cold(pi).hedge
	h.kids--
	a := s.cl(pi).cl.Result(r)
	if h.stopped {
		if h.kids == 0 {
			s.stopped(pi, now)
		}
		return
	}
	s.schedule(pi, a, now)
}
