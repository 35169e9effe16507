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

// Swarm is one cohort's clients in real time, over any wire: HTTP/1.1,
// HTTP/2 (h2, h2c) or gRPC, each a transport (http.go, grpc.go) under the
// one Driver.
type Swarm struct {
	// URL is the target: http://127.0.0.1:8080/ (http or https); for a
	// gRPC target, host:port or a URL whose host and port are taken.
	URL      string
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
	// Protocol is what the swarm speaks over HTTP: HTTP/1.1 (the zero
	// value), h2 (an https URL) or h2c (an http URL).
	Protocol wire.Protocol
	// GRPC makes the swarm call a unary method over gRPC (grpc.go) instead
	// of HTTP; Method is that method, grpcwire.Method when empty.
	GRPC   bool
	Method string
	// Shared is how many closed-loop clients share one connection (over
	// HTTP/2) or one channel (over gRPC): clients i with the same
	// i / Shared; 0 or 1: each its own. An open workload's arrivals take
	// a connection each from a pool (HTTP) or share one channel (gRPC).
	Shared int
	// Roots, when set, are the certificates an https target is trusted
	// by instead of the system's: an embedded target's (wire.Cert.Pool).
	Roots *x509.CertPool
	// OCC makes each attempt a read then a write of the target's OCC row
	// (httpwire.Attempts) instead of one plain request.
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
}

// DialFunc opens a connection, like net.Dialer.DialContext.
type DialFunc = httpwire.DialFunc

// transport is one wire's side of a swarm's run: what its clients' step
// function runs and records into, and how their attempts go out (a Sender
// each), set up before the first send (open) and closed after the last.
type transport interface {
	strategy() *clients.Strategy
	sink(sh *results.Shard) results.Sink
	// client returns closed-loop or one-shot client id's sender; warm
	// readies it before its first send, at at.
	client(id int, c *clients.Client) Sender
	warm(ctx context.Context, s Sender, at time.Duration)
	// arrival returns an open workload's arrival's sender.
	arrival(id int, c *clients.Client) Sender
	close()
}

// Run drives the swarm until the run's end or until ctx is done, and waits
// for every client goroutine. Attempts cut short by the end are not
// recorded. No goroutine it starts outlives it.
//
// Each closed-loop or one-shot client has its own connection (or channel,
// or a share of one), opened before its first send so that a wave of first
// attempts is not slowed by handshakes: real clients hold keep-alive
// connections. A connection that a crash resets is opened again by the
// next attempt, whose latency includes the reconnection, as a real
// client's would. An open workload starts one client per Poisson arrival;
// a swarm that is one shard of a split run draws every arrival, to keep
// the whole run's stream, and starts those of its part.
func (s *Swarm) Run(ctx context.Context) {
	ctx, cancel := context.WithDeadline(ctx, s.Slow.At(s.Origin, s.Duration))
	defer cancel()
	var t transport
	if s.GRPC {
		t = s.openGRPC(ctx)
	} else {
		t = s.openHTTP(ctx)
	}
	defer t.close()
	d := &Driver{Origin: s.Origin, Slow: s.Slow, BeforeSend: s.BeforeSend}
	k := clients.NewCohort(t.strategy())
	newClient := func(id int) *clients.Client {
		c := k.NewClient(id, s.Workload, s.Duration, seeds.Stream(s.Seed, seeds.Client(id)), t.sink(s.shard(id)))
		c.Traffic(s.Seed)
		return c
	}
	var wg sync.WaitGroup
	if s.Workload.Kind == clients.Open {
		Arrivals(ctx, s.Workload, s.Seed, s.Part, s.Origin, s.Slow, s.Duration, func(id int, at time.Duration) {
			c := newClient(id)
			first := c.BeginAt(at)
			snd := t.arrival(id, c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.recoverPanic()
				d.Drive(ctx, c, first, snd, s.shard(id))
			}()
		})
	} else {
		for id := s.Part.First(); id < s.Workload.Clients; id += s.Part.Step() {
			c := newClient(id)
			snd := t.client(id, c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.recoverPanic()
				a := c.Begin()
				if a.Op == clients.Send {
					t.warm(ctx, snd, a.At)
				}
				d.Drive(ctx, c, a, snd, s.shard(id))
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

// shard returns the recorder's shard for client id.
func (s *Swarm) shard(id int) *results.Shard { return s.Rec.Shard(s.Part.Local(id)) }
