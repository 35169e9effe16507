package sim

import (
	"math/rand/v2"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target/model"
)

// A gRPC target's clients call it on grpc-go channels, and a channel's
// connectivity changes the storm: after a crash (or a GOAWAY) drops its
// connection, the channel is IDLE and the next RPC makes it connect; a
// connection refused puts it in TRANSIENT_FAILURE, where every RPC fails
// fast at the pick (UNAVAILABLE, without reaching the target, and with
// grpc-go's retries each failed pick is an attempt) until one of its own
// reconnection attempts succeeds, spaced by grpc-go's connection backoff.
// So a channel finds a target that came back only at its next attempt, up
// to 1.6 s × 1.2 after its previous one, whatever its RPCs' retries do.
// The rules are grpc-go v1.84.0's: clientconn.go addrConn.resetTransport
// (the backoff index, 0 again after a connection), internal/backoff
// (Exponential.Backoff), balancer/pickfirst (IDLE after a lost connection,
// sticky TRANSIENT_FAILURE reconnecting on its own), picker_wrapper.go (a
// fail-fast RPC fails at a TRANSIENT_FAILURE pick).

// Channel backoff: grpc-go's DefaultConfig (backoff.go), the connection
// backoff of gRPC's connection-backoff.md.
const (
	ChannelBaseDelay  = time.Second
	ChannelMultiplier = 1.6
	ChannelJitter     = 0.2
	ChannelMaxDelay   = 120 * time.Second
)

// ChannelBackoff returns grpc-go's wait after the retries-th failed
// connection attempt in a row (from 0), from a uniform draw u in [0, 1):
// the base delay exactly for the first, then base × 1.6^retries (the
// product taken step by step, up to the maximum) × (1 + 0.2 (2u − 1)), as
// internal/backoff's Exponential.Backoff computes it.
func ChannelBackoff(retries int, u float64) time.Duration {
	if retries == 0 {
		return ChannelBaseDelay
	}
	backoff, limit := float64(ChannelBaseDelay), float64(ChannelMaxDelay)
	for backoff < limit && retries > 0 {
		backoff *= ChannelMultiplier
		retries--
	}
	backoff = min(backoff, limit)
	backoff *= 1 + ChannelJitter*(u*2-1)
	return time.Duration(max(0, backoff))
}

// channel is one grpc-go channel's connectivity, evaluated lazily at each
// pick: everything that moves it is a function of time (the plan's drops
// and when the target listens) or a pick.
type channel struct {
	up bool // READY: its connection was made at at
	// failing: TRANSIENT_FAILURE, its next connection attempt at at;
	// neither up nor failing: IDLE, the next pick connects.
	failing bool
	at      time.Duration
	retries int // failed connection attempts in a row (the backoff index)
	pcg     rand.PCG
}

// setChannels makes the cohort's channels, all connected before t = 0 as
// the swarm's are (the swarm's Warm), and the instants the plan drops
// every connection: a crash (reset, refuse) or a GOAWAY begins. Clients i
// with the same local index / per share a channel: per is the scenario's
// connections.shared, the whole cohort for a grpc-go cohort's throttler
// shared by the cohort (channel: cohort), and an open workload's
// arrivals all take one, as the swarm's gRPC transport has them.
func (s *Sim) setChannels(co *Cohort, plan *chaos.Plan) {
	s.chans, s.drops, s.perChan = s.chans[:0], s.drops[:0], 0
	if !co.GRPC || co.Tiers != nil {
		return
	}
	n := co.Part.Count(co.Workload.Clients)
	per := max(1, co.Shared)
	if b := co.Strategy.Budget; co.Strategy.GRPC != nil && b != nil && b.Scope.Shared() {
		per = max(1, n)
	}
	nch := max(1, (n+per-1)/per)
	if co.Workload.Kind == clients.Open {
		nch, per = 1, 1<<30
	}
	s.perChan = per
	for i := range nch {
		s.chans = append(s.chans, channel{up: true, at: -1})
		s.chans[i].pcg.Seed(co.Seed, seeds.Channel(co.Part.First()+i*co.Part.Step()))
	}
	prev := chaos.NoOutage // the channels connected before t = 0: a crash at 0 drops them too
	for _, seg := range plan.Segments() {
		if next := seg.Effect.Outage; next != prev {
			if next.Crashes() || next == chaos.Goaway {
				s.drops = append(s.drops, seg.Start)
			}
			prev = next
		}
	}
}

// channelOf returns the channel of client ci, nil if its attempts do not
// go over one (an HTTP target, a tier's call).
func (s *Sim) channelOf(ci int32) *channel {
	c := s.cl(ci)
	if s.perChan == 0 || c.has(callFlag) {
		return nil
	}
	i := 0
	if s.co.Workload.Kind != clients.Open {
		i = min(s.co.Part.Local(s.owner(ci).ID)/s.perChan, len(s.chans)-1)
	}
	return &s.chans[i]
}

// listening reports whether client ci's attempt at at reaches the target
// m: m listens, and, over a channel, the channel's pick gives a
// connection.
func (s *Sim) listening(ci int32, m *model.Model, at time.Duration) bool {
	if s.perChan == 0 {
		return m.Listening(at) // no channels: the HTTP path pays one branch
	}
	ch := s.channelOf(ci)
	if ch == nil {
		return m.Listening(at)
	}
	return s.pick(ch, at)
}

// pick moves ch to at and reports whether an RPC picked then goes out.
func (s *Sim) pick(ch *channel, at time.Duration) bool {
	for {
		switch {
		case ch.up:
			if at < ch.at {
				return false // still connecting, in TRANSIENT_FAILURE: see below
			}
			if !crashIn(s.drops, ch.at, at) {
				return true
			}
			ch.up = false // the drop closed its connection: IDLE
		case !ch.failing:
			return s.connect(ch, at) // IDLE: this pick connects, and waits for it
		case ch.at > at:
			return false // TRANSIENT_FAILURE: fail fast
		default:
			// Its own next attempt, then on from there. The channel stays
			// in TRANSIENT_FAILURE while it connects (pick_first's sticky
			// TRANSIENT_FAILURE) and is READY only after the handshake:
			// a pick at the attempt's very instant fails fast.
			if s.connect(ch, ch.at) {
				ch.at++
			}
		}
	}
}

// connect makes ch try to connect at t: it is READY if the target
// listens then, else in TRANSIENT_FAILURE until its backoff has passed.
func (s *Sim) connect(ch *channel, t time.Duration) bool {
	if s.lv[0].m.Listening(t) {
		ch.up, ch.failing, ch.at, ch.retries = true, false, t, 0
		return true
	}
	u := float64(ch.pcg.Uint64()>>11) / (1 << 53)
	ch.failing, ch.at = true, t+ChannelBackoff(ch.retries, u)
	ch.retries++
	return false
}
