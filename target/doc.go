// Package target is the service under test: the server that puts the
// capacity model (package target/model) on a socket, in every wire
// herdbench speaks.
//
// The model's answer to a request is data, a chaos.Answer. The server
// applies it in one function per wire: exchange.answer encodes it in
// HTTP/1.1 and HTTP/2 (and a recording classifies the request from it,
// noteAnswer), exchange.answerGRPC in gRPC (grpc.go); the simulator's
// Sim.answer turns the same answer into what the client sees.
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
