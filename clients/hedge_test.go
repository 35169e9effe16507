package clients

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// hedgedClient is a one-shot client of a strategy hedging after 10 ms, up
// to max per try, retrying after a constant 100 ms.
func hedgedClient(max, attempts int, sink results.Sink) *Client {
	s := &Strategy{Name: "h", Backoff: Backoff{Shape: Constant, Base: 100 * ms, Cap: 100 * ms}, MaxAttempts: attempts, Hedge: Hedge{Delay: 10 * ms, Max: max}}
	return NewClient(0, s, &Workload{Kind: OneShot, Clients: 1}, time.Minute, seeds.Stream(1, 0), sink)
}

// reply is attempt a's reply, sent at a.At, answered after latency.
func reply(a Action, latency time.Duration, o results.Outcome) Reply {
	status := 200
	if o != results.OK {
		status = 503
	}
	return Reply{Sent: a.At, Latency: latency, Outcome: o, Status: status, Attempt: a.Attempt, Of: a.Of, Hedged: a.Hedged}
}

// TestHedgeWinsAndTheLoserIsRecorded: an attempt unanswered for the delay
// is hedged; the hedge's success ends the request and is a hedge that won;
// the first attempt, answered later, is recorded and changes nothing.
func TestHedgeWinsAndTheLoserIsRecorded(t *testing.T) {
	sink := &fakeSink{}
	c := hedgedClient(2, 0, sink)
	first := c.BeginAt(0)
	if first != (Action{Op: Send, At: 0, Attempt: 1, Hedge: 10 * ms, Of: 1}) {
		t.Fatalf("first action %+v", first)
	}
	h := c.Hedge(10 * ms)
	if h != (Action{Op: Send, At: 10 * ms, Attempt: 2, Hedge: 20 * ms, Of: 1, Hedged: true}) {
		t.Fatalf("hedge %+v", h)
	}
	if a := c.Result(reply(h, 5*ms, results.OK)); a.Op != Stop {
		t.Fatalf("after the hedge's success: %+v, want stop (one shot)", a)
	}
	if a := c.Hedge(20 * ms); a.Op != Wait {
		t.Errorf("a hedge after the request ended: %+v, want wait", a)
	}
	if a := c.Result(reply(first, 40*ms, results.OK)); a.Op != Wait {
		t.Errorf("the late first attempt: %+v, want wait", a)
	}
	if len(sink.requests) != 1 || !sink.requests[0].Succeeded || sink.requests[0].End != 15*ms {
		t.Errorf("requests %+v, want one success at 15ms", sink.requests)
	}
	want := []results.Attempt{
		{Sent: 10 * ms, Latency: 5 * ms, Number: 2, Outcome: results.OK, Status: 200, Hedge: true, Won: true},
		{Sent: 0, Latency: 40 * ms, Number: 1, Outcome: results.OK, Status: 200},
	}
	if len(sink.attempts) != 2 || sink.attempts[0] != want[0] || sink.attempts[1] != want[1] {
		t.Errorf("attempts %+v, want %+v", sink.attempts, want)
	}
}

// TestHedgedTryFailsWhole: a failure while another attempt of the try is
// in flight waits for it; once both have failed, the strategy retries
// after its backoff with a new try, hedged again; max_attempts counts the
// hedges, and the last attempt is not hedged.
func TestHedgedTryFailsWhole(t *testing.T) {
	sink := &fakeSink{}
	c := hedgedClient(1, 3, sink)
	first := c.BeginAt(0)
	h := c.Hedge(10 * ms)
	if a := c.Result(reply(first, 12*ms, results.HTTP5xx)); a.Op != Wait {
		t.Fatalf("a failure beside a hedge in flight: %+v, want wait", a)
	}
	retry := c.Result(reply(h, 8*ms, results.HTTP5xx))
	if retry != (Action{Op: Send, At: 118 * ms, Attempt: 3, Of: 1}) {
		t.Fatalf("after the try failed: %+v, want attempt 3 at 118ms, unhedged (max_attempts 3)", retry)
	}
	if a := c.Hedge(128 * ms); a.Op != Wait {
		t.Errorf("a hedge past max_attempts: %+v, want wait", a)
	}
	if a := c.Result(reply(retry, ms, results.HTTP5xx)); a.Op != Stop || len(sink.requests) != 1 || sink.requests[0].Succeeded {
		t.Errorf("the last attempt failed: %+v, requests %+v; want stop, one failure", a, sink.requests)
	}
}

// TestHedgedFatalFailureEndsTheRequest: a failure the strategy does not
// retry ends the request at once, the hedge in flight left to be recorded.
func TestHedgedFatalFailureEndsTheRequest(t *testing.T) {
	sink := &fakeSink{}
	c := hedgedClient(1, 0, sink)
	c.strategy.RetryOn.Set = true // retries nothing
	first := c.BeginAt(0)
	h := c.Hedge(10 * ms)
	if a := c.Result(reply(first, 12*ms, results.HTTP5xx)); a.Op != Stop || len(sink.requests) != 1 || sink.requests[0].Succeeded {
		t.Fatalf("a failure not retried: %+v, requests %+v; want the request failed", a, sink.requests)
	}
	if a := c.Result(reply(h, 30*ms, results.OK)); a.Op != Wait || sink.attempts[1].Won {
		t.Errorf("the hedge answered after its request ended: %+v, %+v; want it recorded, not won", a, sink.attempts[1])
	}
}
