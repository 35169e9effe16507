package target

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/seeds"
	"github.com/herdbench/herdbench/target/model"
)

// Options configure a server made by Listen. Only Config is needed: the
// zero value of every other field is a loopback server on a random port with
// no faults, its plan starting at once.
type Options struct {
	// Addr is where to listen, host:port; "127.0.0.1:0" (a random loopback
	// port) when empty. Listen binds exactly there: nothing else is opened.
	Addr   string
	Config model.Config
	// Plan is the chaos plan, relative to its own start; nil for none.
	Plan *chaos.Plan
	// RNG is the target's own random stream (service times, error rates,
	// latency): seeds.Stream(seed, seeds.Target) under the run's seed; a
	// fixed one (seed 0's) when nil.
	RNG *rand.Rand
	// Origin is the server clock's zero, where the plan starts unless Hold:
	// now when zero. The engine gives its run's origin, which may be in the
	// future: the run starts then.
	Origin time.Time
	// Hold keeps the plan from starting until StartPlan; otherwise it starts
	// at Origin.
	Hold bool
	// Next, when set, takes every request the chaos plan lets through,
	// instead of the capacity model: the chaos proxy forwards them to its
	// upstream. Next should give up when the request's context ends, which
	// happens when a crash resets the client's connection.
	Next http.Handler
	// NextGRPC is Next for a gRPC server (Config.Protocol GRPC).
	NextGRPC GRPCHandler
	// Call, when set, makes the server a middle tier of a chain of tiers:
	// every request the capacity model serves then calls the next tier
	// through Call, holding its slot until the call ends, and is answered
	// 200 if the call succeeded and 503 if it gave up. Call must give up
	// when its context ends: the request's client went away, or the
	// server crashed.
	Call Caller
	// Listen opens a listener at an address (again after a refuse outage);
	// net.Listen("tcp", addr) when nil. Tests pass an in-memory network.
	Listen ListenFunc
	// Limits cap the connections the server holds and time out slow and
	// idle ones; netguard.TrafficLimits(1) when zero.
	Limits netguard.Limits
	// Protocol is what the server speaks: HTTP/1.1 (the zero value); h2c,
	// HTTP/2 with prior knowledge and HTTP/1.1 on one cleartext port; or
	// h2, TLS offering h2 and http/1.1 over ALPN, with Cert (made in
	// memory at start when nil: Server.Cert).
	Protocol wire.Protocol
	Cert     *wire.Cert
	// Observer, when set, is told of every request the server answers and
	// of every start of the plan's clock: a recording of the traffic
	// (package recording). The first start, without Hold, is at Origin.
	Observer Observer
	// Slow runs the model's clock in slow motion (package slowmo): its
	// service times, queue timeouts, network hops and chaos plan last Slow
	// times longer on the wall clock. The engine's slow-motion runs set
	// it, with the swarm's; the control API and the proxy keep real speed.
	Slow slowmo.Factor
}

// Listen starts a server: the capacity model (or, with Next, a chaos
// proxy) behind the chaos plan, on a port of its own. It is the one way to
// make a Server: the engine's embedded targets, herdbench target and the
// proxy all start here. The plan starts at Origin or, with Hold, when
// StartPlan is called, and can be stopped and given faults by hand (see
// StartPlan, StopPlan, Inject, Status). Every request is counted
// (Counters) before anything else sees it.
//
// Composition order, outermost first: the counters; then the chaos plan's
// ingress decision, in the order Model.Ingress makes it (a reset or refuse
// outage resets the connection; a blackhole holds the request until the
// client gives up; a 503 outage or an error rate answers at once, with
// Retry-After when set; added latency waits); then the capacity model or
// Next. A crash (a reset or refuse outage beginning) resets every
// connection, whatever layer its request is in.
func Listen(o Options) (*Server, error) {
	listen := o.Listen
	if listen == nil {
		listen = net.Listen
	}
	addr := o.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("target: listen on %s: %w", addr, err)
	}
	plan := o.Plan
	if plan == nil {
		plan, _ = chaos.NewPlan(nil, 0)
	}
	rng := o.RNG
	if rng == nil {
		rng = seeds.Stream(0, 0)
	}
	origin := o.Origin
	if origin.IsZero() {
		origin = time.Now()
	}
	limits := o.Limits
	if limits == (netguard.Limits{}) {
		limits = netguard.TrafficLimits(1)
	}
	if o.Config.Protocol == model.GRPC && o.Protocol != wire.HTTP1 {
		_ = ln.Close()
		return nil, fmt.Errorf("target: a gRPC server speaks grpc-go's own HTTP/2 in cleartext; protocol %s is for an HTTP server", o.Protocol)
	}
	s := newServer(o.Config, plan, rng, origin, listen, limits)
	s.slow = o.Slow
	if s.tls, err = s.setupWire(o.Protocol, o.Cert); err != nil {
		_ = ln.Close()
		return nil, err
	}
	s.next, s.call = o.Next, o.Call
	s.nextGRPC = o.NextGRPC
	s.observer = o.Observer
	if o.Config.Protocol == model.GRPC {
		s.newGRPC()
	}
	if s.observer != nil {
		s.srv.Handler = s.counters.wrap(s, s.observed)
	} else {
		s.srv.Handler = s.counters.Wrap(s)
	}
	if o.Hold {
		s.mu.Lock()
		s.clock.running = false
		err := s.replace()
		s.mu.Unlock()
		if err != nil {
			_ = ln.Close()
			return nil, err
		}
	} else if s.observer != nil {
		s.observer.PlanStarted(origin)
	}
	s.run(ln)
	return s, nil
}

// observed tells the observer of a request answered.
func (s *Server) observed(r *http.Request, arrived time.Time, a Answer, ow *observedWriter) {
	o := Observation{Request: r, Arrived: arrived, Ended: time.Now(), Answer: a, Status: ow.status, Upstream: ow.upstream}
	if a == AnswerAborted {
		o.Crashed = s.crashedSince(arrived)
	}
	s.observer.Observe(o)
}

// Addr returns the address the server listens on.
func (s *Server) Addr() string { return s.addr }

// Counters returns the server's answer counters.
func (s *Server) Counters() *Counters { return &s.counters }

// Plan returns the scenario's chaos plan, relative to its own start.
func (s *Server) Plan() *chaos.Plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clock.sched
}

// forward hands an admitted request to next, cancelling it if a crash
// begins meanwhile.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, crashed <-chan struct{}) {
	ctx, cancel := untilCrash(r.Context(), crashed)
	defer cancel()
	s.next.ServeHTTP(w, r.WithContext(ctx))
	abortIfCrashed(crashed)
}
