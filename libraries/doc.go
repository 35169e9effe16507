// Package libraries runs real Go retry libraries as herdtest cohorts, each
// configured as its README or documentation says, at the versions go.mod
// pins: hashicorp/go-retryablehttp, cenkalti/backoff v4 and v5, the AWS
// SDK for Go v2's retry.NewStandard and retry.NewAdaptiveMode,
// failsafe-go's RetryPolicy (its defaults, and with the backoff and jitter
// its docs show), avast/retry-go v4, sethvargo/go-retry's Fibonacci, and
// grpc-go's service-config retries
// (examples/features/retry's policy, and gRFC A6's with throttling, the
// grpc preset's design), whose cohorts run the storms over gRPC.
//
// Each library is one file with its cohort constructor. Every constructor
// takes the per-attempt timeout, the one setting every user of these
// libraries must add: none of them has a timeout by default, so against a
// blackholed service an attempt would wait for ever. Every request is a
// POST with an empty body to the target, retried on what the library
// retries by default (a library that leaves the decision to its user
// retries a transport error, a 5xx and a 429, the rule every README
// shows).
//
// It is a module of its own, so herdbench does not depend on these
// libraries. TestLibraryTable prints their figures under the built-in
// outage and metastable scenarios (over gRPC for grpc-go: grpc-outage and
// metastable with target.protocol grpc); TestPresetsMatchTheirLibraries
// keeps each herdbench preset named for a Go library (aws-sdk-go-v2-standard,
// grpc, go-retryablehttp, cenkalti-backoff-v4 and -v5,
// sethvargo-go-retry-fibonacci) within bands of that library's storm, and
// TestPresetWaitsAreTheLibrarys holds their waits to the library's own.
package libraries
