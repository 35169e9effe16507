// Package chaos describes the faults herdbench injects and when.
//
// A fault is a small value behind the one-method Fault interface: Apply folds
// its effect into an Effect. A scenario's faults, each with a window (at, for)
// relative to the run's start, are compiled once into a Plan. Compiling cuts
// the run into segments at every window edge and precomputes the Effect of
// each, so "what is active at t" (Plan.ActiveAt) is a pure, allocation-free
// lookup that the real-time target and the virtual-time simulator both call.
//
// Effects compose: overlapping faults each contribute their part, and the
// drivers act on segment edges. An outage in reset mode that starts while a
// blackhole is holding requests resets every request the blackhole held (a
// stall, then a crash), because the target drops all in-flight work when a
// reset or refuse outage begins.
//
// Fault kinds are registered by name with Register (a duplicate panics); the
// scenario loader reads a fault's kind first, then decodes its parameters into
// the Spec the registry returns.
package chaos
