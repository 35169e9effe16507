package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
)

func policyPlan(t *testing.T, faults ...chaos.Timed) *chaos.Plan {
	t.Helper()
	p, err := chaos.NewPlan(faults, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Wasted work: a queued job whose client has gone away is still served
// when its turn comes and holds its slot for its whole service time, so
// under overload the target spends its capacity on answers nobody reads.
func TestServeAbandoned(t *testing.T) {
	for _, serve := range []bool{true, false} {
		cfg := Config{Concurrency: 1, Queue: 10, QueueTimeout: time.Minute, ServiceTime: dist.Const(100 * time.Millisecond), ServeAbandoned: serve}
		m := NewModel(cfg, policyPlan(t), rand.New(rand.NewPCG(1, 2)))
		a, adm := m.Arrive(0)
		if adm != Started {
			t.Fatal("first job did not start")
		}
		b, adm := m.Arrive(10 * time.Millisecond)
		if adm != Queued {
			t.Fatal("second job not queued")
		}
		c, _ := m.Arrive(20 * time.Millisecond)
		m.Abandon(50*time.Millisecond, b) // b's client timed out while it waited
		next := m.Finish(100*time.Millisecond, a)
		if serve {
			if len(next) != 1 || next[0] != b {
				t.Fatalf("serve_abandoned: %d jobs started after a, want the abandoned b", len(next))
			}
			// b holds the only slot: c waits behind it.
			if m.Busy() != 1 || m.QueueLen() != 1 {
				t.Fatalf("busy %d, queued %d; want 1, 1", m.Busy(), m.QueueLen())
			}
			if got := m.Finish(200*time.Millisecond, b); len(got) != 1 || got[0] != c {
				t.Fatal("c did not start after b's wasted service")
			}
			if m.Stats.Served != 2 || m.Stats.Wasted != 1 || m.Stats.Abandoned != 0 {
				t.Fatalf("stats %+v; want served 2, wasted 1, abandoned 0", m.Stats)
			}
		} else {
			if len(next) != 1 || next[0] != c {
				t.Fatal("without serve_abandoned the abandoned job was not skipped")
			}
			if m.Stats.Wasted != 0 || m.Stats.Abandoned != 1 {
				t.Fatalf("stats %+v; want wasted 0, abandoned 1", m.Stats)
			}
		}
	}
}

// A running job whose client leaves runs on in either mode.
func TestAbandonedRunningJobIsWasted(t *testing.T) {
	cfg := Config{Concurrency: 1, Queue: 1, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Second)}
	m := NewModel(cfg, policyPlan(t), rand.New(rand.NewPCG(1, 2)))
	a, _ := m.Arrive(0)
	m.Abandon(500*time.Millisecond, a)
	m.Finish(time.Second, a)
	if m.Stats.Wasted != 1 {
		t.Fatalf("wasted %d, want 1", m.Stats.Wasted)
	}
}

func TestPushbackIngress(t *testing.T) {
	pb := chaos.Pushback{Rate: 1, Status: 429, RetryAfter: 2 * time.Second}
	p := policyPlan(t, chaos.Timed{Name: "pushback", Kind: "pushback", At: time.Second, For: time.Second, Fault: pb})
	m := NewModel(Config{Concurrency: 1, Queue: 1, ServiceTime: dist.Const(time.Millisecond)}, p, rand.New(rand.NewPCG(1, 2)))
	if in := m.Ingress(500 * time.Millisecond); in.Verdict != chaos.Admit {
		t.Fatalf("before the window: %+v", in)
	}
	if in := m.Ingress(1500 * time.Millisecond); in.Verdict != chaos.Respond || in.Status != 429 || in.RetryAfter != 2*time.Second {
		t.Fatalf("in the window: %+v; want reject 429 with Retry-After 2s", in)
	}
	// Half the requests, roughly, at rate 0.5.
	p = policyPlan(t, chaos.Timed{Name: "pushback", Kind: "pushback", At: 0, For: time.Second, Fault: chaos.Pushback{Rate: 0.5, Status: 503, RetryAfter: time.Second}})
	m = NewModel(Config{Concurrency: 1, Queue: 1}, p, rand.New(rand.NewPCG(1, 2)))
	n := 0
	for range 10000 {
		if m.Ingress(0).Verdict == chaos.Respond {
			n++
		}
	}
	if n < 4800 || n > 5200 {
		t.Fatalf("%d of 10000 pushed back at rate 0.5", n)
	}
}

// Contention makes a request's service time grow with the requests in
// service when it starts, itself included: Brooker's 1 s + 10 ms ×
// concurrency; a queued request draws it when it starts; a finished
// request's slot no longer counts.
func TestContention(t *testing.T) {
	m := model(t, Config{Concurrency: 3, Queue: 1, QueueTimeout: time.Minute, ServiceTime: dist.Const(time.Second), Contention: 10 * time.Millisecond})
	var jobs []*Job
	for i, want := range []time.Duration{1010, 1020, 1030} {
		j, adm := m.Arrive(0)
		if adm != Started || j.Service != want*time.Millisecond {
			t.Fatalf("request %d: %v, service %s; want started, %s ms", i, adm, j.Service, want*time.Millisecond)
		}
		jobs = append(jobs, j)
	}
	q, adm := m.Arrive(0)
	if adm != Queued {
		t.Fatalf("the fourth: %v, want queued", adm)
	}
	next := m.Finish(time.Second, jobs[0])
	if len(next) != 1 || next[0] != q || q.Service != 1030*time.Millisecond {
		t.Fatalf("the queued one started with %s; want 1030 ms (three in service, itself included)", q.Service)
	}
	m.Finish(2*time.Second, jobs[1])
	j, _ := m.Arrive(2 * time.Second)
	if j.Service != 1030*time.Millisecond {
		t.Errorf("after a finish: %s, want 1030 ms", j.Service)
	}
	if m.Instant() {
		t.Error("a model with contention is instant")
	}
}
