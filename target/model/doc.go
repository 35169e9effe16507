// Package model is the target's capacity model: the one definition of how
// the service under test behaves, shared by the real-time server (package
// target) and the virtual-time simulator (package sim).
//
// Model is a pure state machine: every method takes the current elapsed
// time, nothing sleeps, reads a clock, starts a goroutine or touches a
// socket (internal/archcheck keeps transports out of this package). It holds
// bounded concurrency (slots), a bounded FIFO queue with a queue timeout
// (then 503), a service-time distribution, and a cold start: after an
// outage, capacity ramps linearly from a fraction back to full. It consults
// the chaos plan for what is active at each instant (outages, blips, error
// rates, brownouts, pushback: a 429 or 503 with a Retry-After). With
// ServeAbandoned, work queued for a client that has gone away is still
// served when its turn comes (wasted work): the mechanism that keeps an
// overload going after its trigger (a metastable failure). An OCC target
// keeps one row with a version (Row), as in AWS's backoff experiment.
//
// The model's answer to a request is data, a chaos.Answer: Ingress at
// arrival, Overloaded when capacity turns it away, Served when its service
// ends, Relayed at a middle tier when its call to the next tier ends. Each
// engine applies an Answer in one function, at every tier and for every
// wire: the server's encoders (HTTP/1.1 and HTTP/2, gRPC) write it, the
// simulator's Sim.answer turns it into what the client sees.
package model
