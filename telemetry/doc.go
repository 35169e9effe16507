// Package telemetry exports live herdbench processes to Prometheus and, over
// OTLP/HTTP, to OpenTelemetry: the standalone target and the chaos proxy
// (requests by outcome, in flight, queue depth, active faults, the plan's
// clock, request latency) and the swarm of a running scenario (attempts by
// cohort, outcome and attempt number, their latency, in flight, requests).
// The metric names are a contract, listed in docs/game-day.md (Prometheus)
// and docs/observability.md (OpenTelemetry).
//
// Counters are collectors that read a snapshot when scraped or exported:
// the hot paths only do the atomic adds they already do. Latency is
// recorded as each attempt or request ends, into Prometheus histograms
// (classic buckets and native ones, lock-free): Swarm.Cohort is the
// results.Observer of a cohort's recorder, Server the target.Observer of a
// server. With an Exporter (StartOTLP), each attribute set of the OTLP
// histograms has a native histogram of its own, converted into an
// OpenTelemetry exponential histogram at each export (expo.go), so that
// the SDK's locks stay off the hot path. Handler serves the Prometheus
// side, each process on its own registry, never the global one.
package telemetry
