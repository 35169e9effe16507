// Package engine runs compiled scenarios, in real time or in virtual time,
// once or repeated, for one client count or a sweep of them.
//
// Execute is the entry point: for every plan (one per --clients count) it
// runs every cohort Options.Runs times with seeds derived from the root
// seed (seeds.Rep). One scheduler (schedule.go) runs the units (a
// repetition's cohorts together, or one cohort) over a driver (drivers.go):
// real runs go one after another through Start, all cohorts at once or
// apart; simulated cohort runs (package sim) are spread over the workers.
// Outcomes land in fixed slots, so figures never depend on scheduling. One
// function, assemble, makes each plan's Point from them: its summary (with
// mean and sd per metric over the repetitions, the thresholds checked, a
// shard's marks, a real run's simulator reference), every repetition's
// figures (what thresholds are checked against) and, when asked, the first
// repetition's recorders for writing timelines.
//
// EstimateMemory says what a run will take from its shape (cohorts ×
// seconds of timeline, clients, kept figures), with constants measured on
// whole processes; CheckMemory (and Options.MaxMemory) refuses a run above
// a limit before it starts. A panic in one of a run's goroutines (a client,
// a simulator worker) stops the run instead of the process: Execute returns
// what was recorded, marked partial, with a *PanicError.
//
// Start gives every cohort (one strategy) its own fresh embedded target on
// 127.0.0.1 and its own swarm, all with the same seed and chaos plan and one
// shared origin on the wall clock, so cohorts differ only by strategy. The
// run stops by itself at the scenario's duration, or early when its context
// is cancelled (the summary is then marked partial). While it runs, Snapshot
// gives cheap running totals for progress displays; Wait returns the summary
// and the per-cohort recorders for writing results. The engine never prints.
//
// With an external target (Plan.TargetURL) no embedded target starts: every
// cohort's swarm sends to that URL, which must be on loopback unless the
// plan allows remote targets (CheckTarget, checked before any traffic). The
// chaos plan is then only the expected fault times the figures are
// measured against.
package engine
