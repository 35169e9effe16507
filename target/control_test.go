package target

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/target/model"
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
		o.Config = model.Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}
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
		cfg := model.Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0),
			ColdStart: model.ColdStart{From: 0.5, Ramp: time.Second}}
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

// TestInjectedFaultsExpire: injected faults that have ended are dropped, so
// a long game day's thousands of injects neither slow each inject down nor
// grow the status; the outage that ended last is kept, for the cold start.
func TestInjectedFaultsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := model.Config{Concurrency: 10, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0),
			ColdStart: model.ColdStart{From: 0.1, Ramp: 100 * time.Second}}
		s := newStandalone(t, Options{Config: cfg})
		blip := chaos.Timed{Name: "lag", Kind: "blip", For: 10 * time.Millisecond, Fault: chaos.Blip{Delay: dist.Const(time.Millisecond)}}
		for i := range 3000 {
			f := blip
			if i == 1000 {
				f = outage503("down", 0, 10*time.Millisecond) // ends at 10.01 s
			}
			if err := s.srv.Inject(f); err != nil {
				t.Fatalf("inject %d: %v", i, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		s.srv.mu.Lock()
		compiled := len(s.srv.plan.Faults())
		s.srv.mu.Unlock()
		st := s.srv.Status()
		if compiled > 2 || len(st.Faults) > 2 {
			t.Errorf("after 3,000 faults that have ended: %d in the compiled plan, %d in the status; want at most the last and the last outage", compiled, len(st.Faults))
		}
		// 30 s after the start, 19.99 s after the outage: 10 × (0.1 + 0.9 × 0.1999).
		if want := 2; st.Capacity != want {
			t.Errorf("capacity %d, want %d: the cold start after the last outage was lost", st.Capacity, want)
		}
	})
}

// TestInjectLimits: faults that would outlast a day, or more than
// MaxInjected at once, are refused with a message; so is a start time
// more than a day away.
func TestInjectLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newStandalone(t, Options{Hold: true})
		f := outage503("down", 0, time.Hour)
		for _, c := range []struct{ at, length time.Duration }{
			{0, 24*time.Hour + time.Nanosecond}, {24*time.Hour + time.Second, time.Second}, {2000000 * time.Hour, 2000000 * time.Hour}, {-time.Second, time.Second},
		} {
			g := f
			g.At, g.For = c.at, c.length
			if err := s.srv.Inject(g); err == nil || !strings.Contains(err.Error(), "24h") {
				t.Errorf("inject at %s for %s: %v, want an error naming 24h", c.at, c.length, err)
			}
		}
		g := f
		g.At, g.For = 24*time.Hour, 24*time.Hour
		if err := s.srv.Inject(g); err != nil {
			t.Errorf("inject at 24h for 24h: %v", err)
		}
		for i := 1; i < MaxInjected; i++ {
			if err := s.srv.Inject(f); err != nil {
				t.Fatalf("inject %d: %v", i, err)
			}
		}
		if err := s.srv.Inject(f); err == nil || !strings.Contains(err.Error(), "100 injected faults") || !strings.Contains(err.Error(), "/control/stop") {
			t.Errorf("inject %d: %v, want a refusal naming the limit and /control/stop", MaxInjected+1, err)
		}
		if err := s.srv.StopPlan(); err != nil {
			t.Fatal(err)
		}
		if err := s.srv.Inject(f); err != nil {
			t.Errorf("inject after stop: %v", err)
		}
		if err := s.srv.StartPlan(time.Now().Add(24*time.Hour + time.Second)); err == nil || !strings.Contains(err.Error(), "more than 24h from now") {
			t.Errorf("start a day and a second away: %v", err)
		}
		if err := s.srv.StartPlan(time.Now().Add(24 * time.Hour)); err != nil {
			t.Errorf("start a day away: %v", err)
		}
	})
}

// BenchmarkInject injects one short fault after another, as a script at a
// game day might: each has ended by the next inject. The cost of an inject
// must not grow with the number made before it (go test -bench Inject
// -benchtime 1000x ./target/).
func BenchmarkInject(b *testing.B) {
	n := &memnet.Network{}
	srv, err := Listen(Options{Addr: "target:80", Listen: n.Listen, Config: model.Config{Concurrency: 1}})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	f := chaos.Timed{Name: "lag", Kind: "blip", For: time.Microsecond, Fault: chaos.Blip{Delay: dist.Const(time.Millisecond)}}
	for b.Loop() {
		if err := srv.Inject(f); err != nil {
			b.Fatal(err)
		}
		for start := time.Now(); time.Since(start) < 2*time.Microsecond; {
			// let the fault end
		}
	}
}

// TestSlowAndIdleConnectionsEnd: a standalone target (default limits)
// closes a connection whose headers dribble in (slowloris) after 10 s, and
// a kept-alive connection left idle after 5 minutes; a client that sends
// its request at once and comes back within that keeps its connection.
func TestSlowAndIdleConnectionsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		srv, err := Listen(Options{Addr: "target:80", Listen: n.Listen, Config: model.Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(0)}})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		start := time.Now()
		closedAt := func(c io.Reader) time.Duration {
			_, _ = io.Copy(io.Discard, c)
			return time.Since(start)
		}
		slow, err := n.Dial(context.Background(), "tcp", "target:80")
		if err != nil {
			t.Fatal(err)
		}
		defer slow.Close()
		slowDone := make(chan time.Duration)
		go func() { slowDone <- closedAt(slow) }()
		go func() {
			for _, part := range []string{"POST / HTTP/1.1\r\n", "Host: target\r\n", "X-Slow: 1\r\n"} {
				if _, err := slow.Write([]byte(part)); err != nil {
					return
				}
				time.Sleep(4 * time.Second)
			}
		}()

		idle, err := n.Dial(context.Background(), "tcp", "target:80")
		if err != nil {
			t.Fatal(err)
		}
		defer idle.Close()
		idleDone := make(chan time.Duration)
		request := []byte("POST / HTTP/1.1\r\nHost: target\r\nContent-Length: 0\r\n\r\n")
		go func() {
			// Two requests 4 minutes apart on one connection, then silence.
			_, _ = idle.Write(request)
			time.Sleep(4 * time.Minute)
			_, _ = idle.Write(request)
		}()
		go func() { idleDone <- closedAt(idle) }()

		if at := <-slowDone; at != 10*time.Second {
			t.Errorf("slow headers: connection closed at %s, want 10s", at)
		}
		if at := <-idleDone; at != 9*time.Minute {
			t.Errorf("idle keep-alive connection closed at %s, want 9m (5m after its second request at 4m)", at)
		}
		if a := srv.Counters().Answers(); a[AnswerOK] != 2 {
			t.Errorf("answers %v, want the idle connection's 2 ok", a)
		}
	})
}

// down is an outage kind only this test knows.
type down struct{}

func (down) Apply(e *chaos.Effect) { e.Outage = max(e.Outage, chaos.Unavailable) }

// TestPruneKeepsTheLastOutageByEffect: pruning keeps the fault that ended
// the latest outage, known by its effect, whatever its kind.
func TestPruneKeepsTheLastOutageByEffect(t *testing.T) {
	lag := chaos.Timed{Name: "lag", Kind: "blip", At: 3 * time.Second, For: time.Second, Fault: chaos.Blip{Delay: dist.Const(time.Millisecond)}}
	faults := []chaos.Timed{
		{Name: "first", Kind: "down", At: 0, For: time.Second, Fault: down{}},
		{Name: "last", Kind: "down", At: time.Second, For: time.Second, Fault: down{}},
		lag,
	}
	got := prune(faults, 10*time.Second)
	if len(got) != 1 || got[0].Name != "last" {
		t.Errorf("prune kept %+v; want the outage that ended last", got)
	}
}

// TestOriginIsThePlansZero: the plan runs from Options.Origin, which may
// be in the future (the engine's run starts then), not from Listen.
func TestOriginIsThePlansZero(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan, err := chaos.NewPlan([]chaos.Timed{outage503("down", time.Second, time.Second)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := newStandalone(t, Options{Plan: plan, Origin: time.Now().Add(time.Second)})
		s.expect(1500*time.Millisecond, http.StatusOK)                 // 0.5 s into the plan
		s.expect(2500*time.Millisecond, http.StatusServiceUnavailable) // 1.5 s into it
		s.expect(3500*time.Millisecond, http.StatusOK)
	})
}
