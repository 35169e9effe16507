// Package clients is the swarm: retry strategies and the clients that use
// them.
//
// Decisions are pure. A Backoff returns the next wait from the number of
// failed attempts, the previous wait and a uniform draw u in [0, 1) that the
// caller supplies; it never sleeps, reads a clock or owns a random source.
// Retry limits live in the retry loop, not in the backoff shape.
//
// A Strategy is immutable and shared by a whole cohort. Drivers make its
// clients with NewCohort(s).NewClient, one Cohort per cohort per run. Each
// Client owns the mutable state: its random stream (derived from the run's
// seed and the client's id), attempt counter and previous wait. A Client is a
// step function: given what just happened (start, an attempt's result) it
// returns the next Action (send attempt n at time t, or stop), recording
// attempts and requests into its results.Sink as it goes.
//
// A strategy may add client policies, each a pure state machine taking the
// elapsed time (and, for throttling, the caller's uniform draw): a retry
// Budget (gRPC A6 tokens, the AWS SDK standard quota, Finagle's budget, the
// SRE book's ratio, Envoy's concurrent retries), a circuit Breaker, adaptive
// Throttling, and honouring the server's Retry-After. Each kind of budget,
// breaker and throttle is one file (budget_grpc.go, breaker_standard.go,
// ...) that registers its Spec, with the design's published constants, in
// the family's registry (Budgets, Breakers, Throttles: spec.go); the
// scenario loader finds kinds there. Named presets (FindPreset) reproduce
// real designs with their published constants. The Client
// consults them inside its step function, so every driver gets them: a
// budget is asked when an attempt has failed (a denial fails the request at
// once); the throttle and then the breaker are asked for each call at its
// intended send time, and a call they refuse never reaches the driver: it
// counts as an attempt of the request, and the client backs off or gives
// up. A policy's state is per client by default; with scope cohort one
// state is shared by the whole cohort (a sidecar's view) through a Cohort,
// which guards it with a mutex. Decisions are taken when the client steps,
// so a shared breaker or throttle sees a call planned one backoff (or think
// time) ahead with the shared state as it is when the client plans it.
//
// Two drivers run clients: the real-time swarm (package clients/swarm: a
// goroutine per client, the wall clock, a transport per wire) and the
// virtual-time simulator (an event heap). Both call the same step function,
// so a scenario means the same thing in both engines. This package is the
// model alone: it imports no transport (internal/archcheck keeps it so),
// and what a wire needs of a request (its Template, a Filler) it reads from
// here.
package clients
