package model

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

func plan(t *testing.T, faults ...chaos.Timed) *chaos.Plan {
	t.Helper()
	p, err := chaos.NewPlan(faults, 0)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func model(t *testing.T, cfg Config, faults ...chaos.Timed) *Model {
	if cfg.ServiceTime == (dist.Dist{}) {
		cfg.ServiceTime = dist.Const(10 * ms)
	}
	return NewModel(cfg, plan(t, faults...), rand.New(rand.NewPCG(1, 1)))
}

func TestSlotsQueueAndRejection(t *testing.T) {
	m := model(t, Config{Concurrency: 2, Queue: 2, QueueTimeout: 100 * ms})
	var jobs []*Job
	want := []Admission{Started, Started, Queued, Queued, Rejected}
	for i, w := range want {
		j, a := m.Arrive(0)
		if a != w {
			t.Fatalf("arrival %d: %v, want %v", i, a, w)
		}
		jobs = append(jobs, j)
	}
	if m.Busy() != 2 || m.QueueLen() != 2 || m.Stats.Rejected != 1 {
		t.Fatalf("busy %d queue %d stats %+v", m.Busy(), m.QueueLen(), m.Stats)
	}
	if jobs[0].Service != 10*ms {
		t.Errorf("service time %v", jobs[0].Service)
	}
	// A slot frees: the head of the queue starts, in FIFO order.
	started := m.Finish(10*ms, jobs[0])
	if len(started) != 1 || started[0] != jobs[2] {
		t.Fatalf("Finish started %v, want job 2", started)
	}
	// Job 3 times out in the queue at 100 ms.
	if !m.Expire(100*ms, jobs[3]) || m.QueueLen() != 0 || m.Stats.Expired != 1 {
		t.Errorf("expire: queue %d stats %+v", m.QueueLen(), m.Stats)
	}
	if m.Expire(100*ms, jobs[2]) {
		t.Error("a running job cannot time out in the queue")
	}
	// Finishing a job twice is ignored.
	m.Finish(20*ms, jobs[1])
	m.Finish(20*ms, jobs[1])
	if m.Busy() != 1 || m.Stats.Served != 2 {
		t.Errorf("busy %d, stats %+v", m.Busy(), m.Stats)
	}
}

func TestExpiredJobsAreSkippedWhenDequeued(t *testing.T) {
	m := model(t, Config{Concurrency: 1, Queue: 5, QueueTimeout: 50 * ms})
	first, _ := m.Arrive(0)
	late, _ := m.Arrive(0)
	fresh, _ := m.Arrive(40 * ms)
	// At 60 ms the first queued job is past its deadline (its driver's
	// timer has not fired yet): it must not start.
	started := m.Finish(60*ms, first)
	if len(started) != 1 || started[0] != fresh {
		t.Fatalf("started %v, want only the fresh job", started)
	}
	if !m.Expire(60*ms, late) {
		t.Error("the skipped job must still report its timeout to its driver")
	}
}

func TestAbandonedWork(t *testing.T) {
	for _, serve := range []bool{false, true} {
		m := model(t, Config{Concurrency: 1, Queue: 5, QueueTimeout: s, ServeAbandoned: serve})
		running, _ := m.Arrive(0)
		gone, _ := m.Arrive(0)
		m.Abandon(5*ms, gone)
		started := m.Finish(10*ms, running)
		if serve {
			// Wasted work: the abandoned job still takes the slot.
			if len(started) != 1 || started[0] != gone {
				t.Fatalf("serve_abandoned: started %v", started)
			}
			m.Finish(20*ms, gone)
			if m.Stats.Wasted != 1 {
				t.Errorf("wasted = %d", m.Stats.Wasted)
			}
		} else if len(started) != 0 || m.Stats.Abandoned != 1 {
			t.Errorf("abandoned work was served: %v %+v", started, m.Stats)
		}
	}
}

func TestCrashDropsEverythingAndIgnoresOldJobs(t *testing.T) {
	m := model(t, Config{Concurrency: 1, Queue: 5, QueueTimeout: s})
	running, _ := m.Arrive(0)
	queued, _ := m.Arrive(0)
	dropped := m.Crash()
	if len(dropped) != 1 || dropped[0] != queued || m.Busy() != 0 || m.QueueLen() != 0 || m.Stats.Crashed != 2 {
		t.Fatalf("crash: dropped %v busy %d stats %+v", dropped, m.Busy(), m.Stats)
	}
	fresh, a := m.Arrive(time.Millisecond)
	if a != Started {
		t.Fatalf("after a crash the slots are free: %v", a)
	}
	if got := m.Finish(10*ms, running); len(got) != 0 || m.Busy() != 1 {
		t.Errorf("a job from before the crash freed a slot: busy %d", m.Busy())
	}
	if m.Expire(time.Second, queued) {
		t.Error("a job from before the crash expired")
	}
	m.Finish(11*ms, fresh)
	if m.Busy() != 0 {
		t.Errorf("busy %d", m.Busy())
	}
}

func TestColdStartRampAndBrownout(t *testing.T) {
	m := model(t, Config{Concurrency: 20, ColdStart: ColdStart{From: 0.1, Ramp: 4 * s}},
		chaos.Timed{Name: "down", At: s, For: s, Fault: chaos.Outage{Mode: chaos.Unavailable}},
		chaos.Timed{Name: "brown", At: 10 * s, For: s, Fault: chaos.Brownout{Capacity: 0.5}},
	)
	cases := map[time.Duration]int{
		0:      20, // before any outage: full
		2 * s:  2,  // the outage just ended: 10%
		3 * s:  6,  // a quarter of the ramp: 0.1 + 0.9*0.25 = 32.5% of 20
		4 * s:  11, // half: 55%
		6 * s:  20, // ramp over
		10 * s: 10, // brownout
	}
	for at, want := range cases {
		if got := m.Capacity(at); got != want {
			t.Errorf("Capacity(%v) = %d, want %d", at, got, want)
		}
	}
	tiny := model(t, Config{Concurrency: 1, ColdStart: ColdStart{From: 0.01, Ramp: s}},
		chaos.Timed{At: 0, For: s, Fault: chaos.Outage{Mode: chaos.Reset}})
	if tiny.Capacity(s) != 1 {
		t.Error("capacity never drops below one slot")
	}
}

func TestIngressVerdicts(t *testing.T) {
	m := model(t, Config{Concurrency: 1},
		chaos.Timed{At: 1 * s, For: s, Fault: chaos.Outage{Mode: chaos.Unavailable}},
		chaos.Timed{At: 2 * s, For: s, Fault: chaos.Outage{Mode: chaos.Refuse}},
		chaos.Timed{At: 3 * s, For: s, Fault: chaos.Outage{Mode: chaos.Reset}},
		chaos.Timed{At: 4 * s, For: s, Fault: chaos.Blip{Blackhole: true}},
		chaos.Timed{At: 5 * s, For: s, Fault: chaos.Blip{Delay: dist.Const(30 * ms)}},
		chaos.Timed{At: 5 * s, For: s, Fault: chaos.Blip{Delay: dist.Const(20 * ms)}},
		chaos.Timed{At: 6 * s, For: s, Fault: chaos.ErrorRate{Rate: 1, Status: 500}},
	)
	cases := map[time.Duration]chaos.Answer{
		0:     {Verdict: chaos.Admit},
		1 * s: {Verdict: chaos.Respond, Status: 503},
		2 * s: {Verdict: chaos.RefuseConn},
		3 * s: {Verdict: chaos.ResetConn},
		4 * s: {Verdict: chaos.Hang},
		5 * s: {Verdict: chaos.Admit, Delay: 50 * ms},
		6 * s: {Verdict: chaos.Respond, Status: 500},
	}
	for at, want := range cases {
		if got := m.Ingress(at); got != want {
			t.Errorf("Ingress(%v) = %+v, want %+v", at, got, want)
		}
	}
}

// Property: whatever happens, busy never exceeds the concurrency, the queue
// never exceeds its size, and counts never go negative.
func TestModelInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	cfg := Config{Concurrency: 4, Queue: 6, QueueTimeout: 50 * ms, ServiceTime: dist.Dist{Kind: dist.Exponential, A: 10 * ms}}
	m := NewModel(cfg, plan(t, chaos.Timed{At: s, For: 200 * ms, Fault: chaos.Brownout{Capacity: 0.5}}), rand.New(rand.NewPCG(4, 4)))
	var running, queued []*Job
	now := time.Duration(0)
	for i := 0; i < 20000; i++ {
		now += time.Duration(r.IntN(3)) * ms
		switch op := r.IntN(10); {
		case op < 5:
			j, a := m.Arrive(now)
			switch a {
			case Started:
				running = append(running, j)
			case Queued:
				queued = append(queued, j)
			}
		case op < 8 && len(running) > 0:
			k := r.IntN(len(running))
			running = append(running, m.Finish(now, running[k])...)
			running = append(running[:k], running[k+1:]...)
		case op < 9 && len(queued) > 0:
			k := r.IntN(len(queued))
			m.Expire(now, queued[k])
			queued = append(queued[:k], queued[k+1:]...)
		case len(queued) > 0:
			m.Abandon(now, queued[0])
			queued = queued[1:]
		}
		if m.Busy() > cfg.Concurrency || m.Busy() < 0 || m.QueueLen() > cfg.Queue || m.QueueLen() < 0 {
			t.Fatalf("step %d: busy %d queue %d", i, m.Busy(), m.QueueLen())
		}
	}
}

func BenchmarkArriveFinish(b *testing.B) {
	p, _ := chaos.NewPlan(nil, 0)
	m := NewModel(Config{Concurrency: 64, Queue: 128, QueueTimeout: s, ServiceTime: dist.Const(ms)}, p, rand.New(rand.NewPCG(1, 1)))
	now := time.Duration(0)
	for b.Loop() {
		now += 10 * time.Microsecond
		j, a := m.Arrive(now)
		if a == Started {
			m.Finish(now+ms, j)
		}
	}
}

// TestRunning: a job holds a slot from its start until it finishes or a
// crash drops it, whenever its driver calls Finish (a middle tier of a
// chain holds it past its service time, while it calls the next tier).
func TestRunning(t *testing.T) {
	m := model(t, Config{Concurrency: 1, Queue: 5, QueueTimeout: s})
	a, _ := m.Arrive(0)
	b, adm := m.Arrive(0)
	if !m.Running(a) || m.Running(b) || adm != Queued {
		t.Fatalf("running: a %v, b %v (%v)", m.Running(a), m.Running(b), adm)
	}
	// Its service time is long past: it still holds the slot.
	if !m.Running(a) || m.Capacity(time.Minute) != 1 || m.Busy() != 1 {
		t.Fatalf("a job stopped running by itself")
	}
	if next := m.Finish(time.Minute, a); len(next) != 0 {
		t.Fatalf("b waited past its queue timeout and should not start: %v", next)
	}
	c, _ := m.Arrive(time.Minute)
	if m.Running(a) || !m.Running(c) {
		t.Fatalf("after Finish: a %v, c %v", m.Running(a), m.Running(c))
	}
	m.Crash()
	if m.Running(c) {
		t.Error("a job lost to a crash is still running")
	}
}

// truncating cuts a share of served bodies, as a fault that sets only the
// effect's Truncate does.
type truncating float64

func (f truncating) Apply(e *chaos.Effect) { e.Truncate = float64(f) }

// TestQuiet checks which plans let the model skip its look at the
// instant's effect: only those no segment of which touches a request on
// its way in or a served answer. A brownout acts on capacity alone. And a
// quiet model's answers are the ones a look would give.
func TestQuiet(t *testing.T) {
	window := func(f chaos.Fault) chaos.Timed { return chaos.Timed{Kind: "k", At: s, For: s, Fault: f} }
	cases := []struct {
		name  string
		fault chaos.Fault // nil: no fault
		quiet bool
	}{
		{"no fault", nil, true},
		{"brownout", chaos.Brownout{Capacity: 0.5}, true},
		{"503 outage", chaos.Outage{Mode: chaos.Unavailable}, false},
		{"refuse outage", chaos.Outage{Mode: chaos.Refuse}, false},
		{"added delay", chaos.Blip{Delay: dist.Const(ms)}, false},
		{"blackhole", chaos.Blip{Blackhole: true}, false},
		{"error rate", chaos.ErrorRate{Rate: 0.1, Status: 500}, false},
		{"truncation", truncating(0.5), false},
	}
	for _, c := range cases {
		var faults []chaos.Timed
		if c.fault != nil {
			faults = append(faults, window(c.fault))
		}
		m := model(t, Config{Concurrency: 4}, faults...)
		if m.Quiet() != c.quiet {
			t.Errorf("%s: Quiet() = %v, want %v", c.name, m.Quiet(), c.quiet)
		}
		m.SetPlan(plan(t, window(chaos.Outage{Mode: chaos.Reset})))
		if m.Quiet() {
			t.Errorf("%s: still quiet after SetPlan with a reset outage", c.name)
		}
	}
	m := model(t, Config{Concurrency: 4}, window(chaos.Brownout{Capacity: 0.5}))
	for _, now := range []time.Duration{0, 1500 * ms, 3 * s} {
		if a := m.Ingress(now); a != (chaos.Answer{Verdict: chaos.Admit}) {
			t.Errorf("Ingress(%s) = %+v, want an admission at once", now, a)
		}
		j, _ := m.Arrive(now)
		if a := m.Served(now, j); a != (chaos.Answer{Verdict: chaos.Respond, Status: 200}) {
			t.Errorf("Served(%s) = %+v, want a plain 200", now, a)
		}
	}
	if NewModel(Config{}, nil, nil).Quiet() {
		t.Error("a model without a plan is quiet")
	}
}

// TestQuietIsReadOffTheEffects: the fast path's list is derived from the
// effects, not kept by hand. Every field of chaos.Effect, set alone to
// something other than a healthy target's, takes the model off its fast
// path, but those that act elsewhere (capacity): a new effect is never
// skipped by it.
func TestQuietIsReadOffTheEffects(t *testing.T) {
	ty := reflect.TypeFor[chaos.Effect]()
	for i := range ty.NumField() {
		f := ty.Field(i)
		if f.Name == "Active" || f.Name == "RecoveredAt" {
			continue // the plan's, not a fault's
		}
		name := f.Tag.Get("effect")
		set := func(e *chaos.Effect) {
			v := reflect.ValueOf(e).Elem().Field(i)
			switch v.Kind() {
			case reflect.Bool:
				v.SetBool(true)
			case reflect.Float64:
				v.SetFloat(0.5)
			case reflect.Int, reflect.Int64, reflect.Uint8:
				if v.Kind() == reflect.Uint8 {
					v.SetUint(1)
				} else {
					v.SetInt(int64(ms))
				}
			case reflect.Slice:
				v.Set(reflect.Append(v, reflect.Zero(v.Type().Elem())))
			default:
				t.Fatalf("chaos.Effect.%s: a field of kind %s this test cannot set; teach it", f.Name, v.Kind())
			}
		}
		m := model(t, Config{Concurrency: 4}, chaos.Timed{Kind: "k", At: s, For: s, Fault: effectFault(set)})
		if want := slices.Contains(actsElsewhere, name); m.Quiet() != want {
			t.Errorf("a plan with chaos.Effect.%s (%s) alone: Quiet() = %v, want %v", f.Name, name, m.Quiet(), want)
		}
	}
}

// effectFault is a fault made of one function on the effect.
type effectFault func(e *chaos.Effect)

func (f effectFault) Apply(e *chaos.Effect) { f(e) }
