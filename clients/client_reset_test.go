package clients

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/results"
)

// halves is a random source whose every Float64 is exactly 0.5.
type halves struct{}

func (halves) Uint64() uint64 { return 1 << 52 } // Float64 keeps 53 bits: 2^52 / 2^53

// waitsUnder runs one closed-loop client (max 2 attempts, 10 ms think)
// through three requests, answering as the script says: the first request
// fails twice and gives up, the second and third fail once, then succeed.
// It returns the wait before each retry.
func waitsUnder(t *testing.T, b Backoff, reset Reset) []time.Duration {
	t.Helper()
	s := &Strategy{Name: "s", Backoff: b, MaxAttempts: 2, Reset: reset}
	w := &Workload{Kind: Closed, Clients: 1, Think: dist.Const(10 * ms)}
	c := NewClient(0, s, w, time.Hour, rand.New(halves{}), &fakeSink{})
	a := c.Begin()
	var waits []time.Duration
	for i, ok := range []bool{false, false, false, true, false, true} {
		if a.Op != Send {
			t.Fatalf("reply %d: %+v, want a send", i, a)
		}
		out := results.HTTP5xx
		if ok {
			out = results.OK
		}
		end := a.At + ms
		next := c.Result(Reply{Sent: a.At, Latency: ms, Outcome: out})
		if next.Attempt > 1 {
			waits = append(waits, next.At-end)
		}
		a = next
	}
	return waits
}

// Reset decides what the backoff grows from: with n counting this
// request's failures only (per-request), every failure since the last
// success (on-success), or every failure ever (never); and the previous
// wait, which decorrelated grows from, follows the same rule.
func TestResetDecidesWhatTheBackoffGrowsFrom(t *testing.T) {
	exp := Backoff{Shape: Exponential, Base: 100 * ms, Cap: 10 * time.Second}
	dec := Backoff{Shape: Decorrelated, Base: 100 * ms, Cap: 10 * time.Second}
	for _, c := range []struct {
		name  string
		b     Backoff
		reset Reset
		want  []time.Duration // before request 1's retry, request 2's, request 3's
	}{
		// v(n) = 100 ms · 2^n: every request's first retry is n = 1.
		{"exponential per-request", exp, PerRequest, []time.Duration{200 * ms, 200 * ms, 200 * ms}},
		// Request 1 gave up after 2 failures: request 2's is the third
		// (800 ms); its success starts request 3 afresh.
		{"exponential on-success", exp, OnSuccess, []time.Duration{200 * ms, 800 * ms, 200 * ms}},
		// The fourth failure ever: 1.6 s, though the last request succeeded.
		{"exponential never", exp, Never, []time.Duration{200 * ms, 800 * ms, 1600 * ms}},
		// U(base, 3·previous) at u = 0.5: from base (100 ms) 200 ms.
		{"decorrelated per-request", dec, PerRequest, []time.Duration{200 * ms, 200 * ms, 200 * ms}},
		// From the 200 ms request 1 last waited: 100 + 0.5·(600 − 100).
		{"decorrelated on-success", dec, OnSuccess, []time.Duration{200 * ms, 350 * ms, 200 * ms}},
		// From 350 ms, though request 2 succeeded: 100 + 0.5·(1050 − 100).
		{"decorrelated never", dec, Never, []time.Duration{200 * ms, 350 * ms, 575 * ms}},
	} {
		got := waitsUnder(t, c.b, c.reset)
		if len(got) != len(c.want) {
			t.Fatalf("%s: waits %v, want %v", c.name, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: waits %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// Under never, a client's ceiling reaches the cap during one long outage
// and stays there: every later failure, however isolated, waits the cap;
// per-request starts each request from base again.
func TestNeverResetKeepsTheCeilingAtTheCap(t *testing.T) {
	b := Backoff{Shape: Exponential, Base: 100 * ms, Cap: time.Second}
	for _, c := range []struct {
		reset Reset
		want  time.Duration
	}{{PerRequest, 200 * ms}, {OnSuccess, 200 * ms}, {Never, time.Second}} {
		s := &Strategy{Name: "s", Backoff: b, MaxAttempts: 0, Reset: c.reset}
		w := &Workload{Kind: Closed, Clients: 1, Think: dist.Const(10 * ms)}
		cl := NewClient(0, s, w, time.Hour, rand.New(halves{}), &fakeSink{})
		a := cl.Begin()
		for range 10 { // an outage: ten failures in a row
			a = cl.Result(Reply{Sent: a.At, Latency: ms, Outcome: results.Refused})
		}
		a = cl.Result(Reply{Sent: a.At, Latency: ms, Outcome: results.OK}) // it is back
		for range 3 {                                                      // three requests later, one isolated failure
			a = cl.Result(Reply{Sent: a.At, Latency: ms, Outcome: results.OK})
		}
		end := a.At + ms
		a = cl.Result(Reply{Sent: a.At, Latency: ms, Outcome: results.HTTP5xx})
		if got := a.At - end; got != c.want {
			t.Errorf("%s: an isolated failure after the outage waits %v, want %v", c.reset, got, c.want)
		}
	}
}

func TestParseReset(t *testing.T) {
	for _, name := range []string{"per-request", "on-success", "never"} {
		r, ok := ParseReset(name)
		if !ok || r.String() != name {
			t.Errorf("ParseReset(%q) = %v, %v", name, r, ok)
		}
	}
	if _, ok := ParseReset("always"); ok {
		t.Error("ParseReset accepted an unknown name")
	}
	if Reset(0) != PerRequest {
		t.Error("the zero Reset is not per-request, today's behaviour")
	}
}
