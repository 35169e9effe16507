package clients

import (
	"fmt"
	"math"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/results"
)

// Strategy is a client retry policy. It is immutable and shared by every
// client of a cohort.
type Strategy struct {
	Name        string
	Backoff     Backoff
	MaxAttempts int           // attempts per request, first try included; 0 means no limit
	Timeout     time.Duration // per attempt; 0 means none
	// Reset says when a client's backoff state starts afresh (see Reset);
	// the zero value is PerRequest.
	Reset Reset

	Budget     *Policy[Budget]   // caps retries; nil means none
	Breaker    *Policy[Breaker]  // refuses calls while open; nil means none
	Throttle   *Policy[Throttle] // refuses calls as the backend rejects them; nil means none
	RetryAfter RetryAfter        // what to do with the server's pushback
	// Transport is the HTTP client transport the clients send with: what
	// it does by itself, unseen by the strategy (see Transport).
	Transport Transport

	// Requests is the mix of requests the cohort sends (each with its
	// Retry flag set for this strategy); nil for herdbench's probe, a
	// bodiless POST to the target URL that is retried as any failure is.
	Requests *Mix
	// RetryOn is which failures are retried; Success which statuses
	// succeed. Their zero values retry every failure of a non-2xx.
	RetryOn RetryOn
	Success Success
	// RetryNonIdempotent and IdempotencyHeader are the rule for requests
	// whose method is not idempotent (POST, PATCH): such a request is
	// retried only if RetryNonIdempotent is set, or it carries the header
	// IdempotencyHeader names ("": DefaultIdempotencyHeader). The swarm
	// applies it to its mix as it is compiled (Request.Retry); a retrying
	// proxy to every request it forwards (MayRetry).
	RetryNonIdempotent bool
	IdempotencyHeader  string

	// GRPC, when set, makes the cohort's retries grpc-go's own, from its
	// service config (grpc.go): the client then follows grpc-go's
	// shouldRetry instead of herdbench's loop (retryable codes, pushback
	// in milliseconds, the throttler in Budget, the cap on attempts), and
	// Timeout is each RPC's deadline, over all its attempts, not each
	// attempt's. GRPCStrategy makes such a strategy.
	GRPC *GRPCServiceConfig

	// Hedge, when its Max is set, sends another attempt of a request while
	// the first is still in flight (hedge.go).
	Hedge Hedge

	// Tiers are, in a chain of tiers (client -> gateway -> service), the
	// strategies with which each tier that calls another calls the next
	// one, from the tier the clients call down to the one above the
	// bottom: a cohort is this strategy at the edge and one per such tier.
	// Nil for a single target.
	Tiers []Strategy
}

// Reset says when a client's backoff state starts afresh. The state is
// what the backoff grows from: n, the failed attempts that set the
// exponential ceiling v(n) (every shape but decorrelated and constant), and
// the previous wait, which decorrelated grows from (U(base, 3·previous)).
// Both follow the same rule. The attempt number of a request (Action's
// Attempt, what max_attempts counts) is always the request's own: Reset
// changes only what the backoff is given.
type Reset uint8

// Resets.
const (
	// PerRequest starts the state afresh with every request: n counts
	// the request's own failed attempts, and its first retry has no
	// previous wait (decorrelated starts from base). A well-written
	// client.
	PerRequest Reset = iota
	// OnSuccess carries the state from one request to the next and
	// starts it afresh after a success: a request that gave up (its
	// attempts spent, a budget's denial) leaves n and the previous wait
	// where they were, and the next request's first retry waits as if it
	// were the next attempt of the one before. A connection's reconnect
	// backoff, reset once connected.
	OnSuccess
	// Never carries the state for the client's whole life: n counts
	// every failed attempt since the client began, and decorrelated grows
	// from its last wait, however long ago. A long-lived client that never
	// resets its counter: after one long outage an exponential ceiling
	// stays at the cap for good.
	Never
)

var resetNames = [...]string{PerRequest: "per-request", OnSuccess: "on-success", Never: "never"}

// String returns the reset's name as written in scenarios.
func (r Reset) String() string {
	if int(r) < len(resetNames) {
		return resetNames[r]
	}
	return fmt.Sprintf("Reset(%d)", uint8(r))
}

// ParseReset reads a reset's name.
func ParseReset(name string) (Reset, bool) {
	for i, n := range resetNames {
		if n == name {
			return Reset(i), true
		}
	}
	return 0, false
}

// Transport is the HTTP client transport a strategy's clients send with,
// for what it does below the strategy.
type Transport uint8

// Transports.
const (
	// RawTransport is herdbench's own client (link.go): an attempt is sent
	// once. (A write that fails at once on a connection that died while
	// idle is written again on a new one: nothing of it reached the
	// target, as net/http does too.)
	RawTransport Transport = iota
	// NetHTTP is Go's net/http Transport sending a replayable request (no
	// body, or one it can rewind; GET, HEAD, OPTIONS, TRACE, or an
	// Idempotency-Key header): an attempt whose reused connection (one that
	// has carried an answered exchange) fails before the answer's first
	// byte, reset or closed, is sent again at once on a new connection,
	// unseen by the strategy; a failure on the new one is not re-sent
	// (net/http's persistConn.shouldRetryRequest). The re-send has the
	// attempt's number and its deadline; it counts in transport_resends.
	NetHTTP
)

var transportNames = [...]string{RawTransport: "herdbench", NetHTTP: "net/http"}

// String returns the transport's name as written in scenarios.
func (t Transport) String() string {
	if int(t) < len(transportNames) {
		return transportNames[t]
	}
	return fmt.Sprintf("Transport(%d)", uint8(t))
}

// ParseTransport reads a transport's name.
func ParseTransport(name string) (Transport, bool) {
	for i, n := range transportNames {
		if n == name {
			return Transport(i), true
		}
	}
	return 0, false
}

// Resends reports whether an attempt of a replayable request (Replayable)
// that failed with out, before any byte of its answer (a reset, or a
// closed connection), on a connection that had carried an answered
// exchange (reused), is sent again by the transport.
func (t Transport) Resends(out results.Outcome, reused, replayable bool) bool {
	return t == NetHTTP && reused && replayable && out == results.Reset
}

// Replayable reports whether net/http would send a request of method with
// these headers again by itself (its Request.isReplayable, Go 1.26: the
// swarm's bodies are always rewindable): GET, HEAD, OPTIONS or TRACE, or
// an Idempotency-Key or X-Idempotency-Key header.
func Replayable(method string, header func(name string) bool) bool {
	switch method {
	case "GET", "HEAD", "OPTIONS", "TRACE":
		return true
	}
	return header("Idempotency-Key") || header("X-Idempotency-Key")
}

// RetryAfter says whether a client waits what the server's Retry-After
// asks instead of its backoff.
type RetryAfter struct {
	Honor bool
	Cap   time.Duration // the longest wait honoured; 0 means no limit
}

// WorkloadKind says how clients generate requests.
type WorkloadKind uint8

// Workload kinds.
const (
	Closed  WorkloadKind = iota // N clients, each: a request (with its retries), think, repeat
	OneShot                     // N clients, one request each, all starting at t = 0
	Open                        // requests arrive at a rate, each one a logical request with its retries
)

var workloadNames = [...]string{Closed: "closed", OneShot: "oneshot", Open: "open"}

func (k WorkloadKind) String() string { return workloadNames[k] }

// ParseWorkloadKind reads a workload kind name.
func ParseWorkloadKind(name string) (WorkloadKind, bool) {
	for i, n := range workloadNames {
		if n == name {
			return WorkloadKind(i), true
		}
	}
	return 0, false
}

// Workload is the shape of the load.
type Workload struct {
	Kind    WorkloadKind
	Clients int       // Closed, OneShot: number of clients
	Think   dist.Dist // Closed: pause between a request's end and the next one's start
	Rate    float64   // Open: arrivals per second (Poisson)
	// Surges are, for Open, stretches of the run at another rate (a load
	// spike), in order and apart.
	Surges []Surge
}

// Surge is a stretch of an open workload's run, from At for For, at Rate
// arrivals per second.
type Surge struct {
	At, For time.Duration
	Rate    float64
}

// segment returns the arrival rate in effect at t and when it next
// changes (the end of time if never).
func (w *Workload) segment(t time.Duration) (float64, time.Duration) {
	for _, s := range w.Surges {
		switch {
		case t < s.At:
			return w.Rate, s.At
		case t < s.At+s.For:
			return s.Rate, s.At + s.For
		}
	}
	return w.Rate, time.Duration(math.MaxInt64)
}

// PeakRate returns the highest arrival rate of an open workload.
func (w *Workload) PeakRate() float64 {
	r := w.Rate
	for _, s := range w.Surges {
		r = max(r, s.Rate)
	}
	return r
}

// NextArrival returns an open workload's next arrival after the one at
// prev, from e, a draw of the exponential distribution of mean 1, and false
// when it falls at or after end. Both drivers draw arrivals with it. The
// gap is compared in floating point before it becomes a duration, so a
// rare huge draw (the standard library's exponential draw is +Inf once in
// 2^53) ends the arrivals instead of overflowing into the past.
//
// With surges the rate changes over the run: the arrivals are a Poisson
// process of that rate (e is spent at each stretch's rate in turn, so a
// gap that crosses a change of rate is drawn as the process would).
func (w *Workload) NextArrival(prev time.Duration, e float64, end time.Duration) (time.Duration, bool) {
	if len(w.Surges) > 0 {
		return w.nextSurging(prev, e, end)
	}
	gap := e / w.Rate * float64(time.Second)
	if !(gap < float64(end-prev)) { // NaN and +Inf too
		return end, false
	}
	return prev + time.Duration(gap), true
}

// nextSurging is NextArrival over stretches of different rates.
func (w *Workload) nextSurging(t time.Duration, e float64, end time.Duration) (time.Duration, bool) {
	for t < end {
		rate, until := w.segment(t)
		until = min(until, end)
		span := (until - t).Seconds()
		if need := e / rate; need < span { // NaN and +Inf not
			return t + time.Duration(need*float64(time.Second)), true
		}
		e -= rate * span
		t = until
	}
	return end, false
}
