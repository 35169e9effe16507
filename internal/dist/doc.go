// Package dist holds the small random distributions herdbench's scenarios
// use for durations: service times, think times, added latency and network
// delays.
//
// A Dist is an immutable value. It never owns a random source: Sample takes
// the caller's *rand.Rand, so each client, target and simulated hop keeps its
// own seeded stream and a run is reproducible from its seed. Distributions are
// written in scenarios as strings such as "10ms", "uniform(5ms, 15ms)",
// "exponential(1s)" or "normal(10ms, 2ms)", and the heavy-tailed
// "lognormal(2ms, 1.5)" (median, sigma) and "pareto(1ms, 1.5)" (minimum,
// alpha), whose rare draws are many times the usual ones: the long tail
// that hedged requests cut. Parse reads them and String writes them back.
package dist
