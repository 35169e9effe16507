package swarm

import (
	"context"
	"crypto/x509"
	"runtime/debug"
	"sync"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/httpwire"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// Swarm is one cohort's clients in real time.
type Swarm struct {
	URL      string // the target, e.g. http://127.0.0.1:8080/ (http or https)
	Strategy *clients.Strategy
	Workload *clients.Workload
	Seed     uint64
	Origin   time.Time     // the run's t = 0 on the wall clock
	Duration time.Duration // the run's length: the swarm stops by itself then
	Rec      *results.Recorder
	// Part is the shard of the cohort this swarm runs: its clients, or its
	// share of an open workload's arrivals (Part). Zero: every client.
	Part clients.Part
	// Dial opens connections; nil means the host's TCP stack. Tests pass
	// an in-memory network's.
	Dial DialFunc
	// Protocol is what the swarm speaks: HTTP/1.1 (the zero value), h2
	// (an https URL) or h2c (an http URL) (h2.go).
	Protocol wire.Protocol
	// Shared is, over HTTP/2, how many closed-loop clients share one
	// connection (clients i with the same i / Shared); 0 or 1: each its
	// own. An open workload's arrivals take a connection each from a pool.
	Shared int
	// Roots, when set, are the certificates an https target is trusted
	// by instead of the system's: an embedded target's (wire.Cert.Pool).
	Roots *x509.CertPool
	// OCC makes each attempt a read then a write of the target's OCC row
	// (see attemptOCC) instead of one plain request.
	OCC bool
	// BeforeSend, if set, is called by a client's goroutine each time it
	// has woken to send an attempt, right before it sends. Tests make the
	// harness late on purpose with it: a pause here is what a busy
	// machine's scheduler does, and the attempt's send lag shows it.
	BeforeSend func()
	// Panicked, if set, is called with a panic of a client's goroutine
	// and its stack, instead of the panic ending the process.
	Panicked func(v any, stack []byte)
	// Slow runs the swarm in slow motion (package slowmo): its clients
	// wait and time out Slow times longer on the wall clock, and every
	// instant they record is in the scenario's time. The target must be
	// slowed by the same factor.
	Slow slowmo.Factor

	ep  *httpwire.Endpoint // Run's
	att httpwire.Attempts  // Run's: how its attempts go on HTTP
}

// DialFunc opens a connection, like net.Dialer.DialContext.
type DialFunc = httpwire.DialFunc

// Run drives the swarm until the run's end or until ctx is done, and waits
// for every client goroutine. Attempts cut short by the end are not
// recorded. No goroutine it starts outlives it.
//
// Each closed-loop or one-shot client has its own connection (a link),
// opened before its first send so that a wave of first attempts is not
// slowed by TCP handshakes: real clients hold keep-alive connections. A
// connection that a crash resets is opened again by the next attempt, whose
// latency includes the reconnection, as a real client's would.
func (s *Swarm) Run(ctx context.Context) {
	ctx, cancel := context.WithDeadline(ctx, s.Slow.At(s.Origin, s.Duration))
	defer cancel()
	ep, _ := httpwire.Open(s.URL, httpwire.DialFunc(s.Dial), s.Strategy.Requests, s.Protocol, s.Roots)
	s.ep = ep
	s.att = httpwire.Attempts{Origin: s.Origin, Slow: s.Slow, Timeout: s.Strategy.Timeout, OCC: s.OCC, Transport: s.Strategy.Transport}
	links := &httpwire.LinkSet{}
	// The run's end (or ctx's) unblocks every exchange at once.
	var aborting sync.WaitGroup
	aborting.Add(1)
	stop := context.AfterFunc(ctx, func() {
		defer aborting.Done()
		links.Abort()
	})
	defer func() {
		if stop() {
			aborting.Done()
		}
		aborting.Wait()
		links.CloseAll()
	}()
	var wg sync.WaitGroup
	k := clients.NewCohort(s.Strategy)
	switch s.Workload.Kind {
	case clients.Open:
		s.runOpen(ctx, k, &wg, httpwire.NewPool(ep, links))
	default:
		dials := make(chan struct{}, warmDials)
		shared := map[int]*httpwire.H2Conn{}
		for id := s.Part.First(); id < s.Workload.Clients; id += s.Part.Step() {
			c := k.NewClient(id, s.Workload, s.Duration, seeds.Stream(s.Seed, seeds.Client(id)), s.shard(id))
			c.Traffic(s.Seed)
			l := httpwire.NewLink(ep)
			if ep.HTTP2() {
				g := id / max(1, s.Shared)
				if shared[g] == nil {
					shared[g] = ep.NewH2Conn()
				}
				l = httpwire.NewStreamLink(ep, shared[g])
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.recoverPanic()
				links.Add(l)
				a := c.Begin()
				if a.Op == clients.Send {
					dials <- struct{}{}
					l.Warm(ctx, s.Slow.At(s.Origin, a.At))
					<-dials
				}
				s.drive(ctx, c, a, l)
			}()
		}
	}
	wg.Wait()
}

// recoverPanic hands a panic of one of the swarm's goroutines to Panicked,
// when set, instead of letting it end the process: the run can then stop
// and keep what it recorded.
func (s *Swarm) recoverPanic() {
	if s.Panicked == nil {
		return
	}
	if v := recover(); v != nil {
		s.Panicked(v, debug.Stack())
	}
}

// warmDials is how many connections a swarm opens at once before its
// clients' first sends: enough to open thousands in well under a second,
// few enough to stay inside the listener's backlog (beyond it, handshakes
// are dropped and retried a second later).
const warmDials = 128

// shard returns the recorder's shard for client id.
func (s *Swarm) shard(id int) *results.Shard { return s.Rec.Shard(s.Part.Local(id)) }

// runOpen starts one client per Poisson arrival, all sharing a pool of
// connections. A swarm that is one shard of a split run draws every
// arrival, to keep the whole run's stream, and starts those of its part.
func (s *Swarm) runOpen(ctx context.Context, k *clients.Cohort, wg *sync.WaitGroup, pool *httpwire.Pool) {
	Arrivals(ctx, s.Workload, s.Seed, s.Part, s.Origin, s.Slow, s.Duration, func(id int, at time.Duration) {
		c := k.NewClient(id, s.Workload, s.Duration, seeds.Stream(s.Seed, seeds.Client(id)), s.shard(id))
		c.Traffic(s.Seed)
		first := c.BeginAt(at)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.recoverPanic()
			s.drive(ctx, c, first, pool)
		}()
	})
}

// drive runs one client's step function on the wall clock, each attempt on
// a link from src.
func (s *Swarm) drive(ctx context.Context, c *clients.Client, a clients.Action, src httpwire.Source) {
	sh := s.shard(c.ID)
	var wake Alarm
	defer wake.Stop()
	var req, buf []byte // the current logical request's bytes (a mix's)
	calm := false       // the last attempt succeeded
	for a.Op == clients.Send {
		if !wake.SleepUntil(ctx, s.Slow.At(s.Origin, a.At)) {
			return
		}
		if s.BeforeSend != nil {
			s.BeforeSend()
		}
		if a.Attempt == 1 {
			req, buf = s.ep.Request(c, s.Seed, buf)
		}
		l := src.Get()
		l.SetCalm(calm && !wake.waited) // the next request of a closed loop, sent at once
		sh.InFlight(1)
		sent, end, o, status, retryAfter, first := s.att.Send(ctx, l, req)
		sh.InFlight(-1)
		src.Put(l)
		if ctx.Err() != nil {
			return // the run ended mid-attempt: not an outcome of the target
		}
		// The send lag is the harness's lateness: the wake-up, the
		// scheduler, everything before the request's first byte or packet.
		lag := max(0, sent-a.At)
		if first != nil { // the transport re-sent it: sent is the re-send's
			first.Lag, lag = lag, 0
			c.Resent(*first)
		}
		a = c.Result(clients.Reply{Sent: sent, Latency: end - sent, Outcome: o, RetryAfter: retryAfter, Lag: lag, Status: status, Resend: first != nil})
		calm = o == results.OK
	}
}
