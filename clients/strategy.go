package clients

import (
	"fmt"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
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

	// ServiceConfig, when set, makes the cohort grpc-go's own retry
	// (client: grpc-go): a gRPC channel dialled with this service config
	// (grpc-go's JSON, as written) decides the retries and their waits, and
	// herdbench only records; the fields above then do not retry.
	ServiceConfig string

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
}

// NextArrival returns an open workload's next arrival after the one at
// prev, from e, a draw of the exponential distribution of mean 1, and false
// when it falls at or after end. Both drivers draw arrivals with it. The
// gap is compared in floating point before it becomes a duration, so a
// rare huge draw (the standard library's exponential draw is +Inf once in
// 2^53) ends the arrivals instead of overflowing into the past.
func (w *Workload) NextArrival(prev time.Duration, e float64, end time.Duration) (time.Duration, bool) {
	gap := e / w.Rate * float64(time.Second)
	if !(gap < float64(end-prev)) { // NaN and +Inf too
		return end, false
	}
	return prev + time.Duration(gap), true
}
