package sim

import (
	"github.com/herdbench/herdbench/target/model"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// Rewinding a run: a Snapshot is a cohort run paused at an instant, a deep
// copy of the simulator's whole state (every client's step function,
// attempt and random stream, the event queue, each tier's model with its
// queue and jobs, the state its policies share, the channels, the
// recorders), from which Continue runs the rest of the run as many times
// as asked, each on a copy of its own. Nothing is shared with the run it
// was taken from, nor between continuations, so they may run on different
// goroutines at once. A continuation with nothing varied does exactly
// what the run did, bit for bit (TestSnapshotContinuesTheRun); varied, it
// answers "what if, from here on": with fresh randomness (Variation.Seed)
// and without the faults (Variation.Calm), the same state either recovers
// or not, which is how the point of no return is found (package cliff).

// Snapshot is a cohort run paused at instant At: every event before At
// done, none at or after it.
type Snapshot struct {
	At    time.Duration
	s     *Sim // paused: never run, only copied
	rec   *results.Recorder
	below []*results.Recorder
}

// Variation is how a continuation differs from the run it continues.
type Variation struct {
	// Seed, if not 0, draws everything after the snapshot afresh: each
	// random stream (every client's, each tier's model's, the arrivals',
	// the channels') goes on from the stream of the same id under Seed,
	// and clients yet to come draw under Seed too.
	Seed uint64
	// Calm removes every fault from the snapshot's instant on: a fault
	// window still open ends there and later ones never begin
	// (chaos.Plan.Until), at every tier.
	Calm bool
	// Stop, if set, stops the continuation early as Cohort.Stop does (an
	// interrupt), in place of the cohort's own.
	Stop *atomic.Bool
}

// RunPaused is Run that also hands take a Snapshot at each instant of at
// (ascending; instants at or after the run's end, or after an interrupt
// stopped it, are skipped). The run itself goes on as if never paused:
// its records and Result are Run's.
func (s *Sim) RunPaused(co *Cohort, rec *results.Recorder, at []time.Duration, take func(*Snapshot)) Result {
	stopped := s.begin(co, rec)
	var cut time.Duration
	for _, t := range at {
		if stopped || t >= co.Duration {
			break
		}
		if stopped, cut = s.advance(t); stopped {
			break
		}
		take(s.snapshot(t, rec))
	}
	if !stopped {
		stopped, cut = s.advance(co.Duration)
	}
	return s.finish(stopped, cut, rec)
}

// snapshot copies the paused run at instant at, with its recorders (rec,
// and the cohort's Below).
func (s *Sim) snapshot(at time.Duration, rec *results.Recorder) *Snapshot {
	sn := &Snapshot{At: at, rec: rec.Clone()}
	for _, b := range s.co.Below {
		sn.below = append(sn.below, b.Clone())
	}
	sn.s = s.copyState(sn.rec, sn.below)
	return sn
}

// Continue runs a copy of the snapshot to the end of its run, varied by v,
// and returns what it did and the recorders it recorded into: copies of
// the run's as they were at the snapshot (with tiers, below are the
// copies of Cohort.Below). The snapshot is left as it was.
func (sn *Snapshot) Continue(v Variation) (r Result, rec *results.Recorder, below []*results.Recorder) {
	rec = sn.rec.Clone()
	for _, b := range sn.below {
		below = append(below, b.Clone())
	}
	s := sn.s.copyState(rec, below)
	if v != (Variation{}) {
		co := *s.co
		if below != nil {
			co.Below = below
		}
		s.co = &co
		if v.Stop != nil {
			co.Stop = v.Stop
		}
		if v.Calm {
			s.calm(sn.At)
		}
		if v.Seed != 0 {
			s.reseed(v.Seed)
		}
	} else if below != nil {
		co := *s.co
		co.Below = below
		s.co = &co
	}
	stopped, cut := s.advance(s.co.Duration)
	return s.finish(stopped, cut, rec), rec, below
}

// copyState returns a new simulator in s's state, recording into rec and
// below (copies of s's recorders).
func (s *Sim) copyState(rec *results.Recorder, below []*results.Recorder) *Sim {
	c := &Sim{
		q:         s.q.clone(),
		nclients:  s.nclients,
		freeCS:    slices.Clone(s.freeCS),
		freeJobs:  slices.Clone(s.freeJobs),
		inflight:  slices.Clone(s.inflight),
		co:        s.co,
		occ:       s.occ,
		instant:   s.instant,
		active:    s.active,
		lastStop:  s.lastStop,
		callWork:  s.callWork,
		arrivals:  s.arrivals,
		pool:      s.pool,
		pooled:    s.pooled,
		arrivalAt: s.arrivalAt,
		nextID:    s.nextID,
		events:    s.events,
		chans:     slices.Clone(s.chans),
		perChan:   s.perChan,
		drops:     slices.Clone(s.drops),
	}
	if s.arrivalPCG != nil {
		p := *s.arrivalPCG
		c.arrivalPCG = &p
		c.arrivalRNG = rand.New(c.arrivalPCG)
	}
	c.copyJobs(s, rec, below)
	c.copyClients(s)
	return c
}

// copyJobs copies s's levels (each tier's model, its callers' shared
// policies, its random stream) and job links, every job the models and
// the links share copied once.
func (c *Sim) copyJobs(s *Sim, rec *results.Recorder, below []*results.Recorder) {
	jobs := map[*model.Job]*model.Job{}
	copyJob := func(j *model.Job) *model.Job {
		if n, ok := jobs[j]; ok {
			return n
		}
		n := new(model.Job)
		*n = *j
		jobs[j] = n
		return n
	}
	c.lv = make([]level, len(s.lv))
	for t, lv := range s.lv {
		lrec := rec
		if t > 0 {
			lrec = below[t-1]
		}
		p := *lv.pcg
		c.lv[t] = level{
			m: lv.m.Clone(rand.New(&p), lrec, copyJob), plan: lv.plan, k: lv.k.Clone(), timeout: lv.timeout,
			rec: lrec, crashes: slices.Clone(lv.crashes), calls: lv.calls, pcg: &p, stream: lv.stream,
		}
	}
	c.jobs = make([]*job, len(s.jobs))
	for i, w := range s.jobs {
		n := *w
		if w.j != nil {
			n.j = copyJob(w.j)
		}
		c.jobs[i] = &n
	}
	// Each copied job's Owner is the copy of its link (a link is copied
	// at its index): a queued job's, which the model hands back when it
	// starts, must be the new one.
	for _, n := range jobs {
		if w, ok := n.Owner.(*job); ok {
			n.Owner = c.jobs[w.idx]
		}
	}
}

// copyClients copies s's clients (their slots and cold parts) into c,
// each client's step function on its own stream, policies and recorder.
func (c *Sim) copyClients(s *Sim) {
	c.chunks = make([]*[chunkSize]client, len(s.chunks))
	for k := range s.chunks {
		n := int(min(int64(chunkSize), max(0, int64(s.nclients)-int64(k)<<chunkBits)))
		if n == 0 {
			continue
		}
		dst, src := new([chunkSize]client), s.chunks[k]
		hugePages(dst[:])
		c.chunks[k] = dst
		for i := range n {
			d, o := &dst[i], &src[i]
			*d = *o
			d.rng = *rand.New(&d.pcg)
			lv, lc := &s.lv[o.tier], &c.lv[o.tier]
			var sink results.Sink = lc.rec.Shard(o.cl.ID)
			if o.tier == 0 && !o.has(callFlag) {
				sink = c.sink(lc.rec.Shard(o.cl.ID))
			}
			lv.k.CloneClient(lc.k, &d.cl, &o.cl, &d.rng, sink)
		}
	}
	c.colds = make([]*[chunkSize]cold, len(s.colds))
	for k, ch := range s.colds {
		if ch != nil {
			n := *ch
			c.colds[k] = &n
		}
	}
}

// calm removes every fault from instant at on, at every tier: the models
// answer under the plans cut there, the crashes still to come are taken
// out of the queue, and a gRPC cohort's channels are no longer dropped
// after at.
func (s *Sim) calm(at time.Duration) {
	s.q.drop(func(e event) bool { return e.kind() == evCrash && e.at >= at })
	co := s.co
	if co.Tiers != nil {
		co.Tiers = slices.Clone(co.Tiers)
	}
	for t := range s.lv {
		lv := &s.lv[t]
		lv.plan = lv.plan.Until(at)
		lv.m.SetPlan(lv.plan)
		lv.crashes = crashInstants(lv.plan, nil)
		if co.Tiers != nil {
			co.Tiers[t].Chaos = lv.plan
		}
	}
	if co.Tiers == nil {
		co.Chaos = s.lv[0].plan
	}
	s.drops = slices.DeleteFunc(s.drops, func(d time.Duration) bool { return d >= at })
}

// reseed makes every random stream go on from the stream of the same id
// under seed, and the clients to come draw under it (Variation.Seed).
func (s *Sim) reseed(seed uint64) {
	s.co.Seed = seed
	for t := range s.lv {
		lv := &s.lv[t]
		lv.pcg.Seed(seed, lv.stream)
	}
	if s.arrivalPCG != nil {
		s.arrivalPCG.Seed(seed, seeds.Arrivals)
	}
	for i := range s.chans {
		s.chans[i].pcg.Seed(seed, seeds.Channel(s.co.Part.First()+i*s.co.Part.Step()))
	}
	for ci := int32(0); ci < s.nclients; ci++ {
		c := s.cl(ci)
		if c.has(callFlag) {
			c.pcg.Seed(seed, seeds.Call(int(c.tier)-1, c.cl.ID))
			continue
		}
		c.pcg.Seed(seed, seeds.Client(c.cl.ID))
		c.cl.Traffic(seed)
	}
}
