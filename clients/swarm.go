package clients

import (
	"bytes"
	"context"
	"crypto/x509"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// Swarm is one cohort's clients in real time.
type Swarm struct {
	URL      string // the target, e.g. http://127.0.0.1:8080/ (http or https)
	Strategy *Strategy
	Workload *Workload
	Seed     uint64
	Origin   time.Time     // the run's t = 0 on the wall clock
	Duration time.Duration // the run's length: the swarm stops by itself then
	Rec      *results.Recorder
	// Part is the shard of the cohort this swarm runs: its clients, or its
	// share of an open workload's arrivals (Part). Zero: every client.
	Part Part
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

	ep *endpoint // Run's
}

func (s *Swarm) endpoint() *endpoint { return s.ep }

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
	ep, err := newEndpoint(s.URL, s.Dial, s.Strategy.Requests)
	if err == nil {
		err = ep.use(s.Protocol, s.Roots)
	}
	if err != nil {
		ep = &endpoint{err: err}
		if s.Strategy.Requests != nil {
			ep.reqs = make([]wireRequest, len(s.Strategy.Requests.Requests))
		}
	}
	s.ep = ep
	links := &linkSet{}
	// The run's end (or ctx's) unblocks every exchange at once.
	var aborting sync.WaitGroup
	aborting.Add(1)
	stop := context.AfterFunc(ctx, func() {
		defer aborting.Done()
		links.abort()
	})
	defer func() {
		if stop() {
			aborting.Done()
		}
		aborting.Wait()
		links.closeAll()
	}()
	var wg sync.WaitGroup
	k := NewCohort(s.Strategy)
	switch s.Workload.Kind {
	case Open:
		s.runOpen(ctx, k, &wg, &linkPool{ep: ep, set: links})
	default:
		dials := make(chan struct{}, warmDials)
		shared := map[int]*h2conn{}
		for id := s.Part.First(); id < s.Workload.Clients; id += s.Part.Step() {
			c := k.NewClient(id, s.Workload, s.Duration, seeds.Stream(s.Seed, seeds.Client(id)), s.shard(id))
			c.Traffic(s.Seed)
			l := newLink(ep)
			if ep.proto.HTTP2() {
				g := id / max(1, s.Shared)
				if shared[g] == nil {
					shared[g] = &h2conn{ep: ep}
				}
				l.h2 = shared[g]
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.recoverPanic()
				links.add(l)
				a := c.Begin()
				if a.Op == Send {
					dials <- struct{}{}
					l.warm(ctx, s.Slow.At(s.Origin, a.At))
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
func (s *Swarm) runOpen(ctx context.Context, k *Cohort, wg *sync.WaitGroup, pool *linkPool) {
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
func (s *Swarm) drive(ctx context.Context, c *Client, a Action, src linkSource) {
	sh := s.shard(c.ID)
	var wake Alarm
	defer wake.Stop()
	var req, buf []byte // the current logical request's bytes (a mix's)
	calm := false       // the last attempt succeeded
	for a.Op == Send {
		if !wake.SleepUntil(ctx, s.Slow.At(s.Origin, a.At)) {
			return
		}
		if s.BeforeSend != nil {
			s.BeforeSend()
		}
		if a.Attempt == 1 {
			req, buf = s.request(c, buf)
		}
		l := src.get()
		l.calm = calm && !wake.waited // the next request of a closed loop, sent at once
		sh.InFlight(1)
		sent, end, o, status, retryAfter, first := s.attempt(ctx, l, req)
		sh.InFlight(-1)
		src.put(l)
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
		a = c.Result(Reply{Sent: sent, Latency: end - sent, Outcome: o, RetryAfter: retryAfter, Lag: lag, Status: status, Resend: first != nil})
		calm = o == results.OK
	}
}

// request returns the bytes of client c's current logical request (nil
// for the probe), filled into buf when it has placeholders.
func (s *Swarm) request(c *Client, buf []byte) (req, out []byte) {
	if s.Strategy.Requests == nil {
		return nil, buf
	}
	i, n := c.Current()
	w := &s.endpoint().reqs[i]
	if w.fixed != nil {
		return w.fixed, buf
	}
	f := filler{client: c.ID, n: n}
	requestStream(&f.src, s.Seed, c.ID, n)
	if len(s.Strategy.Requests.Requests) > 1 {
		f.src.Uint64() // the mix's draw
	}
	buf = w.fill(buf[:0], &f)
	return buf, buf
}

// attempt sends one attempt on l and returns when it was sent (its first
// byte or packet handed to the kernel) and ended, as elapsed times, its
// outcome, its HTTP status code (0 for a transport error, and for an OCC
// target's), and the server's pushback (Retry-After), if any. Each request is
// a POST, because net/http (and other stacks) silently retry an idempotent
// request on a reused connection that failed, which would hide a reset from
// the count of attempts; and so the target can tell nothing else apart.
// With Strategy.Transport net/http, an attempt whose reused connection
// fails before the answer's first byte is sent again at once on a new
// connection, within the same deadline: first is then the first try's
// reply, and the figures returned are the re-send's.
func (s *Swarm) attempt(ctx context.Context, l *link, req []byte) (sent, end time.Duration, o results.Outcome, status int, pushback time.Duration, first *Reply) {
	if l.h2 != nil {
		sent, end, o, status, pushback = s.attemptH2(ctx, l, req)
		return sent, end, o, status, pushback, nil
	}
	at, deadline, err := l.begin(ctx, s.Slow.Wall(s.Strategy.Timeout))
	sent = s.Slow.Between(s.Origin, at)
	var read time.Time // when the answer was read, if exchange says
	if err == nil {
		if s.OCC {
			o, err = s.attemptOCC(ctx, l, deadline)
		} else {
			var a answer
			if req == nil {
				req = l.ep.plain
			}
			a, err = l.exchange(ctx, req, deadline, false)
			if err != nil && ctx.Err() == nil && s.resends(err, req, l.ep.plain) {
				now := time.Now()
				first = &Reply{Sent: sent, Latency: s.Slow.Scenario(now.Sub(at)), Outcome: Classify(err)}
				sent = s.Slow.Between(s.Origin, now)
				if err = l.connect(ctx, deadline); err == nil {
					if err = l.setDeadline(deadline, now); err == nil {
						a, err = l.exchange(ctx, req, deadline, false)
					}
				}
			}
			o, status, read = results.FromStatus(a.status), a.status, a.read
			if a.retryAfter != "" {
				pushback, _ = ParseRetryAfter(a.retryAfter, time.Now())
			}
		}
	}
	if err == nil && !read.IsZero() {
		end = s.Slow.Between(s.Origin, read)
	} else {
		end = s.Slow.Since(s.Origin)
	}
	if err != nil {
		if na := (*noAnswerError)(nil); errors.As(err, &na) && !na.at.IsZero() {
			end = s.Slow.Between(s.Origin, na.at) // when the failure was read, before the work after it
		}
		return sent, end, Classify(err), 0, 0, first
	}
	return sent, end, o, status, pushback, first
}

// resends reports whether the strategy's transport sends again at once
// the request req whose exchange failed with err. Apart from attempt, so
// that the error's variable, which escapes, is made only on failure.
func (s *Swarm) resends(err error, req, plain []byte) bool {
	var na *noAnswerError
	return errors.As(err, &na) && s.Strategy.Transport.Resends(Classify(err), na.reused, replayable(req, plain))
}

// replayable reports whether net/http would re-send the request whose
// bytes are req (Replayable): the probe (plain) counts as replayable, as
// Client.Replayable says.
func replayable(req, plain []byte) bool {
	if bytes.Equal(req, plain) {
		return true
	}
	method, _, _ := bytes.Cut(req, []byte(" "))
	head, _, _ := bytes.Cut(req, []byte("\r\n\r\n"))
	return Replayable(string(method), func(name string) bool {
		for _, line := range bytes.Split(head, []byte("\r\n"))[1:] {
			if k, _, ok := bytes.Cut(line, []byte(":")); ok && bytes.EqualFold(bytes.TrimSpace(k), []byte(name)) {
				return true
			}
		}
		return false
	})
}
