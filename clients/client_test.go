package clients

import (
	"math"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// fakeSink keeps every record.
type fakeSink struct {
	started  []time.Duration
	attempts []results.Attempt
	requests []results.Request
}

func (f *fakeSink) Started(at time.Duration)  { f.started = append(f.started, at) }
func (f *fakeSink) Attempt(a results.Attempt) { f.attempts = append(f.attempts, a) }
func (f *fakeSink) Request(q results.Request) { f.requests = append(f.requests, q) }

func TestClientRetriesOnTheBackoffScheduleThenGivesUp(t *testing.T) {
	s := &Strategy{Name: "x", Backoff: Backoff{Shape: Exponential, Base: 100 * ms, Cap: time.Second}, MaxAttempts: 3}
	w := &Workload{Kind: OneShot, Clients: 1}
	sink := &fakeSink{}
	c := NewClient(0, s, w, time.Minute, seeds.Stream(1, 0), sink)

	a := c.Begin()
	if a != (Action{Op: Send, At: 0, Attempt: 1}) {
		t.Fatalf("Begin = %+v", a)
	}
	// Fails after 10 ms; the first retry waits 100ms*2^1.
	a = c.Result(Reply{Sent: 0, Latency: 10 * ms, Outcome: results.HTTP5xx})
	if a != (Action{Op: Send, At: 210 * ms, Attempt: 2}) {
		t.Fatalf("after the first failure: %+v", a)
	}
	a = c.Result(Reply{Sent: 210 * ms, Latency: 5 * ms, Outcome: results.Reset})
	if a != (Action{Op: Send, At: 615 * ms, Attempt: 3}) {
		t.Fatalf("after the second failure: %+v", a)
	}
	a = c.Result(Reply{Sent: 615 * ms, Latency: 1 * ms, Outcome: results.Timeout})
	if a.Op != Stop {
		t.Fatalf("after max_attempts failures: %+v, want Stop", a)
	}
	if len(sink.attempts) != 3 || sink.attempts[2].Number != 3 || sink.attempts[1].Sent != 210*ms {
		t.Errorf("attempts recorded: %+v", sink.attempts)
	}
	if len(sink.requests) != 1 || sink.requests[0] != (results.Request{Start: 0, End: 616 * ms, Succeeded: false}) {
		t.Errorf("requests recorded: %+v", sink.requests)
	}
}

func TestClosedClientThinksBetweenRequestsAndStopsAtTheEnd(t *testing.T) {
	s := &Strategy{Backoff: Backoff{Shape: None}, MaxAttempts: 2}
	w := &Workload{Kind: Closed, Clients: 1, Think: dist.Const(50 * ms)}
	sink := &fakeSink{}
	c := NewClient(0, s, w, 200*ms, seeds.Stream(1, 0), sink)
	a := c.Begin()
	if a.At != 50*ms {
		t.Fatalf("a closed client first thinks: %+v", a)
	}
	a = c.Result(Reply{Sent: 50 * ms, Latency: 10 * ms, Outcome: results.OK})
	if a != (Action{Op: Send, At: 110 * ms, Attempt: 1}) {
		t.Fatalf("after a success the next request starts after think time: %+v", a)
	}
	a = c.Result(Reply{Sent: 110 * ms, Latency: 10 * ms, Outcome: results.HTTP429})
	if a != (Action{Op: Send, At: 120 * ms, Attempt: 2}) {
		t.Fatalf("backoff none retries at once: %+v", a)
	}
	a = c.Result(Reply{Sent: 120 * ms, Latency: 40 * ms, Outcome: results.OK})
	if a.Op != Stop {
		t.Fatalf("the next request would start at 210ms, after the run's end: %+v", a)
	}
	if len(sink.started) != 2 || len(sink.requests) != 2 || !sink.requests[1].Succeeded || sink.requests[1].Start != 110*ms {
		t.Errorf("started %v, requests %+v", sink.started, sink.requests)
	}
}

func TestSameSeedSameDraws(t *testing.T) {
	s := &Strategy{Backoff: Backoff{Shape: Full, Base: 10 * ms, Cap: time.Second}}
	w := &Workload{Kind: Closed, Think: dist.Dist{Kind: dist.Exponential, A: 100 * ms}}
	run := func() []Action {
		c := NewClient(3, s, w, time.Hour, seeds.Stream(99, 3), &fakeSink{})
		out := []Action{c.Begin()}
		for i := 0; i < 20; i++ {
			a := out[len(out)-1]
			o := results.HTTP5xx
			if i%4 == 3 {
				o = results.OK
			}
			out = append(out, c.Result(Reply{Sent: a.At, Latency: ms, Outcome: o}))
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("step %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}

// Arrivals end at the end of the run, and a huge or infinite draw ends
// them instead of overflowing into the past.
func TestNextArrival(t *testing.T) {
	w := Workload{Kind: Open, Rate: 2} // mean gap 500ms
	end := 2 * time.Second
	for _, c := range []struct {
		prev time.Duration
		e    float64
		want time.Duration
		ok   bool
	}{
		{0, 1, 500 * time.Millisecond, true},
		{time.Second, 1.5, 1750 * time.Millisecond, true},
		{time.Second, 2, end, false}, // exactly at the end: not in the run
		{1999 * time.Millisecond, 1e-6, 1999*time.Millisecond + 500, true},
		{0, math.Inf(1), end, false},
		{0, math.NaN(), end, false},
		{0, 1e300, end, false},
	} {
		got, ok := w.NextArrival(c.prev, c.e, end)
		if got != c.want || ok != c.ok {
			t.Errorf("NextArrival(%v, %v) = %v, %v; want %v, %v", c.prev, c.e, got, ok, c.want, c.ok)
		}
	}
}

// A surge changes the arrival rate for its stretch: a gap crossing a
// change of rate is spent at each stretch's rate in turn, and the
// arrivals in a stretch come at its rate.
func TestNextArrivalWithSurges(t *testing.T) {
	w := Workload{Kind: Open, Rate: 40, Surges: []Surge{{At: time.Second, For: time.Second, Rate: 80}, {At: 3 * time.Second, For: time.Second, Rate: 0.001}}}
	end := 10 * time.Second
	for _, c := range []struct {
		prev time.Duration
		e    float64
		want time.Duration
		ok   bool
	}{
		{0, 4, 100 * time.Millisecond, true},                           // 40/s
		{900 * time.Millisecond, 8, 1050 * time.Millisecond, true},     // 4 at 40/s to 1 s, 4 at 80/s
		{1500 * time.Millisecond, 8, 1600 * time.Millisecond, true},    // 80/s
		{1900 * time.Millisecond, 47, 2975 * time.Millisecond, true},   // 8 at 80/s, 39 at 40/s
		{2900 * time.Millisecond, 8, 4099975 * time.Microsecond, true}, // 4 to 3 s, 0.001 over the next second, 3.999 at 40/s
		{9 * time.Second, 100, end, false},
		{0, math.Inf(1), end, false},
		{0, math.NaN(), end, false},
	} {
		got, ok := w.NextArrival(c.prev, c.e, end)
		if d := got - c.want; d < -time.Microsecond || d > time.Microsecond || ok != c.ok {
			t.Errorf("NextArrival(%v, %v) = %v, %v; want %v, %v", c.prev, c.e, got, ok, c.want, c.ok)
		}
	}
	rng := seeds.Stream(7, seeds.Arrivals)
	counts := map[int]int{}
	for at, ok := w.NextArrival(0, rng.ExpFloat64(), end); ok; at, ok = w.NextArrival(at, rng.ExpFloat64(), end) {
		counts[int(at/time.Second)]++
	}
	if counts[0] < 25 || counts[0] > 55 || counts[1] < 60 || counts[1] > 100 || counts[3] > 1 {
		t.Errorf("arrivals per second: %v; want about 40, then 80 in the surge, then none in the second at 0.001/s", counts)
	}
	if w.PeakRate() != 80 {
		t.Errorf("PeakRate %v, want 80", w.PeakRate())
	}
}

// TestCancel: a request whose caller went away ends failed; its attempt
// in flight counts as a timeout with the latency it had.
func TestCancel(t *testing.T) {
	s := &Strategy{Name: "x", Backoff: Backoff{Shape: Constant, Base: 100 * ms}, MaxAttempts: 4}
	w := &Workload{Kind: OneShot, Clients: 1}
	sink := &fakeSink{}
	c := NewClient(0, s, w, time.Minute, seeds.Stream(1, 0), sink)
	a := c.BeginAt(50 * ms)
	a = c.Result(Reply{Sent: a.At, Latency: 10 * ms, Outcome: results.HTTP5xx})
	if a.At != 160*ms || a.Attempt != 2 {
		t.Fatalf("retry %+v", a)
	}
	c.Cancel(190*ms, true, 160*ms)
	want := []results.Attempt{
		{Sent: 50 * ms, Latency: 10 * ms, Number: 1, Outcome: results.HTTP5xx},
		{Sent: 160 * ms, Latency: 30 * ms, Number: 2, Outcome: results.Timeout},
	}
	if len(sink.attempts) != 2 || sink.attempts[0] != want[0] || sink.attempts[1] != want[1] {
		t.Errorf("attempts %+v, want %+v", sink.attempts, want)
	}
	if len(sink.requests) != 1 || sink.requests[0] != (results.Request{Start: 50 * ms, End: 190 * ms}) {
		t.Errorf("requests %+v", sink.requests)
	}

	// Cancelled while it waits to retry: nothing was in flight.
	sink = &fakeSink{}
	c = NewClient(0, s, w, time.Minute, seeds.Stream(1, 0), sink)
	a = c.BeginAt(0)
	c.Result(Reply{Sent: 0, Latency: 10 * ms, Outcome: results.HTTP5xx})
	c.Cancel(50*ms, false, 0)
	if len(sink.attempts) != 1 || len(sink.requests) != 1 || sink.requests[0].End != 50*ms || sink.requests[0].Succeeded {
		t.Errorf("attempts %+v, requests %+v", sink.attempts, sink.requests)
	}
}
