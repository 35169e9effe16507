package clients

import (
	"time"

	"github.com/herdbench/herdbench/results"
)

// Hedge is a strategy's hedged requests, as gRPC's hedging policy (gRFC
// A6: hedgingDelay, maxAttempts) and failsafe-go's hedge policy (a delay,
// WithMaxHedges) have them, and as "The Tail at Scale" (Dean and Barroso,
// 2013) describes them: while a request's attempt is unanswered Delay
// after it went out, the client sends another attempt of the same request,
// up to Max more per try; the first success ends the request.
//
// A try is an attempt and its hedges. A failure the strategy would retry
// ends nothing while another attempt of the try is in flight; once every
// attempt of the try has failed, the strategy retries (backoff, budget,
// Retry-After) with a new try. A failure it would not retry ends the
// request at once. Hedges count among the request's attempts (Number,
// max_attempts), as gRFC A6's maxAttempts counts them; a hedge is an
// attempt of its own, with no backoff and no policy's say (the budget,
// breaker and throttle decide the tries).
//
// The attempts still in flight when their request ends are not cancelled:
// the client reads their answers and records them, and the target serves
// them, as a server that has begun a request does. (gRFC A6 and
// failsafe-go cancel them; a server that does not watch its client's
// cancel works for them all the same.) So every attempt sent is one in the
// figures, hedges among them (Attempt.Hedge), and the hedges whose success
// ended their request (Attempt.Won).
type Hedge struct {
	Delay time.Duration // after an attempt, how long the client waits for an answer before hedging
	Max   int           // hedges per try; 0: none
}

// MaxHedges is the most hedges a try may have.
const MaxHedges = 8

// send starts the current request's first try at t: its first attempt,
// and when the strategy hedges, when to hedge it.
func (c *Client) send(t time.Duration) Action {
	return c.sendAttempt(t)
}

// sendAttempt is the action that sends attempt c.attempt at at.
func (c *Client) sendAttempt(at time.Duration) Action {
	a := Action{Op: Send, At: at, Attempt: int(c.attempt)}
	if h := c.strategy.Hedge; h.Max > 0 {
		a.Of = c.requests
		if c.hedgeable() {
			a.Hedge = at + h.Delay
		}
	}
	return a
}

// hedgeable reports whether the current try may send another hedge: under
// its Max, within max_attempts, and before the run's end.
func (c *Client) hedgeable() bool {
	s := c.strategy
	return int(c.hedges) < s.Hedge.Max && (s.MaxAttempts == 0 || int(c.attempt) < s.MaxAttempts)
}

// Hedge returns the hedge the client sends at now, when its latest
// action's Hedge time has come: attempt n+1 of the request, at now, with
// the next hedge's time; or Wait when the try is over (answered, or
// failed and retried since) or may hedge no more.
func (c *Client) Hedge(now time.Duration) Action {
	if !c.open || c.inFlight == 0 || !c.hedgeable() || now >= c.end {
		return Action{Op: Wait}
	}
	c.hedges++
	c.attempt++
	c.inFlight++
	a := c.sendAttempt(now)
	a.Hedged = true
	return a
}

// hedged takes the reply to an attempt of a hedging strategy's client and
// returns what follows: the request's end at its first success, or at a
// failure it does not retry; a retry once every attempt of the try has
// failed; or Wait while others are in flight. A reply of a request that
// has ended is recorded and changes nothing.
func (c *Client) hedged(r Reply) Action {
	now := r.Sent + r.Latency
	r.Outcome = c.strategy.Success.Outcome(r.Outcome, r.Status)
	n := r.Attempt
	if n == 0 {
		n = int(c.attempt)
	}
	current := c.open && (r.Of == 0 || r.Of == c.requests)
	won := current && r.Hedged && r.Outcome == results.OK
	c.sink.Attempt(results.Attempt{Sent: r.Sent, Latency: r.Latency, Number: n, Outcome: r.Outcome, Lag: r.Lag, Status: r.Status, Hedge: r.Hedged, Won: won})
	if !current {
		return Action{Op: Wait}
	}
	c.inFlight--
	if c.pol != nil {
		c.pol.answered(now, r.Outcome, int(c.paid))
	}
	switch {
	case r.Outcome == results.OK:
		if c.strategy.Reset == OnSuccess {
			c.failures, c.prevWait = 0, 0
		}
		c.finish(now, true)
		return c.after(now)
	case !c.retries(r):
		c.failures++
		c.finish(now, false)
		return c.after(now)
	case c.inFlight > 0:
		return Action{Op: Wait}
	}
	a, ended, over := c.retry(now, r.Outcome == results.Timeout, r.RetryAfter)
	if over {
		return c.after(ended)
	}
	return a
}

// Hedges reports whether the client's strategy hedges: its driver then
// keeps several of its attempts in flight, and hands each reply back with
// its Attempt, Of and Hedged.
func (c *Client) Hedges() bool { return c.strategy.Hedge.Max > 0 }
