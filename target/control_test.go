package target

import (
	"context"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
)

// standalone is a standalone target on an in-memory network, for tests in
// a synctest bubble.
type standalone struct {
	t      *testing.T
	srv    *Server
	client *http.Client
	start  time.Time
}

func newStandalone(t *testing.T, o Options) *standalone {
	t.Helper()
	n := &memnet.Network{}
	o.Addr, o.Listen = "target:80", n.Listen
	if o.Config.Concurrency == 0 {
		o.Config = Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}
	}
	start := time.Now()
	srv, err := Listen(o)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{DialContext: n.Dial}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = srv.Close()
	})
	return &standalone{t: t, srv: srv, client: &http.Client{Transport: tr}, start: start}
}

// at waits until elapsed time d, and until the server has done what is due
// then (a plan edge at d, say), so a request at d sees the plan's state at d.
func (s *standalone) at(d time.Duration) {
	time.Sleep(time.Until(s.start.Add(d)))
	synctest.Wait()
}

// get sends a POST now and returns the status, or 0 and the error.
func (s *standalone) get(timeout time.Duration) (int, error) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://target:80/", http.NoBody)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

func (s *standalone) expect(at time.Duration, want int) {
	s.t.Helper()
	s.at(at)
	got, err := s.get(0)
	if got != want {
		s.t.Errorf("request at %s: status %d (err %v), want %d", at, got, err, want)
	}
}

func outage503(name string, at, length time.Duration) chaos.Timed {
	return chaos.Timed{Name: name, Kind: "outage", At: at, For: length, Fault: chaos.Outage{Mode: chaos.Unavailable}}
}

// TestHeldPlanStartsOnControl: with Hold, the plan does nothing until
// StartPlan; then its faults act relative to that instant.
func TestHeldPlanStartsOnControl(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStandalone(t, Options{Plan: plan(t, outage503("down", time.Second, time.Second)), Hold: true})
		s.expect(1500*time.Millisecond, 200)
		if st := s.srv.Status(); st.PlanRunning || len(st.Active) != 0 {
			t.Fatalf("held plan: running %v, active %v", st.PlanRunning, st.Active)
		}
		s.at(2 * time.Second)
		if err := s.srv.StartPlan(time.Time{}); err != nil {
			t.Fatal(err)
		}
		s.expect(2999*time.Millisecond, 200)
		s.expect(3*time.Second, 503)
		st := s.srv.Status()
		if !st.PlanRunning || st.PlanElapsed != time.Second || len(st.Active) != 1 || st.Active[0] != "down" || st.PlanDone {
			t.Errorf("status at plan t=1s: %+v", st)
		}
		s.expect(4*time.Second, 200)
		if st := s.srv.Status(); !st.PlanDone {
			t.Errorf("status after the last fault: PlanDone false")
		}
	})
}

// TestStartPlanAt starts the plan at a future wall-clock instant, as the
// scenario command does with --chaos-control.
func TestStartPlanAt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStandalone(t, Options{Plan: plan(t, outage503("down", time.Second, time.Second)), Hold: true})
		if err := s.srv.StartPlan(s.start.Add(500 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		s.expect(1499*time.Millisecond, 200)
		s.expect(1500*time.Millisecond, 503)
		s.expect(2500*time.Millisecond, 200)
		if err := s.srv.StartPlan(s.start.Add(-time.Second)); err == nil {
			t.Error("StartPlan before the server started: no error")
		}
	})
}

// TestStopEndsFaultsNow: StopPlan ends an active outage at once, and the
// cold start ramps from that instant.
func TestStopEndsFaultsNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0),
			ColdStart: ColdStart{From: 0.5, Ramp: time.Second}}
		s := newStandalone(t, Options{Config: cfg, Plan: plan(t, outage503("down", time.Second, 10*time.Second))})
		s.expect(1500*time.Millisecond, 503)
		s.at(2 * time.Second)
		if err := s.srv.StopPlan(); err != nil {
			t.Fatal(err)
		}
		s.expect(2*time.Second, 200)
		if st := s.srv.Status(); st.PlanRunning || len(st.Active) != 0 || st.Capacity != 2 {
			t.Errorf("just after stop: running %v, active %v, capacity %d; want stopped, none, 2 (cold start from 0.5)", st.PlanRunning, st.Active, st.Capacity)
		}
		s.at(3 * time.Second)
		if c := s.srv.Status().Capacity; c != 4 {
			t.Errorf("capacity 1s after stop: %d, want 4", c)
		}
		s.expect(11*time.Second, 200) // the planned end passes unnoticed
	})
}

// TestInjectRefuseAndReset injects connection-level faults by hand: the
// listener closes and reopens, and a reset outage resets a request held by
// a blackhole.
func TestInjectRefuseAndReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStandalone(t, Options{})
		s.at(time.Second)
		if err := s.srv.Inject(chaos.Timed{Name: "gone", Kind: "outage", For: time.Second, Fault: chaos.Outage{Mode: chaos.Refuse}}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		s.at(1500 * time.Millisecond)
		if _, err := s.get(0); err == nil {
			t.Error("request during an injected refuse outage: no error")
		}
		s.expect(2*time.Second, 200)

		// A blackhole from 3s, then a reset outage from 3.5s, injected with delays.
		s.at(3 * time.Second)
		if err := s.srv.Inject(chaos.Timed{Name: "stall", Kind: "blip", For: time.Second, Fault: chaos.Blip{Blackhole: true}}); err != nil {
			t.Fatal(err)
		}
		if err := s.srv.Inject(chaos.Timed{Name: "crash", Kind: "outage", At: 500 * time.Millisecond, For: time.Second, Fault: chaos.Outage{Mode: chaos.Reset}}); err != nil {
			t.Fatal(err)
		}
		s.at(3100 * time.Millisecond)
		_, err := s.get(0)
		if err == nil || time.Since(s.start) != 3500*time.Millisecond {
			t.Errorf("request held by the blackhole: err %v at %s; want a reset at 3.5s", err, time.Since(s.start))
		}
		s.expect(4500*time.Millisecond, 200)
		a := s.srv.Counters().Answers()
		if a[AnswerOK] != 2 || a[AnswerAborted] != 1 {
			t.Errorf("answers %v: want 2 ok, 1 aborted (the held request)", a)
		}
		if err := s.srv.Inject(chaos.Timed{Name: "bad", Kind: "outage", Fault: chaos.Outage{Mode: chaos.Reset}}); err == nil {
			t.Error("Inject of a fault with no length: no error")
		}
	})
}

func TestRetryAfterValue(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{time.Millisecond, "1"}, {time.Second, "1"}, {1001 * time.Millisecond, "2"}, {90 * time.Second, "90"}} {
		if got := RetryAfterValue(c.d); got != c.want {
			t.Errorf("RetryAfterValue(%s) = %q, want %q", c.d, got, c.want)
		}
	}
}
