package clients

import (
	"math/rand/v2"
	"time"

	"github.com/herdbench/herdbench/results"
)

// Op is what a client asks its driver to do next.
type Op uint8

// Ops.
const (
	Send Op = iota // send attempt Attempt at time At
	Stop           // the client is done
)

// Action is a client's next step.
type Action struct {
	Op      Op
	At      time.Duration // intended send time, elapsed since the run's start
	Attempt int           // 1 for a first try
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

	start    time.Duration // intended start of the current request
	attempt  int           // attempts sent for the current request
	prevWait time.Duration
	requests int // requests started
}

// Stream returns the random stream of stream id under seed. Every client,
// target and arrival process derives its own, so runs are reproducible and
// no stream is shared between goroutines.
func Stream(seed uint64, id uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, id)) }

// NewClient returns client id of a cohort. end is the run's duration: no
// request starts and no attempt is sent at or after it.
func NewClient(id int, s *Strategy, w *Workload, end time.Duration, rng *rand.Rand, sink results.Sink) *Client {
	return &Client{ID: id, strategy: s, workload: w, end: end, rng: rng, sink: sink}
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

// next starts a new request at t, if the run allows it.
func (c *Client) next(t time.Duration) Action {
	if t >= c.end {
		return Action{Op: Stop}
	}
	c.start, c.attempt, c.prevWait = t, 1, 0
	c.requests++
	c.sink.Started(t)
	return Action{Op: Send, At: t, Attempt: 1}
}

// Reply is what became of one attempt.
type Reply struct {
	Sent    time.Duration // elapsed time the attempt was sent
	Latency time.Duration // until its answer (or error)
	Outcome results.Outcome
	// RetryAfter is the server's pushback (a Retry-After header), 0 if none.
	RetryAfter time.Duration
}

// Result takes the reply to the attempt the client last sent and returns
// the next action.
func (c *Client) Result(r Reply) Action {
	now := r.Sent + r.Latency
	c.sink.Attempt(results.Attempt{Sent: r.Sent, Latency: r.Latency, Number: c.attempt, Outcome: r.Outcome})
	if r.Outcome == results.OK {
		return c.finish(now, true)
	}
	s := c.strategy
	if s.MaxAttempts > 0 && c.attempt >= s.MaxAttempts {
		return c.finish(now, false)
	}
	wait := s.Backoff.Next(c.attempt, c.prevWait, c.rng.Float64())
	c.prevWait = wait
	at := now + wait
	if at >= c.end {
		return Action{Op: Stop}
	}
	c.attempt++
	return Action{Op: Send, At: at, Attempt: c.attempt}
}

func (c *Client) finish(now time.Duration, ok bool) Action {
	c.sink.Request(results.Request{Start: c.start, End: now, Succeeded: ok})
	if c.workload.Kind != Closed {
		return Action{Op: Stop}
	}
	return c.next(now + c.workload.Think.Sample(c.rng))
}
