package swarm

import (
	"context"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
)

// Driver is herdbench's one real-time driver of the client step function
// (clients.Client): it sleeps until each action's time on the run's clock
// (slow motion included: package slowmo), has a Sender put the attempt on
// the wire, and hands the reply back to the step function, until the
// client stops or ctx ends. The swarm over every wire, a middle tier's
// calls (Relay) and the retrying proxy all run on it; each supplies only
// how to send (a Sender), so what the step function decides (backoff,
// budgets, Retry-After, a transport's re-send) is applied the same way
// everywhere, as the simulator applies it in virtual time.
type Driver struct {
	Origin time.Time     // the run's t = 0 on the wall clock
	Slow   slowmo.Factor // slow motion: the run's clock is Slow times slower
	// BeforeSend, if set, is called each time a client has woken to send
	// an attempt, right before it sends (Swarm.BeforeSend).
	BeforeSend func()
}

// A Sender puts one client's attempts on the wire: the transport of a
// protocol. Send sends attempt a and returns what became of it, its
// instants on the run's clock (Reply.Sent and Latency; the Driver fills
// in Lag); resent is, when the transport sent the attempt again by itself
// (clients.Strategy.Transport), its first try's reply (Client.Resent);
// cut says the run ended mid-attempt (beside ctx's end, which the Driver
// sees itself), so that nothing of it is recorded.
type Sender interface {
	Send(ctx context.Context, a Attempt) (r clients.Reply, resent *clients.Reply, cut bool)
}

// Attempt is one attempt a Sender sends: the step function's action, and
// whether it follows its client's previous success at once, without a
// wait (Calm: nothing lines it up with other clients, httpwire.Link.SetCalm).
// Bytes are the attempt's request as its wire writes it, when its Sender
// prepared them (Preparer).
type Attempt struct {
	clients.Action
	Calm  bool
	Bytes []byte
}

// A Preparer is a Sender that reads what it needs of its client's state
// for an attempt before the attempt is sent: a hedging client's attempts
// go out each in a goroutine of its own, while the client steps on in the
// driver's (hedge.go), so Send must not read the client. Prepare runs in
// the driver's goroutine.
type Preparer interface {
	Prepare(a Attempt) Attempt
}

// Ending is how a client's drive ended: done (its step function stopped),
// or Cut by ctx's end, while waiting or with an attempt InFlight since
// Sent. OK says the last attempt succeeded.
type Ending struct {
	Cut      bool
	InFlight bool
	Sent     time.Duration
	OK       bool
}

// Drive runs client c's step function from action a until it stops or ctx
// ends, each attempt sent by s. sh, if not nil, counts the attempts in
// flight. The send lag of each attempt (Reply.Lag: when it went out,
// minus when the step function asked for it) is the harness's lateness:
// the wake-up, the scheduler, everything before the request's first byte
// or packet.
func (d *Driver) Drive(ctx context.Context, c *clients.Client, a clients.Action, s Sender, sh *results.Shard) Ending {
	if c.Hedges() {
		return d.driveHedged(ctx, c, a, s, sh)
	}
	var wake Alarm
	defer wake.Stop()
	ok := false // the last attempt succeeded
	for a.Op == clients.Send {
		if !wake.SleepUntil(ctx, d.Slow.At(d.Origin, a.At)) {
			return Ending{Cut: true}
		}
		if d.BeforeSend != nil {
			d.BeforeSend()
		}
		if sh != nil {
			sh.InFlight(1)
		}
		r, first, cut := s.Send(ctx, Attempt{Action: a, Calm: ok && !wake.waited})
		if sh != nil {
			sh.InFlight(-1)
		}
		if cut || ctx.Err() != nil {
			return Ending{Cut: true, InFlight: true, Sent: r.Sent} // not an outcome of the target
		}
		r.Lag = max(0, r.Sent-a.At)
		if first != nil { // the transport re-sent it: r is the re-send's
			first.Lag, r.Lag = r.Lag, 0
			c.Resent(*first)
		}
		a = c.Result(r)
		ok = r.Outcome == results.OK
	}
	return Ending{OK: ok}
}
