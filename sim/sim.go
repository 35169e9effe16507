package sim

import (
	"math/rand/v2"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target/model"
)

// Cohort is one strategy's run: everything the simulator needs, as the
// scenario compiled it.
type Cohort struct {
	Target   model.Config
	Chaos    *chaos.Plan // nil: no faults
	Workload *clients.Workload
	Strategy *clients.Strategy
	Duration time.Duration
	Seed     uint64
	// Tiers is a chain of tiers, from the one the clients call down to
	// the bottom one (tiers.go); nil for the single target of Target and
	// Chaos. Strategy.Tiers says how each tier but the bottom one calls
	// the next.
	Tiers []Tier
	// Below records, with tiers, the calls each tier makes to the next:
	// Below[k] the attempts that reached tier k+1, as the recorder given
	// to Run records those that reached the first. Each should be empty,
	// with one shard.
	Below []*results.Recorder
	// GRPC says the target speaks gRPC: an answer's pushback goes in
	// milliseconds (chaos.Answer.Pushback, grpc-retry-pushback-ms) where
	// an HTTP target sends only its Retry-After.
	GRPC bool
	// Part is the shard of the cohort to simulate (clients.Part): its
	// clients, or its share of an open workload's arrivals. Zero: every
	// client. The shards of a cohort whose clients do not interact
	// (through the target's capacity, its random draws or a shared
	// policy) record, added up, exactly what the whole cohort records.
	Part clients.Part
	// Shared is, for a gRPC target, how many clients share one grpc-go
	// channel (connections.shared; channel.go); 0 or 1: each its own.
	Shared int
	// Lateness and SendLag, if set, are a real harness's lateness, for
	// asking the model what a real run's figures are with it (engine's
	// check of a real run against the model with its own lateness). Each
	// is drawn from, each value equally likely, by a hash of the seed,
	// the client and its attempt, so no random stream moves. Empty: at
	// once, as the model has it.
	//
	// Lateness is how late the clients learn of a crash: each attempt a
	// crash ends (every one in flight at the plan's instant) is learned
	// of (its latency recorded, its retry scheduled) a draw later. A real
	// harness is that late at a crash alone, where every client learns at
	// once; it learns of any other failure on its own schedule.
	Lateness []time.Duration
	// SendLag is how late the clients send what they scheduled: each
	// attempt goes out a draw after the instant its client scheduled it
	// for.
	SendLag []time.Duration
	// OnRequest, if set, is told of every logical request of the
	// workload's clients as it ends, beside the recorder: the cliff
	// search's success of the requests that began during a fault.
	OnRequest func(results.Request)
	// Stop, if set, stops the run early once it holds true (an interrupt):
	// Run looks at it every StopEvery events, and every StopEvery clients
	// while it sets them up, so it returns within a fraction of a
	// millisecond of wall time, with what it recorded up to then.
	Stop *atomic.Bool
}

// StopEvery is how many events (or clients set up) Run processes between
// two looks at Cohort.Stop: at 100 to 300 ns an event, a look every 0.1 to
// 0.3 ms, one load of an atomic in a thousand events.
const StopEvery = 1024

// Tier is one server of a chain of tiers.
type Tier struct {
	Target model.Config
	Chaos  *chaos.Plan // nil: no faults
}

// Result is what a simulated cohort did besides its records.
type Result struct {
	// End is when the cohort stopped: when its last client stopped, or the
	// run's duration if some client was still working then; with Stopped,
	// the virtual time the run had reached.
	End time.Duration
	// Stopped says Cohort.Stop cut the run before End: its records cover
	// [0, End) only.
	Stopped bool
	Events  uint64      // events processed
	Target  model.Stats // the target model's counters (the bottom tier's)
	Row     model.Row   // the OCC row's counters (zero for a plain target)
	// Tiers are, with tiers, each tier's model's counters, in order.
	Tiers []model.Stats
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
	evCrash               // a reset or refuse outage begins (index: the tier)
	evArrival             // the open workload's next arrival
	evLearn               // a client learns, late, of its attempt's failure (Cohort.Lateness)
	evHedge               // a hedging client's hedge comes due (hedge.go)
)

// client is what an event touches of one client, in one place: its step
// function, its random stream and the attempt in flight. With a million
// clients, each event touches one client at random; keeping its state
// together (rather than a Client, a rand.Rand and a PCG each on the heap)
// turns four cache misses into one or two, and keeping it to 192 bytes,
// three cache lines on a line's boundary (TestClientSlotLines), makes
// each event's misses three rather than four. What only some runs use is
// beside the slab, in cold.
//
// A tier's call to the next tier (tiers.go) is a client too, in the same
// slab, marked callFlag: its cold part names its caller.
type client struct {
	cl     clients.Client
	rng    rand.Rand
	pcg    rand.PCG
	sent   time.Duration // when the current attempt was sent
	gen    uint32        // attempt generation: events of an older attempt are stale
	job    int32         // the attempt's job inside the target (registry index), -1 if none
	slot   int32         // index in Sim.inflight, -1 when not in flight
	status uint16        // the answer's status (HTTP, or a gRPC code), 0 if none
	tier   uint8         // the tier its attempts go to (0: the first, or the single target)
	flags  uint8         // okFlag, reusedFlag, resendFlag, callFlag, raFlag
	op     model.Op      // what the request in flight asks
	out    results.Outcome
}

// cold is the part of a client's state that only some runs touch: an OCC
// row's, an answer's Retry-After, a tier's call. It lives in chunks beside
// the slab's (Sim.cold), made the first time a client of theirs needs it,
// so a million clients against a plain target never load it.
type cold struct {
	version uint64        // OCC: the version this attempt read
	ra      time.Duration // the answer's Retry-After (pushback), with raFlag
	parent  int32         // a call's caller (client slot), with callFlag; a hedging attempt's client, with hedgeFlag
	pjob    int32         // a call's job at the calling tier, with callFlag
	hedge   hedgeState    // a hedging client's, or one of its attempts' (hedge.go)
}

// Client flags, in one byte (a million clients' slab has no room to spare).
const (
	okFlag uint8 = 1 << iota // its last attempt succeeded
	// reusedFlag: its connection has carried an answered exchange, which
	// is what lets a net/http client re-send (Strategy.Transport).
	reusedFlag
	resendFlag // the attempt in flight is such a re-send
	callFlag   // a tier's call to the next tier: cold's parent and pjob name its caller
	raFlag     // the answer in hand has a Retry-After (pushback): cold's ra
	hedgeFlag  // one attempt of a hedging client (hedge.go): cold's parent names it
)

// set sets or clears flag f.
func (c *client) set(f uint8, on bool) {
	if on {
		c.flags |= f
	} else {
		c.flags &^= f
	}
}

func (c *client) has(f uint8) bool { return c.flags&f != 0 }

// job links a target job to the client attempt that sent it. refs counts
// the pending events that name it plus the client's link; at zero the job
// goes back to the model (Release) and the link to the free list.
type job struct {
	j      *model.Job
	client int32
	idx    int32
	call   int32 // at a middle tier, the call it makes to the next tier; -1 if none
	tier   uint8 // the tier it is in
	refs   uint8
}

// level is one tier of the chain with the callers that call it: level 0
// is the workload's clients and the first tier (the single target without
// tiers), level k the calls of tier k-1 and tier k.
type level struct {
	m       *model.Model
	plan    *chaos.Plan
	k       *clients.Cohort // the callers' shared policy state
	timeout time.Duration   // the callers' per-attempt timeout
	rec     *results.Recorder
	crashes []time.Duration // when the tier crashes
	calls   int             // calls made to this tier so far (their stream ids)
	pcg     *rand.PCG       // the model's random stream (a snapshot copies it)
	stream  uint64          // its id under the cohort's seed
}

// Sim is a reusable simulator. It is not safe for concurrent use: give
// each goroutine its own.
type Sim struct {
	q        queue
	chunks   []*[chunkSize]client // the clients, in chunks that never move
	colds    []*[chunkSize]cold   // their cold parts, chunk by chunk, each made when first needed
	nclients int32
	freeCS   []int32
	jobs     []*job
	freeJobs []int32
	inflight []int32
	scratch  []int32
	crashing bool // a crash is ending the attempts in flight (evCrash)

	lv       []level // one per tier; one for a single target
	co       *Cohort
	occ      bool
	instant  bool // one tier whose model serves every request at once (model.Model.Instant)
	hedging  bool // the cohort's strategy hedges: its clients' attempts go out in slots of their own (hedge.go)
	active   int  // workload clients not yet stopped
	lastStop time.Duration
	callWork clients.Workload // a call's: one request

	arrivals *clients.Workload
	// pool: an open workload of a net/http cohort, whose arrivals take
	// connections from one shared pool (as the swarm's and herdtest's
	// do); pooled says the pool holds answered connections, none of which
	// a crash has closed since, so an arrival's attempt goes out on a
	// reused one.
	pool, pooled bool
	arrivalRNG   *rand.Rand
	arrivalPCG   *rand.PCG // arrivalRNG's source (a snapshot copies it)
	arrivalAt    time.Duration
	nextID       int
	events       uint64
	touch        uint64 // the sum of what prefetch loads where it loads (prefetch_other.go): stored, so the compiler keeps the loads

	// chans are a gRPC cohort's channels (channel.go), perChan clients to
	// each (0: no channels), and drops the instants the plan closes every
	// connection.
	chans   []channel
	perChan int
	drops   []time.Duration

	taps []*tap // the workload clients' tapped sinks (Cohort.OnRequest)

	// look, in tests, is called at each look at Cohort.Stop, with the
	// clients set up so far (setup) or the events processed.
	look func(setup bool, n uint64)
}

// New returns a simulator.
func New() *Sim { return &Sim{} }

// Run simulates co, recording into rec, and returns what happened. rec
// should have one shard and be empty; an Unshared one records fastest (only
// this goroutine writes it). Run calls rec.SetEnd when every client stopped
// before the duration.
func (s *Sim) Run(co *Cohort, rec *results.Recorder) Result {
	return s.RunPaused(co, rec, nil, nil)
}

// begin sets the simulator up for co, recording into rec: the levels, the
// channels, the crashes, and the workload's clients (or its first
// arrival). It reports whether Cohort.Stop stopped it while it set the
// clients up.
func (s *Sim) begin(co *Cohort, rec *results.Recorder) (stopped bool) {
	plan := co.Chaos
	if plan == nil {
		plan, _ = chaos.NewPlan(nil, co.Duration)
	}
	s.co = co
	s.callWork = clients.Workload{Kind: clients.OneShot}
	s.setLevels(co, plan, rec)
	s.setChannels(co, plan)
	s.occ = co.Tiers == nil && co.Target.Kind == model.OCC
	s.instant = co.Tiers == nil && s.lv[0].m.Instant()
	s.hedging = co.Strategy.Hedge.Max > 0
	s.q.reset()
	s.nclients, s.freeCS, s.inflight = 0, s.freeCS[:0], s.inflight[:0]
	// Job links are kept from run to run; all of them are free now.
	s.freeJobs = s.freeJobs[:0]
	for i := len(s.jobs) - 1; i >= 0; i-- {
		s.freeJobs = append(s.freeJobs, int32(i))
	}
	s.active, s.lastStop, s.events, s.nextID = 0, 0, 0, 0
	s.arrivals = nil
	s.pool = co.Workload.Kind == clients.Open && co.Strategy.Transport != clients.RawTransport
	s.pooled = false

	for t := range s.lv {
		lv := &s.lv[t]
		lv.crashes = crashInstants(lv.plan, lv.crashes[:0])
		for _, at := range lv.crashes {
			s.q.push(at, pack(evCrash, 0, uint32(t)))
		}
	}
	w := co.Workload
	switch w.Kind {
	case clients.Open:
		s.arrivals = w
		s.arrivalPCG = rand.NewPCG(co.Seed, seeds.Arrivals)
		s.arrivalRNG = rand.New(s.arrivalPCG) // what seeds.Stream(co.Seed, seeds.Arrivals) draws
		s.arrivalAt = 0
		s.nextArrival()
	default:
		n := 0
		for id := co.Part.First(); id < w.Clients; id += co.Part.Step() {
			if n++; n%StopEvery == 0 && co.Stop != nil {
				if s.look != nil {
					s.look(true, uint64(n))
				}
				if co.Stop.Load() {
					return true // ten million clients take seconds to set up
				}
			}
			ci := s.newClient(id)
			s.active++
			s.schedule(ci, s.cl(ci).cl.Begin(), 0)
		}
	}
	return false
}

// crashInstants appends to out the instants at which a tier under plan
// crashes: where a reset or refuse outage begins.
func crashInstants(plan *chaos.Plan, out []time.Duration) []time.Duration {
	segs := plan.Segments()
	for i := 1; i < len(segs); i++ {
		if prev, next := segs[i-1].Effect.Outage, segs[i].Effect.Outage; prev != next && next.Crashes() {
			out = append(out, segs[i].Start)
		}
	}
	return out
}

// advance processes the run's events in order, up to the run's end or,
// when until comes before it, up to until: every event before until is
// done and none at or after it. It reports whether Cohort.Stop stopped the
// run, and then the instant the run had reached.
func (s *Sim) advance(until time.Duration) (stopped bool, at time.Duration) {
	co := s.co
	end := co.Duration
	for s.q.len() > 0 && (s.active > 0 || s.arrivals != nil) {
		if until < end && s.q.next() >= until {
			return false, 0
		}
		e := s.q.pop()
		if e.at >= end {
			break
		}
		if len(s.q.soon) > 0 {
			s.prefetch()
		}
		if s.events%StopEvery == 0 && co.Stop != nil {
			if s.look != nil {
				s.look(false, s.events)
			}
			if co.Stop.Load() {
				// Every event before e's instant is done: the records
				// cover [0, e.at).
				return true, e.at
			}
		}
		s.events++
		s.dispatch(e)
	}
	return false, 0
}

// finish ends the run: what it did, rec's end when it stopped early, and
// the simulator's references to the cohort dropped.
func (s *Sim) finish(stopped bool, at time.Duration, rec *results.Recorder) Result {
	co := s.co
	end := co.Duration
	bottom := s.lv[len(s.lv)-1].m
	r := Result{End: end, Events: s.events, Target: bottom.Stats, Row: *bottom.Row()}
	if co.Tiers != nil {
		for _, lv := range s.lv {
			r.Tiers = append(r.Tiers, lv.m.Stats)
		}
	}
	switch {
	case stopped:
		r.End, r.Stopped = at, true
		rec.SetEnd(at)
		for _, b := range co.Below {
			b.SetEnd(at)
		}
	case s.active == 0 && s.arrivals == nil && s.lastStop < end:
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
	for i := range s.lv {
		s.lv[i] = level{crashes: s.lv[i].crashes[:0]}
	}
	clear(s.taps)
	s.co, s.arrivalRNG, s.arrivalPCG, s.taps = nil, nil, nil, s.taps[:0]
	return r
}

// setLevels makes the run's levels: one per tier, each with its model
// (the bottom one drawing from seeds.Target, as a single target does),
// its callers' strategy and its recorder.
func (s *Sim) setLevels(co *Cohort, plan *chaos.Plan, rec *results.Recorder) {
	n := max(1, len(co.Tiers))
	if cap(s.lv) < n {
		s.lv = append(s.lv[:cap(s.lv)], make([]level, n-cap(s.lv))...)
	}
	s.lv = s.lv[:n]
	for t := range s.lv {
		cfg, st, lrec, stream := co.Target, co.Strategy, rec, seeds.Target
		if co.Tiers != nil {
			cfg, plan = co.Tiers[t].Target, co.Tiers[t].Chaos
			if plan == nil {
				plan, _ = chaos.NewPlan(nil, co.Duration)
			}
			if t < n-1 {
				stream = seeds.TierTarget(t)
			}
			if t > 0 {
				st, lrec = &co.Strategy.Tiers[t-1], co.Below[t-1]
			}
		}
		pcg := rand.NewPCG(co.Seed, stream) // what seeds.Stream(co.Seed, stream) draws from
		m := model.NewModel(cfg, plan, rand.New(pcg))
		m.RecordCalls(lrec)
		s.lv[t] = level{m: m, plan: plan, k: clients.NewCohort(st), timeout: st.Timeout, rec: lrec, crashes: s.lv[t].crashes[:0], pcg: pcg, stream: stream}
	}
}

func (s *Sim) dispatch(e event) {
	now := e.at
	switch e.kind() {
	case evSend:
		ci := int32(e.index())
		if c := s.cl(ci); c.gen&genMask == e.gen() {
			if s.hedging && c.flags&(callFlag|hedgeFlag) == 0 {
				s.sendHedged(ci, now)
				return
			}
			s.send(ci, now)
		}
	case evHedge:
		if ci := int32(e.index()); s.cl(ci).gen&genMask == e.gen() {
			s.hedgeDue(ci, now)
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
				w := s.jobs[c.job]
				s.lv[w.tier].m.Abandon(now, w.j)
			}
			s.end(ci, now, results.Timeout)
		}
	case evLearn:
		ci := int32(e.index())
		if s.cl(ci).gen&genMask == e.gen() {
			s.learn(ci, now)
		}
	case evFinish:
		w := s.jobs[e.index()]
		if int(w.tier) < len(s.lv)-1 {
			s.relay(w, now) // a middle tier's own work is done: it calls the next tier
			s.unref(w)
			return
		}
		for _, nj := range s.lv[w.tier].m.Finish(now, w.j) {
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
		if s.lv[w.tier].m.Expire(now, w.j) {
			if c := s.cl(w.client); c.job == w.idx {
				c.job = -1
				s.unref(w)
				a := s.lv[w.tier].m.Overloaded()
				s.answer(w.client, now, &a)
			}
		}
		s.unref(w)
	case evCrash:
		s.crash(e.index(), now)
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

// crash crashes tier t at now: its model drops its work, and every attempt
// in flight to it is reset.
func (s *Sim) crash(t uint32, now time.Duration) {
	s.lv[t].m.Crash()
	if t == 0 {
		s.pooled = false // a re-send below takes a new connection
	}
	s.scratch = append(s.scratch[:0], s.inflight...)
	s.crashing = true
	for _, ci := range s.scratch {
		// An attempt scheduled straight to its arrival is in the list
		// before it is sent; one sent at this very instant goes after
		// the crash, as its send event would have. Ending an attempt
		// at a middle tier cancels its call below, which may leave the
		// list first.
		if c := s.cl(ci); c.slot >= 0 && uint32(c.tier) == t && c.sent < now {
			s.reset(ci, now)
		}
	}
	s.crashing = false
	if t == 0 && s.co.Strategy.Transport != clients.RawTransport {
		// The crash closed every connection, idle ones too: the next
		// attempts dial new ones (a re-send just made is on one).
		for i := int32(0); i < s.nclients; i++ {
			if c := s.cl(i); !c.has(callFlag) {
				c.set(reusedFlag, false)
			}
		}
	}
}

// prefetch brings the state of the clients of the queue's imminent events
// (queue.soon) into the cache, every cache line of each at once
// (prefetchClient), so that the misses overlap: the only reordering is the
// memory's.
func (s *Sim) prefetch() {
	var x uint64
	for _, arg := range s.q.soon {
		e := event{arg: arg}
		ci := int32(e.index())
		switch e.kind() {
		case evSend, evArrive, evAdmit, evReply, evTimeout, evLearn, evHedge:
		case evFinish, evExpire:
			ci = s.jobs[ci].client
		default:
			continue
		}
		x += uint64(prefetchClient(unsafe.Pointer(s.cl(ci))))
	}
	s.touch += x
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
	ci := s.slot()
	c := s.cl(ci)
	gen := c.gen // generations run on through reuse, so old events stay stale
	*c = client{gen: gen + 1, job: -1, slot: -1}
	if s.occ {
		s.cold(ci).version = 0
	}
	if s.hedging {
		s.cold(ci).hedge = hedgeState{}
	}
	seeds.Place(&c.rng, &c.pcg, s.co.Seed, seeds.Client(id)) // in place: no allocation
	lv := &s.lv[0]
	lv.k.InitClient(&c.cl, id, s.co.Workload, s.co.Duration, &c.rng, s.sink(lv.rec.Shard(id)))
	c.cl.Traffic(s.co.Seed)
	return ci
}

// sink is a workload client's sink: its recorder's shard, or with
// Cohort.OnRequest the shard tapped, one tap per shard.
func (s *Sim) sink(sh *results.Shard) results.Sink {
	if s.co.OnRequest == nil {
		return sh
	}
	for _, t := range s.taps {
		if t.Shard == sh {
			return t
		}
	}
	t := &tap{Shard: sh, on: s.co.OnRequest}
	s.taps = append(s.taps, t)
	return t
}

// tap is a recorder's shard that also tells on of each request's end.
type tap struct {
	*results.Shard
	on func(results.Request)
}

func (t *tap) Request(q results.Request) {
	t.Shard.Request(q)
	t.on(q)
}

// slot returns a free client slot.
func (s *Sim) slot() int32 {
	if n := len(s.freeCS); n > 0 {
		ci := s.freeCS[n-1]
		s.freeCS = s.freeCS[:n-1]
		return ci
	}
	ci := s.nclients
	s.nclients++
	if ci == chunkSize {
		s.q.ahead = true // beyond the first chunk the clients no longer fit in the cache
	}
	if int(ci>>chunkBits) == len(s.chunks) {
		c := new([chunkSize]client)
		hugePages(c[:])
		s.chunks = append(s.chunks, c)
	}
	return ci
}

// schedule carries out a client's next action.
func (s *Sim) schedule(ci int32, a clients.Action, now time.Duration) {
	c := s.cl(ci)
	if s.hedging && c.flags&(callFlag|hedgeFlag) == 0 {
		s.scheduleHedged(ci, a, now)
		return
	}
	lv := &s.lv[c.tier]
	if a.Op == clients.Send {
		a.At += s.sendLag(ci, a.At)
		// A pick on a shared channel is made in its turn (evSend), as
		// other clients' picks before it move the channel.
		if (s.perChan <= 1 || c.has(callFlag)) && s.listening(ci, lv.m, a.At) {
			if d := lv.m.Hop(); d > 0 {
				// Nothing happens at the send itself but the request's
				// departure, so it is scheduled straight to its arrival:
				// one event less per attempt. The attempt counts as in
				// flight from a.At on (see evCrash).
				s.depart(ci, a.At)
				s.track(ci)
				s.q.push(a.At+d, pack(evArrive, c.gen, uint32(ci)))
				if lv.timeout > 0 {
					s.q.push(s.owner(ci).Deadline(a.At), pack(evTimeout, c.gen, uint32(ci)))
				}
				return
			}
		}
		s.q.push(a.At, pack(evSend, c.gen, uint32(ci)))
		return
	}
	if c.has(callFlag) {
		s.callDone(ci, now)
		return
	}
	s.stopped(ci, now)
}

// stopped ends workload client ci, whose step function stopped at now.
func (s *Sim) stopped(ci int32, now time.Duration) {
	s.active--
	s.lastStop = max(s.lastStop, now)
	s.cl(ci).gen++
	if s.co.Workload.Kind == clients.Open {
		s.freeCS = append(s.freeCS, ci)
	}
}

// depart starts client ci's attempt at at.
func (s *Sim) depart(ci int32, at time.Duration) {
	c := s.cl(ci)
	c.sent, c.op = at, model.OpPlain
	if s.occ {
		c.op = model.OpRead
	}
	if s.pool && !c.has(callFlag) {
		c.set(reusedFlag, s.pooled)
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
	if t := s.lv[c.tier].timeout; t > 0 && c.gen == gen && c.slot >= 0 {
		s.q.push(s.owner(ci).Deadline(now), pack(evTimeout, gen, uint32(ci)))
	}
}

// request sends the client's request over one hop.
func (s *Sim) request(ci int32, now time.Duration) {
	c := s.cl(ci)
	m := s.lv[c.tier].m
	if !s.listening(ci, m, now) {
		s.end(ci, now, results.Refused)
		return
	}
	s.track(ci)
	if d := m.Hop(); d > 0 {
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
	m := s.lv[s.cl(ci).tier].m
	if m.Quiet() {
		s.admit(ci, now) // what Ingress's answer would say: admitted, at once
		return
	}
	a := m.Ingress(now)
	s.answer(ci, now, &a)
}

// answer applies the model's answer a to client ci's request at now: the
// one place the simulator turns an Answer into what the client sees, for
// every kind of answer and every tier, as the real server's
// exchange.answer writes it. Admit goes on to the capacity model after its
// delay; a reset or refuse answer resets the attempt at once; a hang holds
// it until its client's timeout or a crash; a response travels back over
// one hop, as its status's outcome with its Retry-After, or as a reset if
// its body is cut short. A served OCC read goes on, in the same attempt,
// to its write.
//
// a is passed by pointer: a 48-byte answer passed by value goes through
// the stack in 8-byte stores that the callee reads back in 16-byte loads,
// a store-forwarding stall on every event.
func (s *Sim) answer(ci int32, now time.Duration, a *chaos.Answer) {
	c := s.cl(ci)
	switch a.Verdict {
	case chaos.Admit:
		if a.Delay > 0 {
			s.q.push(now+a.Delay, pack(evAdmit, c.gen, uint32(ci)))
			return
		}
		s.admit(ci, now)
	case chaos.ResetConn, chaos.RefuseConn:
		s.reset(ci, now)
	case chaos.Hang:
		// held until the client's timeout or a crash
	case chaos.Respond:
		out := results.FromStatus(a.Status)
		if s.co.GRPC {
			// The client sees the status's gRPC code, and records it as
			// the real swarm does: a 400 is INTERNAL, an http_5xx.
			out, _ = clients.GRPCOutcome(clients.GRPCCode(a.Status))
		}
		switch {
		case a.Truncate:
			out = results.Reset // the client reads a short body
		case c.op == model.OpRead && out == results.OK:
			// The read's answer travels back and the client sends the
			// write at once, in the same attempt: two hops in one event.
			c.op = model.OpWrite
			m := s.lv[c.tier].m
			if d := m.Hop() + m.Hop(); d > 0 {
				s.q.push(now+d, pack(evArrive, c.gen, uint32(ci)))
				return
			}
			s.arrive(ci, now)
			return
		}
		ra := a.RetryAfter
		if !a.Truncate {
			c.status = uint16(a.Status)
		}
		switch {
		case a.Pushback == 0 || !s.co.GRPC:
		case a.Pushback == chaos.PushbackStop:
			ra = clients.GRPCPushbackStop
		default:
			ra = a.Pushback // a gRPC answer's pushback: its milliseconds
		}
		c.set(raFlag, ra != 0)
		if ra != 0 {
			s.cold(ci).ra = ra
		}
		s.reply(ci, now, out)
	}
}

// admit hands a request to the capacity model.
func (s *Sim) admit(ci int32, now time.Duration) {
	c := s.cl(ci)
	m := s.lv[c.tier].m
	if s.instant {
		// Served at once, as below, without a job: the same effects and
		// answer (Model.ServeNow).
		var version uint64 // a write carries the version its read saw
		if c.op == model.OpWrite {
			version = s.cold(ci).version
		}
		var a chaos.Answer
		read := m.ServeNow(&a, now, c.op, version)
		if c.op == model.OpRead {
			s.cold(ci).version = read
		}
		s.answer(ci, now, &a)
		return
	}
	route := 0
	if mix := s.co.Strategy.Requests; mix != nil && c.tier == 0 && !c.has(callFlag) {
		i, _ := s.owner(ci).Current()
		route = mix.Requests[i].Route
	}
	j, adm := m.ArriveOn(now, route)
	j.Op, j.Version = c.op, 0
	if s.occ {
		j.Version = s.cold(ci).version
	}
	switch adm {
	case model.Rejected:
		m.Release(j)
		a := m.Overloaded()
		s.answer(ci, now, &a)
	case model.Started:
		if j.Service == 0 {
			if int(c.tier) < len(s.lv)-1 {
				s.relay(s.link(j, ci), now) // a middle tier calls the next at once
				return
			}
			// Served at once, as the real server does under its lock.
			for _, nj := range m.Finish(now, j) {
				s.startJob(now, nj)
			}
			s.served(ci, now, j)
			m.Release(j)
			return
		}
		w := s.link(j, ci)
		s.q.push(now+j.Service, pack(evFinish, 0, uint32(w.idx)))
		w.refs++
	case model.Queued:
		w := s.link(j, ci)
		s.q.push(j.Deadline, pack(evExpire, 0, uint32(w.idx)))
		w.refs++
	}
}

// link registers j as client ci's attempt's job.
func (s *Sim) link(j *model.Job, ci int32) *job {
	var w *job
	if n := len(s.freeJobs); n > 0 {
		w = s.jobs[s.freeJobs[n-1]]
		s.freeJobs = s.freeJobs[:n-1]
	} else {
		w = &job{idx: int32(len(s.jobs))}
		s.jobs = append(s.jobs, w)
	}
	w.j, w.client, w.refs, w.call, w.tier = j, ci, 1, -1, s.cl(ci).tier
	j.Owner = w
	s.cl(ci).job = w.idx
	return w
}

// startJob schedules the end of a queued job that the model just started.
func (s *Sim) startJob(now time.Duration, j *model.Job) {
	w := j.Owner.(*job)
	s.q.push(now+j.Service, pack(evFinish, 0, uint32(w.idx)))
	w.refs++
}

func (s *Sim) unref(w *job) {
	w.refs--
	if w.refs == 0 {
		s.lv[w.tier].m.Release(w.j)
		w.j = nil
		s.freeJobs = append(s.freeJobs, w.idx)
	}
}

// served answers the request whose job j the model just served.
func (s *Sim) served(ci int32, now time.Duration, j *model.Job) {
	c := s.cl(ci)
	if c.op == model.OpRead {
		s.cold(ci).version = j.Version
	}
	a := s.lv[c.tier].m.Served(now, j)
	s.answer(ci, now, &a)
}

// reply sends an answer back over one hop.
func (s *Sim) reply(ci int32, now time.Duration, out results.Outcome) {
	c := s.cl(ci)
	lv := &s.lv[c.tier]
	d := lv.m.Hop()
	if d <= 0 {
		s.end(ci, now, out)
		return
	}
	if at := now + d; !c.has(callFlag) && at < s.co.Duration && (lv.timeout == 0 || at < s.owner(ci).Deadline(c.sent)) && !crashIn(lv.crashes, now, at) {
		// Nothing can reach the answer on its way back (no timeout, no
		// crash, no end of run before it lands), so the attempt ends
		// now, as of its landing time: one event less per attempt. Not
		// for a tier's call: its caller may go away meanwhile, and what
		// the call's end does at the tier above must not come early.
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
	s.untrack(ci)
	if c.job >= 0 {
		w := s.jobs[c.job]
		c.job = -1
		if w.call >= 0 {
			s.cancelCall(w, now) // its caller went away: so does its call below
		}
		s.unref(w)
	}
	c.gen++
	c.set(okFlag, out == results.OK)
	c.set(reusedFlag, out.Answered()) // any other end leaves the connection closed
	if s.pool && !c.has(callFlag) && out.Answered() {
		s.pooled = true
	}
	if out == results.Reset || out == results.Timeout {
		c.status = 0 // the answer never arrived
	}
	c.out = out
	if d := s.late(ci, now); d > 0 {
		s.q.push(now+d, pack(evLearn, c.gen, uint32(ci)))
		return
	}
	s.learn(ci, now)
}

// learn hands client ci the reply of the attempt that ended (end) and
// carries out its next action, at now: when the attempt ended, or later
// by the harness's lateness (Cohort.Lateness).
func (s *Sim) learn(ci int32, now time.Duration) {
	c := s.cl(ci)
	resend := c.has(resendFlag)
	c.set(resendFlag, false)
	var ra time.Duration
	if c.has(raFlag) {
		ra = s.cold(ci).ra
		c.set(raFlag, false)
	}
	status := int(c.status)
	c.status = 0
	r := clients.Reply{Sent: c.sent, Latency: now - c.sent, Outcome: c.out, RetryAfter: ra, Status: status, Resend: resend}
	if c.has(hedgeFlag) {
		s.attemptDone(ci, r, now)
		return
	}
	a := c.cl.Result(r)
	s.schedule(ci, a, now)
}

// late returns how much later than now client ci learns that its attempt,
// which a crash ended at now, failed: a draw from Cohort.Lateness for an
// attempt of one of the cohort's own clients that leaves time to act
// before the run's end, else 0.
func (s *Sim) late(ci int32, now time.Duration) time.Duration {
	c := s.cl(ci)
	if !s.crashing || c.has(callFlag) {
		return 0
	}
	d := draw(s.co.Lateness, s.co.Seed, s.owner(ci).ID, c.gen)
	if now+d >= s.co.Duration {
		return 0
	}
	return d
}

// sendLag returns how much later than at client ci sends the attempt it
// scheduled for at: a draw from Cohort.SendLag for one of the cohort's
// own clients, else 0.
func (s *Sim) sendLag(ci int32, at time.Duration) time.Duration {
	c := s.cl(ci)
	if len(s.co.SendLag) == 0 || c.has(callFlag) {
		return 0
	}
	// A salt apart from late's, so that a client's two draws for one
	// attempt are not the same quantile.
	d := draw(s.co.SendLag, s.co.Seed^0x9e3779b97f4a7c15, s.owner(ci).ID, c.gen)
	if at+d >= s.co.Duration {
		return 0
	}
	return d
}

// draw returns one of t's values, each equally likely, by a hash of the
// seed, the client and its attempt generation, so no random stream moves;
// 0 when t is empty.
func draw(t []time.Duration, seed uint64, id int, gen uint32) time.Duration {
	n := len(t)
	if n == 0 {
		return 0
	}
	h := seed ^ uint64(id)<<32 ^ uint64(gen)
	h = (h ^ h>>30) * 0xbf58476d1ce4e5b9 // splitmix64's finalizer
	h = (h ^ h>>27) * 0x94d049bb133111eb
	h ^= h >> 31
	return t[h%uint64(n)]
}

// reset ends client ci's attempt at now with a reset that came before any
// byte of its answer (a crash, a reset or refuse answer). A client of a
// net/http cohort (Strategy.Transport) whose connection was reused sends
// the attempt again, at once, on a new connection, within the attempt's
// deadline; the first try is recorded (Client.Resent), the strategy never
// hears of it. Otherwise the attempt ends as a reset.
func (s *Sim) reset(ci int32, now time.Duration) {
	c := s.cl(ci)
	if c.has(callFlag) || !s.co.Strategy.Transport.Resends(results.Reset, c.has(reusedFlag), s.owner(ci).Replayable()) {
		s.end(ci, now, results.Reset)
		return
	}
	s.untrack(ci)
	if c.job >= 0 {
		w := s.jobs[c.job]
		c.job = -1
		s.unref(w)
	}
	c.gen++
	s.owner(ci).Resent(clients.Reply{Sent: c.sent, Latency: now - c.sent, Outcome: results.Reset})
	deadline := c.sent + s.lv[c.tier].timeout
	c.set(raFlag, false)
	gen := c.gen
	s.depart(ci, now)
	c.set(reusedFlag, false) // on a new connection: never re-sent again
	c.set(resendFlag, true)
	s.request(ci, now)
	if s.lv[c.tier].timeout > 0 && c.gen == gen && c.slot >= 0 {
		s.q.push(max(deadline, now), pack(evTimeout, gen, uint32(ci)))
	}
}

const clientSize = unsafe.Sizeof(client{})

const (
	chunkBits = 14
	chunkSize = 1 << chunkBits
)

// cl returns client ci.
func (s *Sim) cl(ci int32) *client { return &s.chunks[ci>>chunkBits][ci&(chunkSize-1)] }

// cold returns client ci's cold part, making its chunk if it is the first
// one needed there.
func (s *Sim) cold(ci int32) *cold {
	k := int(ci >> chunkBits)
	if k >= len(s.colds) {
		s.colds = append(s.colds, make([]*[chunkSize]cold, k+1-len(s.colds))...)
	}
	if s.colds[k] == nil {
		s.colds[k] = new([chunkSize]cold)
	}
	return &s.colds[k][ci&(chunkSize-1)]
}

// owner returns the step function whose attempt client slot ci carries:
// its own, or for a hedging client's attempt its client's (hedge.go).
func (s *Sim) owner(ci int32) *clients.Client {
	c := s.cl(ci)
	if c.flags&hedgeFlag != 0 {
		return &s.cl(s.cold(ci).parent).cl
	}
	return &c.cl
}

// untrack takes client ci out of the in-flight list.
func (s *Sim) untrack(ci int32) {
	c := s.cl(ci)
	if c.slot < 0 {
		return
	}
	last := s.inflight[len(s.inflight)-1]
	s.inflight[c.slot] = last
	s.cl(last).slot = c.slot
	s.inflight = s.inflight[:len(s.inflight)-1]
	c.slot = -1
}

// crashIn reports whether a tier that crashes at crashes crashes in
// (from, to]: a crash at from has already happened (it is the first event
// of its instant).
func crashIn(crashes []time.Duration, from, to time.Duration) bool {
	for _, t := range crashes {
		if from < t && t <= to {
			return true
		}
	}
	return false
}
