package sim_test

import (
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
)

// BenchmarkMillionVsHeap puts the simulator's cost per event beside the
// floor of any discrete-event simulator, measured in the same run: a bare
// 4-ary heap's pop-plus-push with as many pending events as the simulator
// had (its mean), which does nothing else. Each op runs one cohort (full
// jitter) of the built-in outage with a million clients, then the heap for
// as many pops and pushes as the cohort had events. It reports the CPU time
// of the process (user plus system, GC included) per event of each, and
// their ratio: the figure to watch on a shared machine, where wall time is
// noise. Run it with -benchtime 1x -count 5.
func BenchmarkMillionVsHeap(b *testing.B) {
	p := loadPlan(b, "outage", scenarios.Overrides{Clients: 1_000_000})
	co := cohortOf(p, "full-jitter", 1)
	co.Stop = new(atomic.Bool) // never set: it makes the simulator look, and the look samples the queue
	s := sim.New()
	var simCPU, heapCPU time.Duration
	var events, heapOps, pendingSum, looks uint64
	sim.SetLook(s, func(setup bool, _ uint64) {
		if !setup {
			pendingSum += uint64(sim.Pending(s))
			looks++
		}
	})
	for i := 0; i < b.N; i++ {
		pendingSum, looks = 0, 0
		rec := results.NewRecorder(p.Duration, 1).Unshared()
		t0 := cpuTime()
		n := s.Run(co, rec).Events
		simCPU += cpuTime() - t0
		events += n
		h := newHeap4(int(pendingSum/max(looks, 1)), uint64(i))
		t0 = cpuTime()
		h.run(n)
		heapCPU += cpuTime() - t0
		heapOps += n
	}
	simNs := float64(simCPU.Nanoseconds()) / float64(events)
	heapNs := float64(heapCPU.Nanoseconds()) / float64(heapOps)
	b.ReportMetric(simNs, "sim-cpu-ns/event")
	b.ReportMetric(heapNs, "heap4-cpu-ns/op")
	b.ReportMetric(simNs/heapNs, "sim/heap4")
	b.ReportMetric(float64(pendingSum/max(looks, 1)), "pending")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heap4 is a bare 4-ary min-heap of 16-byte events ordered by time, then
// by a sequence number (the simulator's first-in-first-out rule), in one
// slice: the textbook event queue, without any simulation.
type heap4 struct {
	h   []hev
	seq uint64
	rng *rand.Rand
}

type hev struct {
	at  time.Duration
	seq uint64
}

func (a hev) less(b hev) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

// newHeap4 returns a heap of n events spread over the first virtual
// second, as a closed loop of clients thinking exponential(1 s) starts.
func newHeap4(n int, seed uint64) *heap4 {
	h := &heap4{h: make([]hev, 0, n), rng: rand.New(rand.NewPCG(seed, 4))}
	for range n {
		h.push(time.Duration(h.rng.ExpFloat64() * float64(time.Second)))
	}
	return h
}

// run pops the earliest event and pushes its successor, exponential(1 s)
// later, ops times: the hold model of an event queue in steady state.
func (h *heap4) run(ops uint64) {
	for range ops {
		e := h.pop()
		h.push(e.at + time.Duration(h.rng.ExpFloat64()*float64(time.Second)))
	}
}

func (h *heap4) push(at time.Duration) {
	h.seq++
	e := hev{at, h.seq}
	h.h = append(h.h, e)
	i := len(h.h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.less(h.h[p]) {
			break
		}
		h.h[i] = h.h[p]
		i = p
	}
	h.h[i] = e
}

func (h *heap4) pop() hev {
	top := h.h[0]
	n := len(h.h) - 1
	e := h.h[n]
	h.h = h.h[:n]
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < min(c+4, n); k++ {
			if h.h[k].less(h.h[m]) {
				m = k
			}
		}
		if !h.h[m].less(e) {
			break
		}
		h.h[i] = h.h[m]
		i = m
	}
	h.h[i] = e
	return top
}

// TestHeap4Order checks the benchmark's bare heap against a stable sort,
// so that what it measures is a correct event queue.
func TestHeap4Order(t *testing.T) {
	h := &heap4{rng: rand.New(rand.NewPCG(1, 2))}
	var want []hev
	for i := range 2000 {
		at := time.Duration(h.rng.IntN(50))
		h.push(at)
		want = append(want, hev{at, uint64(i + 1)})
	}
	sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })
	for i, w := range want {
		if got := h.pop(); got != w {
			t.Fatalf("pop %d: %v, want %v", i, got, w)
		}
	}
}
