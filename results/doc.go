// Package results records what a run did and turns it into figures and files.
//
// A Recorder belongs to one cohort. Clients record through a Shard (one per
// group of clients, so recording never contends on one lock): every attempt
// with its send time, latency, attempt number and Outcome, and every logical
// request with its intended start and end. The Recorder keeps HDR histograms
// of attempt and request latency per shard, merged at the end, and a timeline
// of counts in 10 ms buckets updated with atomic adds; coarser timelines are
// sums of it.
//
// The metrics (amplification, herd factor, recovery, ...) are pure functions
// of timelines and fault windows, defined in metrics.go exactly as the
// summary documents them. Summarize turns recorders into a Summary; writers
// put a Summary and its timelines on disk atomically; renderers draw the
// terminal table and sparklines. Nothing here prints on its own.
//
// Thresholds (thresholds.go) are release gates on a run's figures, written
// "metric op value" with the metric named as in summary.json; they are
// checked against a Summary and recorded in it.
package results
