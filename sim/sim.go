package sim

import (
	"math/rand/v2"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target"
)

// Cohort is one strategy's run: everything the simulator needs, as the
// scenario compiled it.
type Cohort struct {
	Target   target.Config
	Chaos    *chaos.Plan // nil: no faults
	Workload *clients.Workload
	Strategy *clients.Strategy
	Duration time.Duration
	Seed     uint64
	// Part is the shard of the cohort to simulate (clients.Part): its
	// clients, or its share of an open workload's arrivals. Zero: every
	// client. The shards of a cohort whose clients do not interact
	// (through the target's capacity, its random draws or a shared
	// policy) record, added up, exactly what the whole cohort records.
	Part clients.Part
}

// Result is what a simulated cohort did besides its records.
type Result struct {
	// End is when the cohort stopped: when its last client stopped, or the
	// run's duration if some client was still working then.
	End    time.Duration
	Events uint64       // events processed
	Target target.Stats // the target model's counters
	Row    target.Row   // the OCC row's counters (zero for a plain target)
}

type kind uint8

const (
	evSend    kind = iota // a client sends an attempt
	evArrive              // a request reaches the target, after its hop
	evAdmit               // a request's added latency (a blip) has passed
	evReply               // an answer reaches its client, after its hop
	evTimeout             // a client's per-attempt timeout
	evFinish              // a job's service ends
	evExpire              // a queued job's queue deadline
	evCrash               // a reset or refuse outage begins
	evArrival             // the open workload's next arrival
)

// client is one client's whole state in one place: its step function,
// its random stream and the attempt in flight. With a million clients,
// each event touches one client at random; keeping its state together
// (rather than a Client, a rand.Rand and a PCG each on the heap) turns
// four cache misses into one or two.
type client struct {
	cl      clients.Client
	rng     rand.Rand
	pcg     rand.PCG
	sent    time.Duration // when the current attempt was sent
	version uint64        // OCC: the version this attempt read
	gen     uint32        // attempt generation: events of an older attempt are stale
	job     int32         // the attempt's job inside the target (registry index), -1 if none
	slot    int32         // index in Sim.inflight, -1 when not in flight
	op      target.Op     // what the request in flight asks
	out     results.Outcome
	ra      time.Duration // the answer's Retry-After (pushback), 0 if none
}

// job links a target job to the client attempt that sent it. refs counts
// the pending events that name it plus the client's link; at zero the job
// goes back to the model (Release) and the link to the free list.
type job struct {
	j      *target.Job
	client int32
	idx    int32
	refs   uint8
}

// Sim is a reusable simulator. It is not safe for concurrent use: give
// each goroutine its own.
type Sim struct {
	q        queue
	chunks   [][]client // the clients, in chunks that never move
	nclients int32
	freeCS   []int32
	jobs     []*job
	freeJobs []int32
	inflight []int32
	scratch  []int32
	crashes  []time.Duration // when the target crashes

	m        *target.Model
	k        *clients.Cohort // the cohort's shared policy state
	co       *Cohort
	rec      *results.Recorder
	occ      bool
	timeout  time.Duration
	active   int // clients not yet stopped
	lastStop time.Duration

	arrivals   *clients.Workload
	arrivalRNG *rand.Rand
	arrivalAt  time.Duration
	nextID     int
	events     uint64
}

// New returns a simulator.
func New() *Sim { return &Sim{} }

// Run simulates co, recording into rec, and returns what happened. rec
// should have one shard and be empty; an Unshared one records fastest (only
// this goroutine writes it). Run calls rec.SetEnd when every client stopped
// before the duration.
func (s *Sim) Run(co *Cohort, rec *results.Recorder) Result {
	plan := co.Chaos
	if plan == nil {
		plan, _ = chaos.NewPlan(nil, co.Duration)
	}
	s.co, s.rec = co, rec
	s.k = clients.NewCohort(co.Strategy)
	s.m = target.NewModel(co.Target, plan, seeds.Stream(co.Seed, seeds.Target))
	s.m.RecordCalls(rec)
	s.occ = co.Target.Kind == target.OCC
	s.timeout = co.Strategy.Timeout
	s.q.reset()
	s.nclients, s.freeCS, s.inflight = 0, s.freeCS[:0], s.inflight[:0]
	// Job links are kept from run to run; all of them are free now.
	s.freeJobs = s.freeJobs[:0]
	for i := len(s.jobs) - 1; i >= 0; i-- {
		s.freeJobs = append(s.freeJobs, int32(i))
	}
	s.active, s.lastStop, s.events, s.nextID = 0, 0, 0, 0
	s.arrivals = nil

	segs := plan.Segments()
	s.crashes = s.crashes[:0]
	for i := 1; i < len(segs); i++ {
		prev, next := segs[i-1].Effect.Outage, segs[i].Effect.Outage
		if prev != next && next.Crashes() {
			s.q.push(segs[i].Start, pack(evCrash, 0, 0))
			s.crashes = append(s.crashes, segs[i].Start)
		}
	}
	w := co.Workload
	switch w.Kind {
	case clients.Open:
		s.arrivals = w
		s.arrivalRNG = seeds.Stream(co.Seed, seeds.Arrivals)
		s.arrivalAt = 0
		s.nextArrival()
	default:
		for id := co.Part.First(); id < w.Clients; id += co.Part.Step() {
			ci := s.newClient(id)
			s.active++
			s.schedule(ci, s.cl(ci).cl.Begin(), 0)
		}
	}

	end := co.Duration
	for s.q.len() > 0 && (s.active > 0 || s.arrivals != nil) {
		e := s.q.pop()
		if e.at >= end {
			break
		}
		s.events++
		s.dispatch(e)
	}
	r := Result{End: end, Events: s.events, Target: s.m.Stats, Row: *s.m.Row()}
	if s.active == 0 && s.arrivals == nil && s.lastStop < end {
		r.End = s.lastStop
		rec.SetEnd(s.lastStop)
	}
	// Drop references so that a parked Sim does not keep a cohort alive.
	for i := int32(0); i < s.nclients; i += chunkSize {
		clear(s.chunks[i>>chunkBits][:min(chunkSize, s.nclients-i)])
	}
	for _, w := range s.jobs {
		w.j, w.refs = nil, 0
	}
	s.m, s.k, s.co, s.rec, s.arrivalRNG = nil, nil, nil, nil, nil
	return r
}

func (s *Sim) dispatch(e event) {
	now := e.at
	switch e.kind() {
	case evSend:
		ci := int32(e.index())
		if s.cl(ci).gen&genMask == e.gen() {
			s.send(ci, now)
		}
	case evArrive, evAdmit, evReply, evTimeout:
		ci := int32(e.index())
		c := s.cl(ci)
		if c.gen&genMask != e.gen() || c.slot < 0 {
			return // the attempt already ended (timeout, crash)
		}
		switch e.kind() {
		case evArrive:
			s.arrive(ci, now)
		case evAdmit:
			s.admit(ci, now)
		case evReply:
			s.end(ci, now, c.out)
		case evTimeout:
			if c.job >= 0 {
				s.m.Abandon(now, s.jobs[c.job].j)
			}
			s.end(ci, now, results.Timeout)
		}
	case evFinish:
		w := s.jobs[e.index()]
		for _, nj := range s.m.Finish(now, w.j) {
			s.startJob(now, nj)
		}
		if c := s.cl(w.client); c.job == w.idx {
			c.job = -1
			s.served(w.client, now, w.j)
			s.unref(w)
		}
		s.unref(w)
	case evExpire:
		w := s.jobs[e.index()]
		if s.m.Expire(now, w.j) {
			if c := s.cl(w.client); c.job == w.idx {
				c.job = -1
				s.unref(w)
				s.reply(w.client, now, results.HTTP5xx)
			}
		}
		s.unref(w)
	case evCrash:
		s.m.Crash()
		s.scratch = append(s.scratch[:0], s.inflight...)
		for _, ci := range s.scratch {
			// An attempt scheduled straight to its arrival is in the list
			// before it is sent; one sent at this very instant goes after
			// the crash, as its send event would have.
			if s.cl(ci).sent < now {
				s.end(ci, now, results.Reset)
			}
		}
	case evArrival:
		id := s.nextID
		s.nextID++
		if s.co.Part.Owns(id) {
			ci := s.newClient(id)
			s.active++
			s.schedule(ci, s.cl(ci).cl.BeginAt(now), now)
		}
		s.nextArrival()
	}
}

// nextArrival schedules the open workload's next arrival, drawn as the
// real swarm draws it.
func (s *Sim) nextArrival() {
	at, more := s.arrivals.NextArrival(s.arrivalAt, s.arrivalRNG.ExpFloat64(), s.co.Duration)
	if !more {
		s.arrivals = nil
		return
	}
	s.arrivalAt = at
	s.q.push(s.arrivalAt, pack(evArrival, 0, 0))
}

func (s *Sim) newClient(id int) int32 {
	var ci int32
	if n := len(s.freeCS); n > 0 {
		ci = s.freeCS[n-1]
		s.freeCS = s.freeCS[:n-1]
	} else {
		ci = s.nclients
		s.nclients++
		if int(ci>>chunkBits) == len(s.chunks) {
			s.chunks = append(s.chunks, make([]client, chunkSize))
		}
	}
	c := s.cl(ci)
	gen := c.gen // generations run on through reuse, so old events stay stale
	*c = client{gen: gen + 1, job: -1, slot: -1}
	seeds.Place(&c.rng, &c.pcg, s.co.Seed, seeds.Client(id)) // in place: no allocation
	s.k.InitClient(&c.cl, id, s.co.Workload, s.co.Duration, &c.rng, s.rec.Shard(id))
	return ci
}

// schedule carries out a client's next action.
func (s *Sim) schedule(ci int32, a clients.Action, now time.Duration) {
	c := s.cl(ci)
	if a.Op == clients.Send {
		if s.m.Listening(a.At) {
			if d := s.m.Hop(); d > 0 {
				// Nothing happens at the send itself but the request's
				// departure, so it is scheduled straight to its arrival:
				// one event less per attempt. The attempt counts as in
				// flight from a.At on (see evCrash).
				s.depart(ci, a.At)
				s.track(ci)
				s.q.push(a.At+d, pack(evArrive, c.gen, uint32(ci)))
				if s.timeout > 0 {
					s.q.push(a.At+s.timeout, pack(evTimeout, c.gen, uint32(ci)))
				}
				return
			}
		}
		s.q.push(a.At, pack(evSend, c.gen, uint32(ci)))
		return
	}
	s.active--
	s.lastStop = max(s.lastStop, now)
	c.gen++
	if s.co.Workload.Kind == clients.Open {
		s.freeCS = append(s.freeCS, ci)
	}
}

// depart starts client ci's attempt at at.
func (s *Sim) depart(ci int32, at time.Duration) {
	c := s.cl(ci)
	c.sent, c.op = at, target.OpPlain
	if s.occ {
		c.op = target.OpRead
	}
}

// send starts an attempt now.
func (s *Sim) send(ci int32, now time.Duration) {
	c := s.cl(ci)
	s.depart(ci, now)
	gen := c.gen
	s.request(ci, now)
	// Only an attempt still in flight after everything that happens at once
	// needs its timeout scheduled.
	if s.timeout > 0 && c.gen == gen && c.slot >= 0 {
		s.q.push(now+s.timeout, pack(evTimeout, gen, uint32(ci)))
	}
}

// request sends the client's request over one hop.
func (s *Sim) request(ci int32, now time.Duration) {
	c := s.cl(ci)
	if !s.m.Listening(now) {
		s.end(ci, now, results.Refused)
		return
	}
	s.track(ci)
	if d := s.m.Hop(); d > 0 {
		s.q.push(now+d, pack(evArrive, c.gen, uint32(ci)))
		return
	}
	s.arrive(ci, now)
}

// track puts client ci in the in-flight list.
func (s *Sim) track(ci int32) {
	if c := s.cl(ci); c.slot < 0 {
		c.slot = int32(len(s.inflight))
		s.inflight = append(s.inflight, ci)
	}
}

// arrive applies the chaos plan to a request that reached the target.
func (s *Sim) arrive(ci int32, now time.Duration) {
	in := s.m.Ingress(now)
	switch in.Verdict {
	case target.Reject:
		s.cl(ci).ra = in.RetryAfter
		s.reply(ci, now, results.FromStatus(in.Status))
	case target.Reset, target.Refuse:
		s.end(ci, now, results.Reset)
	case target.Hang:
		// held until the client's timeout or a crash
	default:
		if in.Delay > 0 {
			s.q.push(now+in.Delay, pack(evAdmit, s.cl(ci).gen, uint32(ci)))
			return
		}
		s.admit(ci, now)
	}
}

// admit hands a request to the capacity model.
func (s *Sim) admit(ci int32, now time.Duration) {
	c := s.cl(ci)
	j, adm := s.m.Arrive(now)
	j.Op, j.Version = c.op, c.version
	switch adm {
	case target.Rejected:
		s.m.Release(j)
		s.reply(ci, now, results.HTTP5xx)
	case target.Started:
		if j.Service == 0 {
			// Served at once, as the real server does under its lock.
			for _, nj := range s.m.Finish(now, j) {
				s.startJob(now, nj)
			}
			s.served(ci, now, j)
			s.m.Release(j)
			return
		}
		w := s.link(j, ci)
		s.q.push(now+j.Service, pack(evFinish, 0, uint32(w.idx)))
		w.refs++
	case target.Queued:
		w := s.link(j, ci)
		s.q.push(j.Deadline, pack(evExpire, 0, uint32(w.idx)))
		w.refs++
	}
}

// link registers j as client ci's attempt's job.
func (s *Sim) link(j *target.Job, ci int32) *job {
	var w *job
	if n := len(s.freeJobs); n > 0 {
		w = s.jobs[s.freeJobs[n-1]]
		s.freeJobs = s.freeJobs[:n-1]
	} else {
		w = &job{idx: int32(len(s.jobs))}
		s.jobs = append(s.jobs, w)
	}
	w.j, w.client, w.refs = j, ci, 1
	j.Owner = w
	s.cl(ci).job = w.idx
	return w
}

// startJob schedules the end of a queued job that the model just started.
func (s *Sim) startJob(now time.Duration, j *target.Job) {
	w := j.Owner.(*job)
	s.q.push(now+j.Service, pack(evFinish, 0, uint32(w.idx)))
	w.refs++
}

func (s *Sim) unref(w *job) {
	w.refs--
	if w.refs == 0 {
		s.m.Release(w.j)
		w.j = nil
		s.freeJobs = append(s.freeJobs, w.idx)
	}
}

// served answers the request whose job j the model just served.
func (s *Sim) served(ci int32, now time.Duration, j *target.Job) {
	c := s.cl(ci)
	switch c.op {
	case target.OpRead:
		// The read's answer travels back and the client sends the write at
		// once, in the same attempt: two hops in one event.
		c.version, c.op = j.Version, target.OpWrite
		if d := s.m.Hop() + s.m.Hop(); d > 0 {
			s.q.push(now+d, pack(evArrive, c.gen, uint32(ci)))
			return
		}
		s.arrive(ci, now)
	case target.OpWrite:
		out := results.OK
		if j.Conflict {
			out = results.HTTP4xx
		}
		s.reply(ci, now, out)
	default:
		s.reply(ci, now, results.OK)
	}
}

// reply sends an answer back over one hop.
func (s *Sim) reply(ci int32, now time.Duration, out results.Outcome) {
	c := s.cl(ci)
	d := s.m.Hop()
	if d <= 0 {
		s.end(ci, now, out)
		return
	}
	if at := now + d; at < s.co.Duration && (s.timeout == 0 || at < c.sent+s.timeout) && !s.crashIn(now, at) {
		// Nothing can reach the answer on its way back (no timeout, no
		// crash, no end of run before it lands), so the attempt ends
		// now, as of its landing time: one event less per attempt.
		s.end(ci, at, out)
		return
	}
	c.out = out
	s.q.push(now+d, pack(evReply, c.gen, uint32(ci)))
}

// end ends client ci's attempt with out at now and carries out its next
// action.
func (s *Sim) end(ci int32, now time.Duration, out results.Outcome) {
	c := s.cl(ci)
	if c.slot >= 0 {
		last := s.inflight[len(s.inflight)-1]
		s.inflight[c.slot] = last
		s.cl(last).slot = c.slot
		s.inflight = s.inflight[:len(s.inflight)-1]
		c.slot = -1
	}
	if c.job >= 0 {
		w := s.jobs[c.job]
		c.job = -1
		s.unref(w)
	}
	c.gen++
	ra := c.ra
	c.ra = 0
	a := c.cl.Result(clients.Reply{Sent: c.sent, Latency: now - c.sent, Outcome: out, RetryAfter: ra})
	s.schedule(ci, a, now)
}

const (
	chunkBits = 12
	chunkSize = 1 << chunkBits
)

// cl returns client ci.
func (s *Sim) cl(ci int32) *client { return &s.chunks[ci>>chunkBits][ci&(chunkSize-1)] }

// crashIn reports whether the target crashes in (from, to]: a crash at from
// has already happened (it is the first event of its instant).
func (s *Sim) crashIn(from, to time.Duration) bool {
	for _, t := range s.crashes {
		if from < t && t <= to {
			return true
		}
	}
	return false
}
