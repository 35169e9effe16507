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
// # Over gRPC
//
// When the scenario's target speaks gRPC (target.protocol: grpc, as in
// the grpc-outage built-in, or Options.Set "target.protocol=grpc" for an
// HTTP scenario's storm), a request is one logical RPC with your grpc-go
// code: Client.GRPC is a ready *grpc.ClientConn to the target, and
// Client.DialGRPC makes one with your dial options (a service config with
// grpc.WithDefaultServiceConfig: grpc-go's own retries and throttling
// decide). Every attempt a channel sends, grpc-go's retries included, is
// recorded from a stats handler on it; a transparent retry, which never
// reached the server, is not. Channels made in New are connected before
// t = 0; herdtest closes them at the end.
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
// test and says why, instead of hanging. Goroutines of the cohorts' code
// still in the bubble when the run is over (a request that never returns,
// a library's background refresher) fail the test, and the package's
// later tests still run; stop what a client starts with Client.Cleanup.
//
// Of grpc-go, everything a channel made by DialGRPC (or GRPC) runs is
// inside the bubble: its resolver (passthrough), balancer and transport
// goroutines, its retry backoff and throttling, its reconnect backoff,
// keepalive pings and idle timer all follow the bubble's clock, over the
// in-memory network. A channel made outside the test (a package's, in
// TestMain) is refused by the Go runtime on its first call from inside
// (fatal error: send on synctest channel from outside bubble, in
// grpc-go's resolver_wrapper.go); one made inside with grpc.NewClient and
// not DialGRPC reaches the host's network (a dns:/// target resolves
// there) and is reported when its requests end without one recorded
// attempt.
package herdtest
