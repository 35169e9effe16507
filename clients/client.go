package clients

import (
	"math/rand/v2"
	"strings"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/herdbench/herdbench/results"
)

// Op is what a client asks its driver to do next.
type Op uint8

// Ops.
const (
	Send Op = iota // send attempt Attempt at time At
	Stop           // the client is done
	// Wait: nothing to send now; the client waits for the answers of its
	// attempts in flight (a hedging strategy's, hedge.go).
	Wait
)

// Action is a client's next step.
type Action struct {
	Op      Op
	At      time.Duration // intended send time, elapsed since the run's start
	Attempt int           // 1 for a first try
	// Hedge, when not 0, is when the driver asks the client for a hedge
	// (Client.Hedge) if no attempt of the request has answered by then:
	// a hedging strategy's (hedge.go).
	Hedge time.Duration
	// Of is the logical request the attempt belongs to, counted from 1
	// among the client's, and Hedged says the attempt is a hedge: a
	// driver hands both back in the attempt's Reply.
	Of     int
	Hedged bool
}

// Client is one client's state: a step function over its requests. It is
// driven by exactly one goroutine or event loop at a time.
type Client struct {
	ID       int
	strategy *Strategy
	workload *Workload
	end      time.Duration
	rng      *rand.Rand
	sink     results.Sink
	pol      *policies // budget, breaker, throttle; nil when the strategy has none

	start   time.Duration // intended start of the current request
	attempt int32         // attempts sent for the current request
	// The backoff's state (Strategy.Reset says when it starts afresh):
	// failures is n, the failed attempts the ceiling v(n) grows from, and
	// prevWait the previous wait, which decorrelated grows from.
	failures int
	prevWait time.Duration
	requests int   // requests started
	paid     int32 // what the current request's latest retry cost its budget
	// A hedging strategy's try (hedge.go): its attempts in flight and the
	// hedges it sent.
	inFlight, hedges int16

	// The mix: the seed of the requests' streams (Traffic) and the
	// current request's index in Strategy.Requests.
	traffic uint64
	req     int32
	mixed   bool
	open    bool // the current request has not ended (beside mixed: the simulator keeps a million Clients, 8 bytes count)
	once    bool // the current request may not be retried (Once)
}

// Once makes the client's current request one its strategy may not
// retry, whatever its mix says: a retrying proxy's forwarded request that
// Strategy.MayRetry refuses. Its first failed attempt ends it.
func (c *Client) Once() { c.once = true }

// Traffic makes the client draw its requests from the strategy's mix,
// each logical request from its own stream under seed (the run's), the
// same in both engines. Without it, or without a mix, every request is
// the first of the mix (or the probe).
func (c *Client) Traffic(seed uint64) { c.traffic, c.mixed = seed, true }

// Current returns the current logical request's index in the strategy's
// mix and its number n (from 0) among the client's requests.
func (c *Client) Current() (index, n int) { return int(c.req), c.requests - 1 }

// Replayable reports whether net/http would re-send the current request
// by itself (the package's Replayable). The probe, a bodiless POST sent
// when the strategy has no requests, counts as replayable: a strategy
// that says transport: net/http models a fleet whose requests are
// (docs/policies.md).
func (c *Client) Replayable() bool {
	m := c.strategy.Requests
	if m == nil {
		return true
	}
	r := &m.Requests[c.req]
	return Replayable(r.Method, func(name string) bool {
		for _, h := range r.Header {
			if strings.EqualFold(h.Name, name) {
				return true
			}
		}
		return false
	})
}

// NewClient returns client id of a cohort. end is the run's duration: no
// request starts and no attempt is sent at or after it. It panics if s has
// a policy shared by the whole cohort: such clients must be made with
// NewCohort(s).NewClient, so that they share it.
func NewClient(id int, s *Strategy, w *Workload, end time.Duration, rng *rand.Rand, sink results.Sink) *Client {
	if s.sharesState() {
		panic(errShared(s))
	}
	return NewCohort(s).NewClient(id, w, end, rng, sink)
}

// Begin returns the client's first action. A closed-loop client first
// thinks, so a fleet starts spread out as it would be in steady state; a
// one-shot client sends at once.
func (c *Client) Begin() Action {
	if c.workload.Kind == Closed {
		return c.next(c.workload.Think.Sample(c.rng))
	}
	return c.next(0)
}

// BeginAt starts the client's single request at t (an open-loop arrival).
func (c *Client) BeginAt(t time.Duration) Action { return c.next(t) }

// next starts a new request at t, if the run allows it. Requests whose
// every call local policies refuse end without an action for the driver; a
// closed-loop client then thinks and starts the next one, in this loop
// rather than by recursion, however long the policies refuse.
func (c *Client) next(t time.Duration) Action {
	for {
		if t >= c.end {
			return Action{Op: Stop}
		}
		c.start, c.attempt, c.paid, c.open, c.once = t, 1, 0, true, false
		c.inFlight, c.hedges = 1, 0
		if c.strategy.Reset == PerRequest {
			c.failures, c.prevWait = 0, 0
		}
		c.requests++
		if m := c.strategy.Requests; m != nil && c.mixed && len(m.Requests) > 1 {
			var src rand.PCG
			requestStream(&src, c.traffic, c.ID, c.requests-1)
			c.req = int32(m.Pick(unit(src.Uint64())))
		}
		c.sink.Started(t)
		if c.pol == nil {
			return c.send(t)
		}
		c.pol.started(t)
		if c.pol.admit(t, c.rng) {
			return c.send(t)
		}
		a, ended, over := c.retry(t, false, 0)
		if !over {
			return a
		}
		if c.workload.Kind != Closed {
			return Action{Op: Stop}
		}
		t = ended + c.workload.Think.Sample(c.rng)
	}
}

// Reply is what became of one attempt.
type Reply struct {
	Sent    time.Duration // elapsed time the attempt was sent
	Latency time.Duration // until its answer (or error)
	Outcome results.Outcome
	// RetryAfter is the server's pushback (a Retry-After header), 0 if none.
	RetryAfter time.Duration
	// Lag is how late the driver sent the attempt: Sent minus the time
	// the client's Action asked for. The real-time driver measures it
	// (the harness's own lateness); the simulator is never late.
	Lag time.Duration
	// Status is the answer's HTTP status code, 0 if none or not known.
	Status int
	// Resend says the attempt was the transport's own re-send of the one
	// before (Strategy.Transport; Client.Resent took that one).
	Resend bool
	// Attempt, Of and Hedged are the answered attempt's number, request
	// and kind, as its Action said: a hedging strategy's driver hands them
	// back, as several attempts of the client may be in flight. 0: the
	// latest.
	Attempt, Of int
	Hedged      bool
}

// GRPCPushbackStop is, as a Reply's RetryAfter, a gRPC server's pushback
// in its "do not retry" form (grpc-retry-pushback-ms negative or not a
// number). A gRPC answer's RetryAfter is its pushback: the trailer's
// milliseconds, which herdbench's gRPC target sends for a fault's
// pushback_ms or, without it, its retry_after.
const GRPCPushbackStop time.Duration = -1

// Result takes the reply to the attempt the client last sent and returns
// the next action.
func (c *Client) Result(r Reply) Action {
	if c.strategy.Hedge.Max > 0 {
		return c.hedged(r)
	}
	now := r.Sent + r.Latency
	r.Outcome = c.strategy.Success.Outcome(r.Outcome, r.Status)
	c.sink.Attempt(results.Attempt{Sent: r.Sent, Latency: r.Latency, Number: int(c.attempt), Outcome: r.Outcome, Lag: r.Lag, Status: r.Status, Resend: r.Resend})
	if c.pol != nil {
		c.pol.answered(now, r.Outcome, int(c.paid))
	}
	if c.strategy.GRPC != nil {
		return c.grpcResult(r, now)
	}
	if r.Outcome == results.OK {
		if c.strategy.Reset == OnSuccess {
			c.failures, c.prevWait = 0, 0
		}
		c.finish(now, true)
		return c.after(now)
	}
	if !c.retries(r) {
		c.failures++
		c.finish(now, false)
		return c.after(now)
	}
	a, ended, over := c.retry(now, r.Outcome == results.Timeout, r.RetryAfter)
	if over {
		return c.after(ended)
	}
	return a
}

// Resent records the attempt the client last sent, which failed as r says,
// as one its transport sends again by itself (Strategy.Transport): it went
// to the target and counts as an attempt, but the strategy never sees it
// (no policy hears of it, no retry follows). The driver then sends the
// same attempt again and gives its reply, marked Resend, to Result.
func (c *Client) Resent(r Reply) {
	c.sink.Attempt(results.Attempt{Sent: r.Sent, Latency: r.Latency, Number: int(c.attempt), Outcome: r.Outcome, Lag: r.Lag, Status: r.Status})
}

// retries reports whether the strategy retries the failed attempt r:
// its failure is one it retries, and the request is one it may retry.
func (c *Client) retries(r Reply) bool {
	s := c.strategy
	if c.once {
		return false
	}
	if m := s.Requests; m != nil && !m.Requests[c.req].Retry {
		return false
	}
	return s.RetryOn.Retries(r.Outcome, r.Status)
}

// Cancel ends the current request at now because whoever it works for
// went away: the call of a middle tier whose own caller gave up on it, or
// whose tier crashed (its context ends, as Go's servers cancel a request
// whose connection closed). inFlight says an attempt is unanswered: it is
// recorded as a timeout (its caller's deadline passed, as gRPC's deadline
// propagation reports it) with the latency it had. The request counts as
// failed; the client sends nothing more. Call it only on a request that
// has not ended.
func (c *Client) Cancel(now time.Duration, inFlight bool, sent time.Duration) {
	if inFlight {
		c.sink.Attempt(results.Attempt{Sent: sent, Latency: now - sent, Number: int(c.attempt), Outcome: results.Timeout})
	}
	if c.pol != nil {
		c.pol.release(now)
	}
	c.finish(now, false)
}

// retry decides what follows attempt c.attempt, which failed or was refused
// by a local policy at now: send the next attempt after a wait, or give up
// (over, with the request ended at ended). A budget that denies the retry
// ends the request at once, as gRPC does. A call that a breaker or throttle
// refuses never reaches the driver: it counts as an attempt of the request
// (as in Retry(Breaker(call))) and the loop goes on from its intended send
// time.
func (c *Client) retry(now time.Duration, timeout bool, retryAfter time.Duration) (a Action, ended time.Duration, over bool) {
	s := c.strategy
	for {
		c.failures++ // the attempt that failed or was refused
		if s.MaxAttempts > 0 && int(c.attempt) >= s.MaxAttempts {
			c.finish(now, false)
			return Action{}, now, true
		}
		if c.pol != nil {
			cost, ok := c.pol.retry(now, timeout)
			if !ok {
				c.finish(now, false)
				return Action{}, now, true
			}
			c.paid = int32(cost)
		}
		wait := s.Backoff.Next(c.failures, c.prevWait, c.rng.Float64())
		if retryAfter > 0 && s.RetryAfter.Honor {
			wait = retryAfter
			if s.RetryAfter.Cap > 0 {
				wait = min(wait, s.RetryAfter.Cap)
			}
		}
		c.prevWait = wait
		at := now + wait
		if at >= c.end {
			return Action{Op: Stop}, 0, false
		}
		c.attempt++
		if c.pol == nil || c.pol.admit(at, c.rng) {
			c.inFlight, c.hedges = 1, 0 // a new try
			return c.sendAttempt(at), 0, false
		}
		c.pol.release(at) // the permitted retry was refused: it is over
		now, timeout, retryAfter = at, false, 0
	}
}

// grpcResult decides what follows an attempt of a grpc-go cohort that
// ended at now, by grpc-go v1.84.0's csAttempt.shouldRetry, step for step:
// a pushback's stop form takes a throttling token and ends the RPC; a code
// its retry policy does not list ends it; a retryable one takes a token,
// and the RPC ends if the throttler says no or its attempts are spent;
// otherwise the next attempt goes after the pushback, or after the
// backoff of the retries since the RPC began or since its last pushback.
// A wait past the RPC's deadline ends it at the deadline, as grpc-go's
// timer does when the context expires. The RPC's own deadline (Timeout)
// ends it with no retry.
func (c *Client) grpcResult(r Reply, now time.Duration) Action {
	if r.Outcome == results.OK {
		c.finish(now, true)
		return c.after(now)
	}
	fail := func(at time.Duration) Action {
		c.finish(at, false)
		return c.after(at)
	}
	if r.Outcome == results.Timeout {
		return fail(now) // the RPC's deadline: DEADLINE_EXCEEDED, never retried
	}
	pushback := r.RetryAfter
	if r.Outcome == results.Reset || r.Outcome == results.Refused {
		pushback = 0 // no trailers came
	}
	if pushback < 0 {
		if c.pol != nil && c.pol.budget != nil {
			c.pol.budget.Retry(now, false) // counts as a failure for throttling
		}
		return fail(now)
	}
	rp := c.strategy.GRPC.Retry
	if rp == nil || !rp.Retries(GRPCReplyCode(r)) {
		return fail(now)
	}
	if c.pol != nil {
		cost, ok := c.pol.retry(now, false)
		if !ok {
			return fail(now)
		}
		c.paid = int32(cost)
	}
	if int(c.attempt) >= rp.MaxAttempts {
		return fail(now)
	}
	var wait time.Duration
	if pushback > 0 {
		wait, c.failures = pushback, 0
	} else {
		wait = rp.Backoff(c.failures, c.rng.Float64())
		c.failures++
	}
	at := now + wait
	if d := c.strategy.Timeout; d > 0 && at >= c.start+d {
		return fail(c.start + d)
	}
	if at >= c.end {
		return Action{Op: Stop}
	}
	c.attempt++
	return Action{Op: Send, At: at, Attempt: int(c.attempt)}
}

// GRPCReplyCode returns the gRPC status code a grpc-go client sees for an
// attempt's reply: DEADLINE_EXCEEDED for its deadline, UNAVAILABLE when
// the connection was reset or refused (every stream on a reset connection
// fails so; a refused one fails the pick), and otherwise the code of the
// answer's status as herdbench's gRPC target sends it (GRPCCode).
func GRPCReplyCode(r Reply) codes.Code {
	switch r.Outcome {
	case results.OK:
		return codes.OK
	case results.Timeout:
		return codes.DeadlineExceeded
	case results.Reset, results.Refused:
		return codes.Unavailable
	}
	if r.Status != 0 {
		return GRPCCode(r.Status)
	}
	return codes.Unknown
}

// Deadline returns when the attempt sent at sent times out: Timeout after
// it, or for a grpc-go cohort Timeout after the RPC began (its deadline
// covers every attempt); 0 for no timeout.
func (c *Client) Deadline(sent time.Duration) time.Duration {
	d := c.strategy.Timeout
	switch {
	case d == 0:
		return 0
	case c.strategy.GRPC != nil:
		return c.start + d
	}
	return sent + d
}

// Unfinished reports whether the client's request has not ended: after a
// Stop, the run's end cut it (its next attempt would have come after the
// end), and it neither succeeded nor failed.
func (c *Client) Unfinished() bool { return c.open }

// finish records the end of the current request at now.
func (c *Client) finish(now time.Duration, ok bool) {
	c.open = false
	if c.pol != nil {
		c.pol.ended(now)
	}
	c.sink.Request(results.Request{Start: c.start, End: now, Succeeded: ok})
}

// after returns what follows a request that ended at now: a closed-loop
// client thinks, then starts the next; others stop.
func (c *Client) after(now time.Duration) Action {
	if c.workload.Kind != Closed {
		return Action{Op: Stop}
	}
	return c.next(now + c.workload.Think.Sample(c.rng))
}
