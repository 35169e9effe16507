package recording

import (
	"errors"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
)

// Options configure a recording.
type Options struct {
	// By is "proxy" or "target"; Address where it listens; Upstream the
	// proxy's upstream (no credentials). They say where the figures come
	// from (summary.json's recorded).
	By, Address, Upstream string
	// Scenario, Description and Seed are the scenario's, for summary.json;
	// ScenarioYAML is written as the folder's scenario.yaml.
	Scenario, Description string
	Seed                  uint64
	ScenarioYAML          []byte
	Version               string
	// CohortBy tells clients apart; MaxCohorts is how many keys get a
	// cohort of their own (DefaultMaxCohorts when 0).
	CohortBy   CohortBy
	MaxCohorts int
	// Attempts reads attempt numbers; the zero value reads none.
	Attempts AttemptHeader
	// Window is the longest a results folder covers (DefaultWindow when
	// 0): a longer recording is written one window at a time.
	Window time.Duration
	// Faults returns the faults that acted between two instants, relative
	// to the first (target.Server.FaultsBetween); nil for none.
	Faults func(from, to time.Time) []chaos.Timed
	// Run is the run's length on the plan's clock (the scenario's
	// duration), 0 for none. A client that goes away from a request it
	// had in flight when the run ended, within CutGrace of that end, was
	// cut by the end (a swarm closes its connections when its duration
	// is over), not timed out: the attempt is no outcome of the service
	// and is left out of the results, as the swarm leaves out the
	// attempts its end cuts short (swarm.Swarm.Run), and counted in
	// Recorded.CutAtEnd.
	Run time.Duration
	// Done is given each segment that ended (its window full, or the plan
	// restarted), on a goroutine of its own, once its late answers are
	// in: write it. Nil drops them.
	Done func(Segment)
}

// Defaults and bounds.
const (
	DefaultMaxCohorts = 8
	// MaxCohortsLimit is the most cohorts of their own a recording
	// takes (--max-cohorts): each costs memory for every bucket of its
	// window (Footprint), and a report of more is no comparison anyone
	// reads.
	MaxCohortsLimit = 1000
	DefaultWindow   = 15 * time.Minute
	// MaxWindow is the longest window: a results folder holds at most a
	// day (herdbench report refuses more).
	MaxWindow = 24 * time.Hour
	// grace is how long an ended segment waits for the answers to its
	// last attempts before it is written: an attempt counts in the bucket
	// of its arrival but is recorded when its answer ends.
	grace = 5 * time.Second
	// CutGrace is how long after the run's end (Options.Run) a client
	// may take to close what its end cut short: a swarm closes every
	// connection at its end, and the proxy learns of it a network's
	// delay later. A client that gives up on a request later than that
	// timed out.
	CutGrace = time.Second
)

// Footprint is the memory a recording with at most cohorts cohorts, each
// window long, may hold at its peak, in bytes: every cohort's recorder
// full, for the window that is being recorded and the one being written
// (the results of a window are copies of its recorders; at the end the
// live ones are let go as they are copied), with the process's own
// 60 MiB. cohorts counts "other" when the keys may overflow into it
// (MaxCohorts + 1). Most recordings hold far less: a recorder's pages are
// touched only where traffic came.
func Footprint(cohorts int, window time.Duration) uint64 {
	if window <= 0 {
		window = DefaultWindow
	}
	per := uint64(results.RecorderBytes(min(window, MaxWindow), 2*runtime.GOMAXPROCS(0)))
	return 60<<20 + 2*uint64(max(cohorts, 1))*per
}

// ErrNothingRecorded is returned by Snapshot when no attempt has been
// recorded since the plan's clock started.
var ErrNothingRecorded = errors.New("nothing recorded yet")

// Recording records the attempts a standalone target or chaos proxy
// receives into the swarm's recorders, one per cohort, on the plan's clock.
// It implements target.Observer.
type Recording struct {
	o       Options
	cohorts cohorts
	shards  int

	mu   sync.Mutex
	cur  atomic.Pointer[segment]
	prev atomic.Pointer[segment] // ended, waiting out its grace
	next int                     // the next segment's number
	wg   sync.WaitGroup

	run       atomic.Int64 // the run's length, Options.Run or SetRun's
	unstarted atomic.Int64 // attempts that arrived while no plan had started
	late      atomic.Int64 // answers that came after their segment was written
	retired   atomic.Bool  // a segment has ended: an answer before the current one is late
}

var _ target.Observer = (*Recording)(nil)

// segment is one results folder's worth of a recording: from its t0, at
// most Window long.
type segment struct {
	t0     time.Time
	number int
	offset time.Duration // its t0 on the plan's clock
	window time.Duration
	cells  []atomic.Pointer[cell] // by cohort index, made on first use
	ended  time.Time              // when it ended; zero while current
}

// cell is one cohort in one segment.
type cell struct {
	rec *results.Recorder
	// apart records, when an attempt header is read, the attempts without
	// a readable one (a load balancer's health checks): counted apart, so
	// that the cohort's figures are its numbered attempts' (rec), unless it
	// has none. Made on first use.
	apart                  atomic.Pointer[results.Recorder]
	unnumbered, withoutMax atomic.Int64
	// unidentified counts the numbered attempts without a request id
	// (requestIDHeaders): with any, transport_resends is not measured.
	unidentified atomic.Int64
	// cut counts the attempts the run's end cut short (cutAtEnd): in no
	// figure.
	cut  atomic.Int64
	seen seenAttempts
}

var shardSeed = maphash.MakeSeed()

// New returns a recording; it records from the first PlanStarted on.
func New(o Options) *Recording {
	if o.MaxCohorts <= 0 {
		o.MaxCohorts = DefaultMaxCohorts
	}
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	o.Window = min(o.Window, MaxWindow)
	if o.CohortBy.kind == byNothing {
		o.MaxCohorts = 1
	}
	r := &Recording{o: o, cohorts: cohorts{max: o.MaxCohorts}, shards: 2 * runtime.GOMAXPROCS(0), next: 1}
	r.run.Store(int64(o.Run))
	return r
}

// SetRun sets the run's length from the next PlanStarted on: the run
// that starts the plan names its own (POST /control/start's duration, a
// swarm's, whose --duration may differ from the scenario's); 0 is
// Options.Run again, for a start that names none.
func (r *Recording) SetRun(d time.Duration) {
	if d <= 0 {
		d = r.o.Run
	}
	r.run.Store(int64(d))
}

func (r *Recording) newSegment(t0 time.Time, offset time.Duration) *segment {
	s := &segment{t0: t0, number: r.next, offset: offset, window: r.o.Window, cells: make([]atomic.Pointer[cell], r.o.MaxCohorts+1)}
	r.next++
	return s
}

// PlanStarted begins a new recording at the plan's new t = 0; the one
// before it, if any, ends now and is given to Done.
func (r *Recording) PlanStarted(t0 time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if old := r.cur.Load(); old != nil {
		r.retire(old, time.Now())
	}
	r.next = 1
	r.cur.Store(r.newSegment(t0, 0))
}

// retire ends segment s at end and has it written after its grace. The
// caller holds r.mu.
func (r *Recording) retire(s *segment, end time.Time) {
	if prev := r.prev.Load(); prev != nil {
		r.prev.Store(nil) // an older one still waiting: its stragglers go nowhere now
	}
	s.ended = end
	r.prev.Store(s)
	r.retired.Store(true)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		time.Sleep(grace)
		r.prev.CompareAndSwap(s, nil)
		if r.o.Done != nil && s.recorded() {
			r.o.Done(r.segmentOf(s, end, true))
		}
	}()
}

// Late returns the answers that came after the segment they arrived in
// was written (more than the grace after it ended): they are in no
// results.
func (r *Recording) Late() int64 { return r.late.Load() }

// Wait waits until every ended segment has been given to Done.
func (r *Recording) Wait() { r.wg.Wait() }

// Observe records one request a server answered.
func (r *Recording) Observe(ob target.Observation) {
	s := r.cur.Load()
	if s == nil {
		r.unstarted.Add(1)
		return
	}
	sent := ob.Arrived.Sub(s.t0)
	if sent >= s.window {
		s = r.roll(ob.Arrived)
		sent = ob.Arrived.Sub(s.t0)
	}
	if sent < 0 {
		p := r.prev.Load()
		if p == nil || ob.Arrived.Before(p.t0) {
			if r.retired.Load() {
				r.late.Add(1) // its segment is written: in no results
			} else {
				r.unstarted.Add(1)
			}
			return
		}
		s, sent = p, ob.Arrived.Sub(p.t0)
	}
	i := r.cohorts.index(r.o.CohortBy.key(ob.Request))
	c := s.cell(i, r.shards)
	rec := c.rec
	n, most, ok := r.o.Attempts.Number(ob.Request.Header)
	switch {
	case !ok && r.o.Attempts.Name != "":
		c.unnumbered.Add(1)
		n, rec = 0, c.apartRec(s.window, r.shards)
	case !ok:
		c.unnumbered.Add(1)
		n = 0
	}
	if most == 0 && rec == c.rec {
		c.withoutMax.Add(1)
	}
	// One connection's attempts go to one shard: records of different
	// connections rarely contend, and a quiet cohort touches few shards
	// (each shard moves its latencies into the second's slot once a
	// second it is used).
	sh := rec.Shard(int(maphash.String(shardSeed, ob.Request.RemoteAddr) % uint64(r.shards)))
	out := outcomeOf(ob)
	if out == results.Timeout && r.cutAtEnd(s, ob) {
		if n == 1 {
			sh.Started(sent) // its request started, and is unfinished: the swarm counts it so
		}
		c.cut.Add(1)
		return
	}
	latency := ob.Ended.Sub(ob.Arrived)
	resend := false
	if ok {
		if id := requestID(ob.Request.Header); id != "" {
			resend = c.seen.repeat(id, n)
		} else {
			c.unidentified.Add(1)
		}
	}
	if n == 1 && !resend {
		sh.Started(sent)
	}
	sh.Attempt(results.Attempt{Sent: sent, Latency: latency, Number: n, Outcome: out, Upstream: ob.Upstream, Resend: resend})
	switch {
	case out == results.OK:
		sh.Ended(sent+latency, true)
	case most > 0 && n >= most && !resend:
		sh.Ended(sent+latency, false) // its client's last attempt failed
	}
}

// cutAtEnd reports whether ob, a request whose client went away before
// its answer, was cut by the run's end rather than given up on: it was in
// flight when the run ended (Options.Run on the plan's clock, whose t = 0
// is s's less its offset) and its client left within CutGrace of that.
func (r *Recording) cutAtEnd(s *segment, ob target.Observation) bool {
	run := time.Duration(r.run.Load())
	if run <= 0 {
		return false
	}
	end := s.t0.Add(run - s.offset)
	return ob.Arrived.Before(end) && !ob.Ended.Before(end) && ob.Ended.Before(end.Add(CutGrace))
}

// roll ends the current segment, whose window is full, and starts the
// next at its end; it returns the segment that now holds instant at.
func (r *Recording) roll(at time.Time) *segment {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.cur.Load()
	for !at.Before(s.t0.Add(s.window)) {
		end := s.t0.Add(s.window)
		r.retire(s, end)
		s = r.newSegment(end, s.offset+s.window)
		r.cur.Store(s)
	}
	return s
}

// cell returns cohort i's cell in s, making it on first use.
func (s *segment) cell(i, shards int) *cell {
	if c := s.cells[i].Load(); c != nil {
		return c
	}
	c := &cell{rec: results.NewRecorder(s.window, shards)}
	if s.cells[i].CompareAndSwap(nil, c) {
		return c
	}
	return s.cells[i].Load()
}

// apartRec returns the cell's recorder of unnumbered attempts, making it
// on first use.
func (c *cell) apartRec(window time.Duration, shards int) *results.Recorder {
	if a := c.apart.Load(); a != nil {
		return a
	}
	a := results.NewRecorder(window, shards)
	if c.apart.CompareAndSwap(nil, a) {
		return a
	}
	return c.apart.Load()
}

// shown is the recorder of the cohort's figures: its numbered attempts',
// or, when it has none, its unnumbered ones' (its figures that need a
// number then null). apart says the unnumbered attempts, if any, are
// counted apart from them.
func (c *cell) shown() (rec *results.Recorder, apart bool) {
	a := c.apart.Load()
	if a == nil || c.rec.Live().Attempts > 0 {
		return c.rec, a != nil
	}
	return a, false
}

func (s *segment) recorded() bool {
	for i := range s.cells {
		if c := s.cells[i].Load(); c != nil {
			if rec, _ := c.shown(); rec.Live().Attempts > 0 {
				return true
			}
		}
	}
	return false
}

// outcomeOf classifies an answer as the client saw it.
func outcomeOf(ob target.Observation) results.Outcome {
	if ob.Answer == target.AnswerAborted {
		if ob.Crashed {
			return results.Reset // a crash reset its connection
		}
		return results.Timeout // its client gave up waiting (a blackhole, a slow answer)
	}
	return AnswerOutcome(ob.Answer)
}

// AnswerOutcome classifies a server's answer alone, as a client sees it;
// an answer its client never received (aborted) is an error here, for
// outcomeOf tells a crash from a client that gave up only from the
// observation.
func AnswerOutcome(a target.Answer) results.Outcome {
	switch a {
	case target.AnswerOK:
		return results.OK
	case target.Answer4xx:
		return results.HTTP4xx
	case target.Answer429:
		return results.HTTP429
	case target.Answer5xx:
		return results.HTTP5xx
	case target.AnswerReset:
		return results.Reset
	}
	return results.Error
}
