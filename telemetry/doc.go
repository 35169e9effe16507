// Package telemetry exports live herdbench processes to Prometheus: the
// standalone target and the chaos proxy (requests by outcome, in flight,
// queue depth, active faults, the plan's clock) and the swarm of a running
// scenario (attempts by cohort, outcome and attempt number, in flight,
// requests). The metric names are a contract, listed in docs/game-day.md.
//
// Each exporter is a prometheus.Collector that reads a snapshot when
// scraped: the hot paths only do the atomic adds they already do, and a
// scrape costs a sum over a few counters. Handler serves them, each process
// on its own registry, never the global one.
package telemetry
