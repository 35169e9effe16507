// Package herdtest puts your own client code in herdbench's storm, from a
// Go test.
//
// A cohort is a function that performs one logical request with your
// client library: go-retryablehttp, cenkalti/backoff, the AWS SDK's retryer,
// your own. herdtest gives it a ready *http.Client (and its transport and
// dialer) that reaches herdbench's fault-injecting target, runs as many
// clients of it as the scenario says in a closed loop (under an open
// workload, one client serving every arrival, as one process serves its
// callers), applies the scenario's chaos plan to the target, and returns
// the same figures as `herdbench scenario` does (results.Summary: herd factor, failures after
// the fault, recovery, amplification, latency). The scenario's thresholds,
// and the cohort's own, fail the test; a failing run's results folder and
// report are written and their path logged.
//
// Attempts are counted where they leave your client: every round trip of
// the *http.Client herdtest hands over is one attempt, numbered within its
// logical request. A request is one call of the cohort's function: nil
// means it succeeded, an error that it gave up.
//
// # Two modes
//
// Virtual (the default) runs everything inside a testing/synctest bubble
// over an in-memory network: your library's time.Sleep, timers and
// context deadlines follow the bubble's clock, so a 15 s outage of 500
// clients takes a few seconds of wall time and the waves are as sharp as
// the model's. Real runs the same cohorts on the wall clock over loopback
// (127.0.0.1), the same API.
//
// Virtual time can run code that only uses the time package, goroutines,
// channels, mutexes and the connections herdtest hands over. It cannot run
// code that uses real sockets (http.DefaultClient, a transport of its own,
// a DNS lookup), a timer or goroutine made outside the test, or that waits
// on another process: such a wait is invisible to the bubble's clock.
// herdtest watches the bubble from outside: when virtual time stands still
// for Options.Stall of wall time while the run is unfinished, it stops the
// test and says why, instead of hanging.
package herdtest
