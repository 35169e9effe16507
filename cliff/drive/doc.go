// Package drive owns the runs of the cliff search, the point of no return
// and their confirmation on sockets; package cliff decides which runs to
// make and what they mean.
//
// Search asks cliff.Next for the runs it wants, compiles the scenario at
// each grid value (scenarios.Expand with the values as --set gives them,
// so a varied field is checked exactly as a written one), runs every
// probe of the round in virtual time on its workers (engine.CohortRun:
// the figures a --set sweep's point has), and asks again with the
// results, sorted, so that what it finds never depends on which worker
// ran what. NoReturn runs one collapsing run with pauses (sim.RunPaused)
// at the instants cliff.NextInstants asks for, and continues each
// snapshot with fresh randomness and the trigger removed. Confirm runs
// the scenario on sockets (engine.Execute in real time) just inside and
// just outside each boundary found, each with its verdict.
//
// An interrupt (the context's end) stops every simulated run where it is,
// drops the runs it cut, and returns the results made so far with the
// context's error: the command writes what it has.
package drive
