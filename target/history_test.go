package target

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/target/model"
)

// observations collects what a server tells its Observer.
type observations struct {
	mu     sync.Mutex
	starts []time.Time
	seen   []Observation
}

func (o *observations) PlanStarted(t0 time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.starts = append(o.starts, t0)
}

func (o *observations) Observe(ob Observation) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, ob)
}

// TestObserverSeesEveryAnswer: the observer is told of the plan's starts
// and of every request with its answer and exact times: served, answered
// by a 503 outage, reset by a reset outage, given up by its client in a
// blackhole, and dropped by a crash.
func TestObserverSeesEveryAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &observations{}
		plan, err := chaos.NewPlan([]chaos.Timed{
			outage503("down", time.Second, time.Second),
			{Name: "hole", Kind: "blip", At: 3 * time.Second, For: time.Second, Fault: chaos.Blip{Blackhole: true}},
			{Name: "crash", Kind: "outage", At: 5 * time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Reset}},
		}, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := newStandalone(t, Options{Plan: plan, Observer: obs,
			Config: model.Config{Concurrency: 4, Queue: 4, QueueTimeout: 10 * time.Second, ServiceTime: dist.Const(10 * time.Millisecond)}})
		s.expect(0, http.StatusOK)
		s.expect(1500*time.Millisecond, http.StatusServiceUnavailable)
		s.at(3200 * time.Millisecond)
		if _, err := s.get(100 * time.Millisecond); err == nil {
			t.Error("a request in the blackhole was answered")
		}
		s.at(4900 * time.Millisecond)
		s.expect(4900*time.Millisecond, http.StatusOK)
		s.at(5200 * time.Millisecond)
		if _, err := s.get(0); err == nil {
			t.Error("a request during a reset outage was answered")
		}
		s.at(6500 * time.Millisecond)
		obs.mu.Lock()
		defer obs.mu.Unlock()
		if len(obs.starts) != 1 || !obs.starts[0].Equal(s.start) {
			t.Errorf("plan starts %v, want one at the server's start %v", obs.starts, s.start)
		}
		want := []struct {
			at      time.Duration
			took    time.Duration
			answer  Answer
			crashed bool
		}{
			{0, 10 * time.Millisecond, AnswerOK, false},
			{1500 * time.Millisecond, 0, Answer5xx, false},
			{3200 * time.Millisecond, 100 * time.Millisecond, AnswerAborted, false},
			{4900 * time.Millisecond, 10 * time.Millisecond, AnswerOK, false},
			{5200 * time.Millisecond, 0, AnswerReset, false},
		}
		if len(obs.seen) != len(want) {
			t.Fatalf("%d observations, want %d: %+v", len(obs.seen), len(want), obs.seen)
		}
		for i, w := range want {
			o := obs.seen[i]
			at, took := o.Arrived.Sub(s.start), o.Ended.Sub(o.Arrived)
			if at != w.at || took != w.took || o.Answer != w.answer || o.Crashed != w.crashed {
				t.Errorf("observation %d: at %s, took %s, %s, crashed %v; want at %s, took %s, %s, crashed %v", i, at, took, o.Answer, o.Crashed, w.at, w.took, w.answer, w.crashed)
			}
		}
	})
}

// TestCrashIsTold: a request in service when a reset outage begins has no
// answer, and the observer is told a crash dropped it.
func TestCrashIsTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &observations{}
		plan, _ := chaos.NewPlan([]chaos.Timed{{Name: "crash", Kind: "outage", At: time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Reset}}}, 0)
		s := newStandalone(t, Options{Plan: plan, Observer: obs,
			Config: model.Config{Concurrency: 4, Queue: 4, QueueTimeout: 10 * time.Second, ServiceTime: dist.Const(500 * time.Millisecond)}})
		s.at(800 * time.Millisecond)
		if _, err := s.get(0); err == nil {
			t.Error("a request in service at the crash was answered")
		}
		s.at(3 * time.Second)
		obs.mu.Lock()
		defer obs.mu.Unlock()
		if len(obs.seen) != 1 || obs.seen[0].Answer != AnswerAborted || !obs.seen[0].Crashed || obs.seen[0].Ended.Sub(s.start) != time.Second {
			t.Errorf("observations %+v; want one, aborted by the crash at 1 s", obs.seen)
		}
	})
}

// TestFaultsBetween: the fault windows a recording gets are the faults as
// they acted: planned ones, an injected one, one cut short by a stop, and
// none of those a stop dropped before they started; relative to the
// recording's start and cut to its span.
func TestFaultsBetween(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		plan, _ := chaos.NewPlan([]chaos.Timed{
			outage503("a", time.Second, time.Second),
			outage503("b", 4*time.Second, 2*time.Second),
			outage503("c", 8*time.Second, time.Second),
		}, 0)
		s := newStandalone(t, Options{Plan: plan, Hold: true})
		s.at(time.Second)
		if err := s.srv.StartPlan(time.Time{}); err != nil { // plan t = 0 at 1 s: a 2-3 s, b 5-7 s, c 9-10 s
			t.Fatal(err)
		}
		s.at(2500 * time.Millisecond)
		if err := s.srv.Inject(outage503("hand", 0, 500*time.Millisecond)); err != nil { // 2.5-3 s
			t.Fatal(err)
		}
		s.at(6 * time.Second)
		if err := s.srv.StopPlan(); err != nil { // b cut at 6 s, c dropped
			t.Fatal(err)
		}
		s.at(12 * time.Second)
		got := s.srv.FaultsBetween(s.start.Add(time.Second), s.start.Add(12*time.Second))
		type w struct {
			name     string
			at, for_ time.Duration
		}
		want := []w{{"a", time.Second, time.Second}, {"hand", 1500 * time.Millisecond, 500 * time.Millisecond}, {"b", 4 * time.Second, time.Second}}
		if len(got) != len(want) {
			t.Fatalf("faults %+v, want %v", got, want)
		}
		for i := range want {
			if got[i].Name != want[i].name || got[i].At != want[i].at || got[i].For != want[i].for_ {
				t.Errorf("fault %d: %s at %s for %s, want %v", i, got[i].Name, got[i].At, got[i].For, want[i])
			}
		}
		cut := s.srv.FaultsBetween(s.start.Add(2500*time.Millisecond), s.start.Add(5500*time.Millisecond))
		if len(cut) != 3 || cut[0].Name != "a" || cut[0].At != 0 || cut[0].For != 500*time.Millisecond || cut[2].Name != "b" || cut[2].For != 500*time.Millisecond {
			t.Errorf("faults cut to 2.5-5.5 s: %+v", cut)
		}
	})
}

// truncateAll cuts every served answer's body: a fault kind only this
// test knows, made of the truncate effect.
type truncateAll struct{}

func (truncateAll) Apply(e *chaos.Effect) { e.Truncate = 1 }

// TestTruncatedAnswerIsRecordedAsReset: a served answer whose body the
// faults cut half-way reaches its client short of its Content-Length (an
// unexpected EOF, which the swarm counts as a reset), and the recording is
// told a reset, from the answer the server gave, though the handler ended
// as an aborted one does.
func TestTruncatedAnswerIsRecordedAsReset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		obs := &observations{}
		plan, _ := chaos.NewPlan([]chaos.Timed{{Name: "cut", Kind: "truncate-all", At: time.Second, For: time.Second, Fault: truncateAll{}}}, 0)
		s := newStandalone(t, Options{Plan: plan, Observer: obs})
		s.expect(0, http.StatusOK)
		s.at(1500 * time.Millisecond)
		req, _ := http.NewRequest(http.MethodPost, "http://target:80/", http.NoBody)
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !errors.Is(err, io.ErrUnexpectedEOF) || string(body) != "o" {
			t.Errorf("truncated answer: status %d, body %q, read error %v; want 200, \"o\", an unexpected EOF", resp.StatusCode, body, err)
		}
		s.at(1600 * time.Millisecond)
		obs.mu.Lock()
		defer obs.mu.Unlock()
		if len(obs.seen) != 2 || obs.seen[0].Answer != AnswerOK || obs.seen[1].Answer != AnswerReset || obs.seen[1].Crashed {
			t.Fatalf("observations %+v; want ok, then a reset that no crash caused", obs.seen)
		}
		if got := s.srv.Counters().Answers(); got[AnswerReset] != 1 || got[AnswerAborted] != 0 {
			t.Errorf("answers counted %v; want the truncated one as a reset", got)
		}
	})
}
