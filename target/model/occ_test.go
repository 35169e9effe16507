package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
)

func TestRow(t *testing.T) {
	var r Row
	v := r.Read()
	if v != 0 || !r.Write(v) || r.Version() != 1 {
		t.Fatalf("first write of version 0: %+v", r)
	}
	if r.Write(v) { // stale: another write went first
		t.Fatal("a write of a stale version succeeded")
	}
	if r.Reads != 1 || r.Writes != 2 || r.Conflicts != 1 || r.Version() != 1 {
		t.Fatalf("%+v", r)
	}
}

type calls []time.Duration

func (c *calls) Call(at time.Duration) { *c = append(*c, at) }

// TestModelOCC: ops take effect when the job's service ends, in the order
// the model serves them; writes are reported to the call recorder.
func TestModelOCC(t *testing.T) {
	plan, _ := chaos.NewPlan(nil, 0)
	m := NewModel(Config{Kind: OCC, Concurrency: 4, ServiceTime: dist.Const(time.Millisecond)}, plan, nil)
	var rec calls
	m.RecordCalls(&rec)
	read, _ := m.Arrive(0)
	read.Op = OpRead
	w1, _ := m.Arrive(0)
	w1.Op, w1.Version = OpWrite, 0
	w2, _ := m.Arrive(0)
	w2.Op, w2.Version = OpWrite, 0
	m.Finish(time.Millisecond, w2) // served first: wins
	m.Finish(2*time.Millisecond, w1)
	m.Finish(3*time.Millisecond, read)
	if w2.Conflict || !w1.Conflict || read.Version != 1 {
		t.Fatalf("w2 conflict %v, w1 conflict %v, read %d", w2.Conflict, w1.Conflict, read.Version)
	}
	if len(rec) != 2 || rec[0] != time.Millisecond || rec[1] != 2*time.Millisecond {
		t.Fatalf("calls %v", rec)
	}
}

// TestServeNowIsArriveFinishServed: on an Instant model, ServeNow has the
// effects and the answer of Arrive, Finish and Served in one step, op for
// op: the same answers, versions read, conflicts, row, writes recorded and
// counts, over a random mix of reads and writes of current and stale
// versions.
func TestServeNowIsArriveFinishServed(t *testing.T) {
	plan, _ := chaos.NewPlan(nil, time.Minute)
	cfg := Config{Kind: OCC, Concurrency: 1, ServiceTime: dist.Const(0)}
	slow, fast := NewModel(cfg, plan, nil), NewModel(cfg, plan, nil)
	if !fast.Instant() {
		t.Fatal("a quiet model with no service time is not Instant")
	}
	var slowCalls, fastCalls calls
	slow.RecordCalls(&slowCalls)
	fast.RecordCalls(&fastCalls)
	r := rand.New(rand.NewPCG(1, 2))
	ops := []Op{OpPlain, OpRead, OpWrite}
	for i := range 2000 {
		now := time.Duration(i) * time.Millisecond
		op, version := ops[r.IntN(3)], uint64(r.IntN(8))
		if op == OpWrite && r.IntN(2) == 0 {
			version = slow.Row().Version() // a write that wins
		}
		j, adm := slow.Arrive(now)
		if adm != Started {
			t.Fatalf("op %d: admission %v", i, adm)
		}
		j.Op, j.Version = op, version
		slow.Finish(now, j)
		want := slow.Served(now, j)
		slow.Release(j)
		var got chaos.Answer
		read := fast.ServeNow(&got, now, op, version)
		if got != want {
			t.Fatalf("op %d (%v, version %d): answer %+v, want %+v", i, op, version, got, want)
		}
		if op == OpRead && read != j.Version {
			t.Fatalf("op %d: read version %d, want %d", i, read, j.Version)
		}
	}
	if fast.Stats != slow.Stats || *fast.Row() != *slow.Row() || len(fastCalls) != len(slowCalls) {
		t.Fatalf("ServeNow: stats %+v row %+v calls %d; Arrive, Finish, Served: %+v %+v %d",
			fast.Stats, *fast.Row(), len(fastCalls), slow.Stats, *slow.Row(), len(slowCalls))
	}
	for i := range fastCalls {
		if fastCalls[i] != slowCalls[i] {
			t.Fatalf("write %d recorded at %v, want %v", i, fastCalls[i], slowCalls[i])
		}
	}
}

// TestInstant: only a quiet plan with a constant zero service time and no
// routes serves every request at once.
func TestInstant(t *testing.T) {
	quiet, _ := chaos.NewPlan(nil, time.Minute)
	faulty, err := chaos.NewPlan([]chaos.Timed{{Name: "down", Kind: "outage", At: time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  Config
		plan *chaos.Plan
		want bool
	}{
		{"zero service, quiet", Config{ServiceTime: dist.Const(0)}, quiet, true},
		{"a fault", Config{ServiceTime: dist.Const(0)}, faulty, false},
		{"a service time", Config{ServiceTime: dist.Const(time.Millisecond)}, quiet, false},
		{"exponential(0) draws", Config{ServiceTime: dist.Dist{Kind: dist.Exponential}}, quiet, false},
		{"routes", Config{ServiceTime: dist.Const(0), Routes: []Route{{ServiceTime: dist.Const(0)}}}, quiet, false},
	} {
		if got := NewModel(c.cfg, c.plan, nil).Instant(); got != c.want {
			t.Errorf("%s: Instant %v, want %v", c.name, got, c.want)
		}
	}
}

// TestRelease: a job is reused only once both the driver and the model are
// done with it.
func TestRelease(t *testing.T) {
	plan, _ := chaos.NewPlan(nil, 0)
	m := NewModel(Config{Concurrency: 1, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Millisecond)}, plan, nil)
	a, _ := m.Arrive(0)
	b, adm := m.Arrive(0)
	if adm != Queued {
		t.Fatal("b should queue")
	}
	m.Release(b) // the driver is done with b, but b is still queued
	if c, _ := m.Arrive(0); c == b {
		t.Fatal("a queued job was reused")
	}
	m.Release(a)
	if c, _ := m.Arrive(0); c == a {
		t.Fatal("a running job was reused")
	}
	m.Finish(time.Millisecond, a) // starts b
	if c, _ := m.Arrive(time.Millisecond); c != a {
		t.Fatal("a finished, released job was not reused")
	}
}

// TestHopIsTheNetworksDraw: a hop is the network distribution's draw from
// the model's stream, whatever the distribution (Hop draws a Normal's
// itself), and a zero network draws nothing.
func TestHopIsTheNetworksDraw(t *testing.T) {
	plan, _ := chaos.NewPlan(nil, time.Minute)
	for _, d := range []dist.Dist{
		{Kind: dist.Normal, A: 10 * time.Millisecond, B: 2 * time.Millisecond},
		{Kind: dist.Normal, A: time.Millisecond, B: 5 * time.Millisecond}, // often negative before |.|
		{Kind: dist.Normal},
		{Kind: dist.Exponential, A: time.Millisecond},
		{Kind: dist.Uniform, A: time.Millisecond, B: 3 * time.Millisecond},
		dist.Const(time.Millisecond),
		dist.Const(0),
	} {
		m := NewModel(Config{Network: d}, plan, rand.New(rand.NewPCG(5, 6)))
		ref := rand.New(rand.NewPCG(5, 6))
		for i := range 1000 {
			want := time.Duration(0)
			if !d.IsZero() {
				want = d.Sample(ref)
			}
			if got := m.Hop(); got != want {
				t.Fatalf("%v: hop %d is %v, want %v", d, i, got, want)
			}
		}
		if m.rng.Uint64() != ref.Uint64() {
			t.Fatalf("%v: the model's stream moved apart from the network's draws", d)
		}
	}
}
