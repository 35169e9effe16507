// Package seeds owns herdbench's randomness: the root seed of a run, the
// seeds of its repetitions, and the random streams every process of a run
// draws from.
//
// A run has one root seed, resolved once at the edge (the command: --seed,
// else the scenario's seed, else Draw) and written into summary.json.
// Repetition k of a run uses Rep(root, k). Under a seed, each process that
// draws numbers has its own stream, Stream(seed, id): client i uses
// Client(i), the embedded target Target, the open workload's arrival
// process Arrivals. Streams are PCG generators (math/rand/v2), so a stream
// is cheap, never shared between goroutines, and the same seed gives the
// same numbers in both engines and on every machine.
//
// Draw is the only place that reads a source the run does not own (the
// runtime's random source), and it is meant for the command alone: the
// scenario compiler, the engines and the policies never draw a seed.
package seeds
