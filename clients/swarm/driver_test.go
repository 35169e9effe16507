package swarm

import (
	"context"
	"math/rand/v2"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
)

// sink keeps a client's records.
type sink struct {
	attempts []results.Attempt
	requests []results.Request
}

func (s *sink) Started(time.Duration)     {}
func (s *sink) Attempt(a results.Attempt) { s.attempts = append(s.attempts, a) }
func (s *sink) Request(q results.Request) { s.requests = append(s.requests, q) }
func (s *sink) Reset()                    { *s = sink{} }
func (s *sink) lags() (out []time.Duration) {
	for _, a := range s.attempts {
		out = append(out, a.Lag)
	}
	return out
}

// script is a Sender that answers each attempt as its function says,
// after a latency on the wall clock, and keeps the wall-clock instants
// it was asked to send at.
type script struct {
	d      *Driver
	wall   []time.Duration // when each Send began, since the origin, on the wall clock
	answer func(n int, a Attempt) (clients.Reply, *clients.Reply, bool)
	late   time.Duration // each send goes out this late (scenario time)
}

func (s *script) Send(_ context.Context, a Attempt) (clients.Reply, *clients.Reply, bool) {
	s.wall = append(s.wall, time.Since(s.d.Origin))
	time.Sleep(s.d.Slow.Wall(s.late))
	r, first, cut := s.answer(len(s.wall)-1, a)
	r.Sent = s.d.Slow.Since(s.d.Origin)
	time.Sleep(s.d.Slow.Wall(r.Latency))
	return r, first, cut
}

// TestDriverRunsTheStepFunctionOnTheSlowClock: the one driver sleeps until
// each action's time on the run's clock (four times the scenario's time in
// slow motion 4×), hands each reply to the step function with its send lag
// measured in the scenario's time, and stops when the step function does.
func TestDriverRunsTheStepFunctionOnTheSlowClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &clients.Strategy{Name: "s", Backoff: clients.Backoff{Shape: clients.Constant, Base: 100 * ms, Cap: 100 * ms}, MaxAttempts: 3}
		rec := &sink{}
		c := clients.NewClient(0, st, &clients.Workload{Kind: clients.OneShot, Clients: 1}, time.Minute, rand.New(rand.NewPCG(1, 2)), rec)
		d := &Driver{Origin: time.Now().Add(10 * ms), Slow: slowmo.Factor(4)}
		s := &script{d: d, late: 2 * ms, answer: func(int, Attempt) (clients.Reply, *clients.Reply, bool) {
			return clients.Reply{Latency: 10 * ms, Outcome: results.HTTP5xx, Status: 503}, nil, false
		}}
		e := d.Drive(context.Background(), c, c.BeginAt(0), s, nil)
		if e.Cut || e.OK {
			t.Fatalf("the drive ended %+v, want done, not ok", e)
		}
		// Attempts at 0, then 2+10+100 and 224 ms of scenario time: four
		// times that on the wall clock.
		want := []time.Duration{0, 4 * 112 * ms, 4 * 224 * ms}
		if len(s.wall) != len(want) {
			t.Fatalf("sends at %v on the wall clock, want %v", s.wall, want)
		}
		for i := range want {
			if s.wall[i] != want[i] {
				t.Errorf("send %d at %v on the wall clock, want %v", i, s.wall[i], want[i])
			}
		}
		for i, lag := range rec.lags() {
			if lag != 2*ms {
				t.Errorf("attempt %d's send lag %v, want 2ms (scenario time)", i+1, lag)
			}
		}
		if len(rec.requests) != 1 || rec.requests[0].Succeeded {
			t.Errorf("requests %+v, want one failed after 3 attempts", rec.requests)
		}
	})
}

// TestDriverResentAndCut: a transport's own re-send records the first try
// (its lag the attempt's, the re-send's none) before the step function
// hears of the re-send; an attempt the run's end cuts (ctx, or the sender
// saying so) is not handed to the step function, and the drive says when
// it was sent.
func TestDriverResentAndCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &clients.Strategy{Name: "s", Backoff: clients.Backoff{Shape: clients.Constant, Base: 100 * ms, Cap: 100 * ms}, MaxAttempts: 5}
		rec := &sink{}
		c := clients.NewClient(0, st, &clients.Workload{Kind: clients.OneShot, Clients: 1}, time.Minute, rand.New(rand.NewPCG(1, 2)), rec)
		d := &Driver{Origin: time.Now()}
		s := &script{d: d, late: ms, answer: func(n int, a Attempt) (clients.Reply, *clients.Reply, bool) {
			switch n {
			case 0:
				return clients.Reply{Latency: 5 * ms, Outcome: results.OK, Status: 200, Resend: true}, &clients.Reply{Sent: ms, Latency: 2 * ms, Outcome: results.Reset}, false
			default:
				return clients.Reply{Latency: 5 * ms}, nil, true // the run ended under it
			}
		}}
		e := d.Drive(context.Background(), c, c.BeginAt(0), s, nil)
		if !e.OK || e.Cut {
			t.Fatalf("first drive: %+v, want done and ok", e)
		}
		if len(rec.attempts) != 2 || rec.attempts[0].Outcome != results.Reset || rec.attempts[0].Lag != ms || rec.attempts[1].Lag != 0 || !rec.attempts[1].Resend {
			t.Fatalf("attempts %+v: want the first try (reset, lag 1ms) then the re-send (ok, lag 0)", rec.attempts)
		}
		rec.Reset()
		c = clients.NewClient(1, st, &clients.Workload{Kind: clients.OneShot, Clients: 1}, time.Minute, rand.New(rand.NewPCG(1, 2)), rec)
		e = d.Drive(context.Background(), c, c.BeginAt(d.Slow.Since(d.Origin)), s, nil)
		if !e.Cut || !e.InFlight || e.Sent == 0 || len(rec.attempts) != 0 {
			t.Errorf("a cut attempt: %+v, attempts %+v; want cut in flight, its send time, nothing recorded", e, rec.attempts)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c = clients.NewClient(2, st, &clients.Workload{Kind: clients.OneShot, Clients: 1}, time.Minute, rand.New(rand.NewPCG(1, 2)), rec)
		if e := d.Drive(ctx, c, c.BeginAt(30*time.Second), s, nil); !e.Cut || e.InFlight {
			t.Errorf("ctx ended while waiting: %+v, want cut, nothing in flight", e)
		}
	})
}
