// Package slowmo maps a real-time run's scenario time onto the wall clock
// K times slower: slow motion.
//
// On a machine with few cores the harness is late by what its own work
// costs: a thousand clients that learn of a crash at the same instant take
// the resets one after the other, tens of milliseconds on 2 cores, where
// the model (and a thousand separate machines) has them learn at once. In
// slow motion every duration of the scenario is lived K times longer on
// the wall clock (the clients' waits and timeouts, the target's service
// times, queue timeouts, faults and cold starts) and every instant the
// drivers observe is divided by K before anything records it. The
// harness's lateness, which does not grow with K, is then K times smaller
// in the scenario's time, and a wave that came apart over 40 ms of wall
// time is 5 ms wide at K = 8. The figures are the scenario's (its clock,
// its counts); the run takes K times longer.
//
// What does not slow down: the network's own latency on the loopback
// (tens of microseconds, K times smaller in the scenario's time), and
// code herdbench does not drive (a grpc-go channel's timers, a user's
// cohort, an external service), which is why the engine refuses slow
// motion with those.
//
// Factor is the only type: the drivers (swarm.Swarm and the relays a
// middle tier calls with, target.Server, and the engine's run) convert at
// their edges with it, and nothing else knows.
package slowmo
