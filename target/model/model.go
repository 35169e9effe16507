package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
)

// ColdStart is how capacity comes back after an outage: from the fraction
// From of full capacity, linearly to full over Ramp.
type ColdStart struct {
	From float64
	Ramp time.Duration
}

// Config is the capacity model of a target.
type Config struct {
	Concurrency  int           // requests served at once
	Queue        int           // requests waiting for a slot; more are answered 503
	QueueTimeout time.Duration // a request waiting longer is answered 503
	ServiceTime  dist.Dist     // time a request holds its slot
	ColdStart    ColdStart     // ramp after an outage; zero Ramp means none
	// Contention adds to the service time a request draws when it starts
	// this much for each request then in service, itself included: a
	// server whose latency grows with its concurrency (Marc Brooker's
	// collapse model: 1 s + 10 ms × concurrency). 0: none.
	Contention time.Duration
	// ServeAbandoned keeps queued work whose client has gone away: it is still
	// served when its turn comes (wasted work), as most servers do.
	ServeAbandoned bool
	Kind           Kind      // what the target serves (plain, or an OCC row)
	Network        dist.Dist // delay of each network hop, client to target or back
	// Routes give some requests their own service time: the first route
	// that matches a request (Route) serves it; the others take
	// ServiceTime. They share the slots and the queue.
	Routes []Route
	// Protocol is the wire the server speaks (HTTP/1.1 or gRPC); the
	// model is the same for every wire.
	Protocol Protocol
}

// Route is requests of one method (any if "") and path that have their
// own service time. A path ending in "/" matches every path below it, as
// net/http's ServeMux does; any other matches itself only.
type Route struct {
	Method      string
	Path        string
	ServiceTime dist.Dist
}

// Route returns the route that serves a request of method to path (its
// path without the query): 0 for the default service time, k for
// Routes[k-1]. Both engines ask it: the real target of each request, the
// simulator of each request of a mix, with its placeholders unfilled.
func (c *Config) Route(method, path string) int {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	for k, r := range c.Routes {
		if r.Method != "" && r.Method != method {
			continue
		}
		if path == r.Path || strings.HasSuffix(r.Path, "/") && strings.HasPrefix(path, r.Path) {
			return k + 1
		}
	}
	return 0
}

// Admission is what capacity does with an arriving request.
type Admission uint8

// Admissions.
const (
	Started  Admission = iota // holds a slot now for Job.Service
	Queued                    // waits for a slot until Job.Deadline
	Rejected                  // queue full: answer 503
)

type jobState uint8

const (
	queued jobState = iota
	running
	finished
	expired
	dropped
)

// Job is one request inside the model. Drivers keep their own handle in
// Owner.
type Job struct {
	Arrived  time.Duration
	Deadline time.Duration // end of the queue timeout
	Service  time.Duration // drawn when the job starts
	Owner    any

	// Op is what the request asks; it takes effect when the job's service
	// completes (see occ.go). The driver sets Op and, for a write, Version
	// right after Arrive. A read leaves the version read in Version; a write
	// sets Conflict if it failed.
	Op       Op
	Version  uint64
	Conflict bool
	route    int // Config.Route's: which service time it takes

	state     jobState
	abandoned bool
	epoch     uint32
	holds     uint8 // heldByModel | heldByDriver; see Release
}

// Stats counts what the model did.
type Stats struct {
	Served    int64 // jobs that completed their service
	Wasted    int64 // of those, jobs whose client had gone away
	Rejected  int64 // 503 because the queue was full
	Expired   int64 // 503 because the queue timeout passed
	Faulted   int64 // answered by a fault (error rate, outage, reset)
	Abandoned int64 // dropped from the queue because the client went away
	Crashed   int64 // in-flight jobs lost to a crash
}

// Model is the target's behaviour as a pure state machine. It is not safe
// for concurrent use; the real-time server guards it with a mutex.
type Model struct {
	cfg  Config
	plan *chaos.Plan
	rng  *rand.Rand

	busy   int
	queue  []*Job
	head   int
	queued int // live jobs in queue[head:]
	epoch  uint32
	out    []*Job // reused result buffer
	free   []*Job // released jobs, reused by Arrive
	row    Row
	calls  CallRecorder
	seg    *chaos.Segment // the plan segment last looked up
	// quiet says that no segment of the plan has an effect that Ingress
	// or respond acts on (quiet): they answer without looking up the
	// instant's effect, as they would answer after looking it up. A run
	// without faults (the AWS sweep) saves two lookups per request.
	quiet bool
	// hops says that a network hop takes time (Config.Network is not
	// zero), asked once here instead of at every hop; hopNormal that its
	// delay is a Normal that takes time, of mean hopMean and deviation
	// hopSD (ns), which Hop draws without Sample's call.
	hops, hopNormal bool
	hopMean, hopSD  float64

	Stats Stats
}

// NewModel returns a model of cfg under plan, drawing from rng.
func NewModel(cfg Config, plan *chaos.Plan, rng *rand.Rand) *Model {
	if cfg.Concurrency < 1 {
		cfg.Concurrency = 1
	}
	n := cfg.Network
	return &Model{cfg: cfg, plan: plan, rng: rng, quiet: quiet(plan), hops: !n.IsZero(),
		hopNormal: n.Kind == dist.Normal && !n.IsZero(), hopMean: float64(n.A), hopSD: float64(n.B)}
}

// quiet reports whether no segment of p has an effect that Ingress or
// respond may act on. It is read off the effects (chaos.Effect.Uses), not
// listed by hand: every effect counts, but those that act elsewhere
// (actsElsewhere), so an effect added to chaos.Effect takes the model off
// its fast path from the start instead of being skipped by it.
func quiet(p *chaos.Plan) bool {
	if p == nil {
		return false
	}
	for _, g := range p.Segments() {
		for _, u := range g.Effect.Uses() {
			if !slices.Contains(actsElsewhere, u) {
				return false
			}
		}
	}
	return true
}

// actsElsewhere are the effects that touch no request on its way in nor a
// served answer: a brownout's capacity (Capacity). A cold start, which
// follows an outage, acts there too, but the outage does not.
var actsElsewhere = []string{"capacity"}

// Quiet reports whether the model's plan never touches a request on its
// way in nor a served answer (see quiet): Ingress then always admits at
// once, with no delay, and draws nothing, so a driver may go straight on
// to Arrive.
func (m *Model) Quiet() bool { return m.quiet }

// Instant reports whether the model serves every request it admits at
// once, as Arrive, Finish and Served would in one step: its plan is quiet,
// its service time is a constant 0, and it has no routes and no contention. Such a model never
// holds a job, so nothing is ever busy or queued and no capacity or queue
// limit can turn a request away; ServeNow then stands for the whole
// sequence (the AWS experiment's row answers at once).
func (m *Model) Instant() bool {
	st := m.cfg.ServiceTime
	return m.quiet && st.Kind == dist.Constant && st.A == 0 && len(m.cfg.Routes) == 0 && m.cfg.Contention == 0
}

// ServeNow serves, at now, a request of op carrying version (an OCC
// write's) on an Instant model, with exactly the effects and answer of
// Arrive, Finish and Served: the row read or written, the write recorded,
// the count of served jobs. It sets *a to the answer (as respond, whose
// faults a quiet plan never has) and returns, for a read, the version
// read. The answer goes out through a pointer: a 48-byte result comes back
// through the stack in stores that the caller's loads stall on.
func (m *Model) ServeNow(a *chaos.Answer, now time.Duration, op Op, version uint64) uint64 {
	m.Stats.Served++
	version, conflict := m.effect(now, op, version)
	*a = chaos.Answer{Verdict: chaos.Respond, Status: servedStatus(op, conflict)}
	return version
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// SetPlan replaces the chaos plan from now on. The plan is on the model's
// clock; a standalone target swaps in a new one when its plan is started,
// stopped or given a fault by hand.
func (m *Model) SetPlan(p *chaos.Plan) { m.plan, m.seg, m.quiet = p, nil, quiet(p) }

// Busy returns the slots in use; QueueLen the live jobs waiting.
func (m *Model) Busy() int     { return m.busy }
func (m *Model) QueueLen() int { return m.queued }

// Ingress is the answer to a new request that reached the server at now,
// from the faults active then: admitted (after an added delay) on to
// Arrive, or answered by a fault.
func (m *Model) Ingress(now time.Duration) chaos.Answer {
	if m.quiet {
		return chaos.Answer{Verdict: chaos.Admit}
	}
	e := m.active(now)
	switch e.Outage {
	case chaos.Unavailable:
		m.Stats.Faulted++
		return chaos.Answer{Verdict: chaos.Respond, Status: 503, RetryAfter: e.RetryAfter}
	case chaos.Refuse, chaos.Goaway:
		// A request on a connection opened before a goaway began (the
		// server has told it to go away): refused, as the listener is.
		return chaos.Answer{Verdict: chaos.RefuseConn}
	case chaos.Reset:
		m.Stats.Faulted++
		return chaos.Answer{Verdict: chaos.ResetConn}
	}
	if e.Blackhole {
		return chaos.Answer{Verdict: chaos.Hang}
	}
	if e.ErrorRate > 0 && m.rng.Float64() < e.ErrorRate {
		m.Stats.Faulted++
		return chaos.Answer{Verdict: chaos.Respond, Status: e.ErrorStatus, RetryAfter: e.RetryAfter, Pushback: e.Pushback}
	}
	var delay time.Duration
	for _, d := range e.Delays {
		delay += d.Sample(m.rng)
	}
	return chaos.Answer{Verdict: chaos.Admit, Delay: delay}
}

// Overloaded is the answer to a request that capacity turned away: the
// queue was full (Arrive's Rejected) or it waited past the queue timeout
// (Expire): 503 at once. It reads no state.
func (m *Model) Overloaded() chaos.Answer {
	return chaos.Answer{Verdict: chaos.Respond, Status: 503}
}

// Served is the answer at now to j, whose service the model completed:
// 200 (an OCC read's with the version read), or 409 for a stale OCC
// write, with the faults' effects on served answers.
func (m *Model) Served(now time.Duration, j *Job) chaos.Answer {
	return m.respond(now, servedStatus(j.Op, j.Conflict))
}

// servedStatus is the status of a served request of op: 409 for an OCC
// write that conflicted, else 200.
func servedStatus(op Op, conflict bool) int {
	if op == OpWrite && conflict {
		return 409
	}
	return 200
}

// Relayed is a middle tier's answer at now to a request whose call to the
// next tier ended: 200 if the call succeeded, 503 if it gave up, with the
// faults' effects on served answers, as at any tier.
func (m *Model) Relayed(now time.Duration, ok bool) chaos.Answer {
	if ok {
		return m.respond(now, 200)
	}
	return m.respond(now, 503)
}

// respond is a served answer with status, and the effects of the faults
// active at now on served answers: a 2xx answer's body is cut half-way
// with the probability Effect.Truncate.
func (m *Model) respond(now time.Duration, status int) chaos.Answer {
	a := chaos.Answer{Verdict: chaos.Respond, Status: status}
	if m.quiet {
		return a
	}
	if e := m.active(now); e.Truncate > 0 && status < 300 && m.rng.Float64() < e.Truncate {
		a.Truncate = true
	}
	return a
}

// Capacity returns the number of slots available at now: the concurrency,
// cut by brownouts and by the cold-start ramp after an outage, at least 1.
func (m *Model) Capacity(now time.Duration) int {
	e := m.active(now)
	f := e.Capacity
	if cs := m.cfg.ColdStart; cs.Ramp > 0 && e.RecoveredAt >= 0 {
		if since := now - e.RecoveredAt; since < cs.Ramp {
			f *= cs.From + (1-cs.From)*float64(since)/float64(cs.Ramp)
		}
	}
	return max(1, int(math.Floor(float64(m.cfg.Concurrency)*f+1e-9)))
}

// Arrive admits a request that reached the server at now.
func (m *Model) Arrive(now time.Duration) (*Job, Admission) { return m.ArriveOn(now, 0) }

// ArriveOn admits a request of route (Config.Route) that reached the
// server at now.
func (m *Model) ArriveOn(now time.Duration, route int) (*Job, Admission) {
	j := m.newJob()
	*j = Job{Arrived: now, Deadline: now + m.cfg.QueueTimeout, epoch: m.epoch, holds: heldByDriver, route: route}
	// Capacity is at least 1, so an idle target starts the job without
	// asking (the simulator's hot path).
	if m.queued == 0 && (m.busy == 0 || m.busy < m.Capacity(now)) {
		j.holds |= heldByModel
		m.start(j)
		return j, Started
	}
	if m.queued >= m.cfg.Queue {
		m.Stats.Rejected++
		j.state = dropped
		return j, Rejected
	}
	j.holds |= heldByModel
	m.queue = append(m.queue, j)
	m.queued++
	return j, Queued
}

func (m *Model) start(j *Job) {
	j.state = running
	if j.route > 0 {
		j.Service = m.cfg.Routes[j.route-1].ServiceTime.Sample(m.rng)
	} else {
		j.Service = m.cfg.ServiceTime.Sample(m.rng)
	}
	m.busy++
	if m.cfg.Contention > 0 {
		j.Service += time.Duration(m.busy) * m.cfg.Contention
	}
}

// Finish ends j's service at now and returns the queued jobs that start in
// the freed slots (and any added by a grown capacity). The returned slice is
// reused by the next call.
func (m *Model) Finish(now time.Duration, j *Job) []*Job {
	m.out = m.out[:0]
	if j.epoch != m.epoch {
		m.unhold(j, heldByModel) // lost to a crash
		return m.out
	}
	if j.state != running {
		return m.out
	}
	j.state = finished
	m.busy--
	m.Stats.Served++
	if j.abandoned {
		m.Stats.Wasted++
	}
	m.apply(now, j)
	m.unhold(j, heldByModel)
	return m.pump(now)
}

// pump starts queued jobs while slots are free, dropping expired ones.
func (m *Model) pump(now time.Duration) []*Job {
	if m.queued == 0 && m.head == len(m.queue) {
		return m.out
	}
	capacity := m.Capacity(now)
	for m.busy < capacity && m.queued > 0 {
		j := m.queue[m.head]
		m.queue[m.head] = nil
		m.head++
		if j.state != queued {
			m.unhold(j, heldByModel)
			continue
		}
		m.queued--
		if now >= j.Deadline {
			j.state = expired
			m.Stats.Expired++
			m.unhold(j, heldByModel)
			continue
		}
		m.start(j)
		m.out = append(m.out, j)
	}
	if m.head > 1024 && m.head*2 > len(m.queue) {
		m.queue = append(m.queue[:0], m.queue[m.head:]...)
		m.head = 0
	}
	return m.out
}

// Expire is called at j's queue deadline. It reports whether j timed out in
// the queue (answer 503); false means it already started or is gone.
func (m *Model) Expire(now time.Duration, j *Job) bool {
	if j.epoch != m.epoch {
		return false
	}
	switch j.state {
	case queued:
		j.state = expired
		m.queued--
		m.Stats.Expired++
		return true
	case expired:
		return true
	}
	return false
}

// Running reports whether j holds a slot now: it started and neither
// finished nor was lost to a crash. A middle tier of a chain (a server
// that calls the next tier) keeps its job running past its own service
// time, while its call to the next tier lasts, and asks this when that
// service time ends.
func (m *Model) Running(j *Job) bool { return j.epoch == m.epoch && j.state == running }

// Abandon tells the model that j's client has gone away. Unless the model
// serves abandoned work, a queued j leaves the queue; a running j runs on.
func (m *Model) Abandon(now time.Duration, j *Job) {
	if j.epoch != m.epoch || j.abandoned {
		return
	}
	j.abandoned = true
	if j.state == queued && !m.cfg.ServeAbandoned {
		j.state = dropped
		m.queued--
		m.Stats.Abandoned++
	}
}

// Crash drops every running and queued job, as a process that dies does,
// and returns them. Jobs from before the crash are ignored afterwards. The
// returned slice is reused by the next call.
func (m *Model) Crash() []*Job {
	m.out = m.out[:0]
	for _, j := range m.queue[m.head:] {
		if j.state == queued {
			j.state = dropped
			m.out = append(m.out, j)
		}
		m.unhold(j, heldByModel)
	}
	m.queue, m.head, m.queued = m.queue[:0], 0, 0
	m.Stats.Crashed += int64(len(m.out) + m.busy)
	m.busy = 0
	m.epoch++
	return m.out
}

// Holders of a job: the model while it is queued or running, the driver
// until it calls Release.
const (
	heldByModel uint8 = 1 << iota
	heldByDriver
)

// Release tells the model that the driver is done with j: it will not pass
// j to the model again nor read it. Once the model is done with j too, it
// reuses j for a later request, so a driver that releases its jobs (the
// simulator) allocates nothing per request. A driver that never calls
// Release (the real server) gets a fresh job every time.
func (m *Model) Release(j *Job) { m.unhold(j, heldByDriver) }

func (m *Model) unhold(j *Job, h uint8) {
	if j.holds&h == 0 {
		return
	}
	j.holds &^= h
	if j.holds == 0 {
		j.Owner = nil
		m.free = append(m.free, j)
	}
}

func (m *Model) newJob() *Job {
	if n := len(m.free); n > 0 {
		j := m.free[n-1]
		m.free = m.free[:n-1]
		return j
	}
	return &Job{}
}

// active returns the chaos effect at now. Both drivers ask about nearly
// the same instant again and again, so the segment last found is tried
// first.
func (m *Model) active(now time.Duration) *chaos.Effect {
	if g := m.seg; g != nil && g.Start <= now && now < g.End {
		return &g.Effect
	}
	segs := m.plan.Segments()
	i := sort.Search(len(segs), func(i int) bool { return segs[i].Start > now }) - 1
	m.seg = &segs[max(i, 0)]
	return &m.seg.Effect
}
