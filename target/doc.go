// Package target is the service under test: a capacity model and the HTTP
// server that puts it on a socket.
//
// Model is the one definition of how the target behaves, shared by the
// real-time server in this package and by the virtual-time simulator. It is
// a pure state machine: every method takes the current elapsed time, nothing
// sleeps, reads a clock or starts a goroutine. It holds bounded concurrency
// (slots), a bounded FIFO queue with a queue timeout (then 503), a
// service-time distribution, and a cold start: after an outage, capacity
// ramps linearly from a fraction back to full. It consults the chaos plan for
// what is active at each instant (outages, blips, error rates, brownouts,
// pushback: a 429 or 503 with a Retry-After). With ServeAbandoned, work
// queued for a client that has gone away is still served when its turn
// comes (wasted work): the mechanism that keeps an overload going after its
// trigger (a metastable failure).
//
// The model's answer to a request is data, a chaos.Answer: Ingress at
// arrival, Overloaded when capacity turns it away, Served when its service
// ends, Relayed at a middle tier when its call to the next tier ends. Each
// engine applies an Answer in one function, at every tier: the server's
// exchange.answer encodes it in HTTP/1.1 (and a recording classifies the
// request from it, noteAnswer), the simulator's Sim.answer turns it into
// what the client sees.
//
// Server is the real-time driver: an HTTP server on 127.0.0.1 that asks the
// model what to do with each request, holds it for the model's service time,
// and applies the chaos plan's connection-level faults on the wall clock:
// refusing connections (closing the listener), and resetting every connection
// when a crash begins.
//
// Listen is the one constructor of a Server, for the engine's embedded
// targets, herdbench target and the chaos proxy alike: it binds the address
// given (a random loopback port by default), counts every answer
// (Counters), and keeps the chaos plan on a clock of its own that starts at
// Options.Origin or later (StartPlan), can be stopped (StopPlan) and take
// faults by hand (Inject); each change compiles a new chaos.Plan on the
// server's clock and swaps it into the model, so "what is active at t"
// stays a pure lookup. With Options.Next, requests the plan lets through go
// to another handler (the proxy's upstream) instead of the capacity model.
// Injected faults that have ended are dropped (MaxInjected at once, none
// reaching more than MaxAhead), so a long game day's injects stay cheap.
//
// With Options.Observer, a server tells a recording of its traffic
// (package recording) of every request once answered (Observation: when
// it arrived, when its answer ended, how; for the proxy, the upstream's
// time, NoteUpstream) and of every start of the plan's clock; FaultsBetween
// gives the faults as they acted (cut short by a stop, dropped ones not at
// all), for the recording's fault windows.
//
// Every Server caps its connections and times out slow headers and idle
// connections (netguard.Limits, Options.Limits), so a slowloris on its port
// cannot take the open files the rest of the process needs; the cap's
// listener keeps each socket reachable, so a crash still resets connections
// with an RST.
package target
