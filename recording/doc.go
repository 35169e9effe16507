// Package recording records the traffic a standalone target or chaos
// proxy receives, so that a game day with the team's real clients gets the
// same results as a swarm of herdbench's: a 10 ms timeline by outcome and
// attempt number, HDR latency per second, fault windows, the figures of
// the metric table, a results folder that herdbench report and the
// scenario's thresholds read unchanged.
//
// A Recording is the server's target.Observer: the server tells it of
// every request once answered (when it arrived, when its answer ended,
// how, and for the proxy the upstream's time) and of every start of the
// plan's clock, whose t = 0 is the recording's. Each request is one
// attempt, counted at its arrival in its cohort's results.Recorder, the
// swarm's recorder. Cohorts come from the traffic (CohortBy: a header,
// the User-Agent, the source address), the first MaxCohorts keys each a
// cohort, the rest in "other" (cohort.go says why first come). The
// attempt number comes from a header the client sends (AttemptHeader:
// gRPC's grpc-previous-rpc-attempts, the AWS SDKs' amz-sdk-request, or a
// plain number), read strictly; without one it is unknown, and the
// figures that need it (requests, amplification) are null, never guessed
// (results.Run.Unmeasured).
//
// Memory is bounded by the window (Options.Window, 15 minutes by default): a
// results folder covers at most one window, and a recording that lasts
// longer is written one window at a time (segments, each a complete
// results folder at 10 ms; Options.Done writes them), so a day-long plan
// holds one window per cohort, never the day. Snapshot gives the results
// so far without stopping the recording (POST /control/results).
package recording
