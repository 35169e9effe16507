// Package clients is the swarm: retry strategies and the clients that use
// them.
//
// Decisions are pure. A Backoff returns the next wait from the number of
// failed attempts, the previous wait and a uniform draw u in [0, 1) that the
// caller supplies; it never sleeps, reads a clock or owns a random source.
// Retry limits live in the retry loop, not in the backoff shape.
//
// A Strategy is immutable and shared by a whole cohort. Each Client owns the
// mutable state: its random stream (derived from the run's seed and the
// client's id), attempt counter and previous wait. A Client is a step
// function: given what just happened (start, an attempt's result) it returns
// the next Action (send attempt n at time t, or stop), recording attempts and
// requests into its results.Sink as it goes.
//
// Two drivers run clients: the real-time swarm in this package (a goroutine
// per client, the wall clock, real HTTP on loopback) and the virtual-time
// simulator (an event heap). Both call the same step function, so a scenario
// means the same thing in both engines.
package clients
