// Package results records what a run did and turns it into figures.
//
// A Recorder belongs to one cohort. Clients record through a Shard (one per
// group of clients, so recording never contends on one lock): every attempt
// with its send time, latency, attempt number and Outcome, and every logical
// request with its intended start and end. The Recorder keeps HDR histograms
// of attempt and request latency per shard, merged at the end, and a timeline
// of counts in 10 ms buckets updated with atomic adds; coarser timelines are
// sums of it. It also keeps the latencies second by second (interval.go):
// each shard records the current second into dense histograms it reuses and
// moves a finished second into a packed per-second histogram (Intervals), so
// a run's HdrHistogram interval logs cost no lock or allocation on the
// recording path. The recorder writes no file.
//
// The metrics (amplification, herd factor, recovery, ...) are pure functions
// of timelines and fault windows, defined in metrics.go exactly as the
// summary documents them. The metric table (run.go, read through
// LookupMetric and Metrics) defines every figure of a cohort once: its name
// in summary.json, unit, meaning, how it combines over repetitions and
// shards, and how it shows; stats, sweep.csv, thresholds and the renderers
// read it. Summarize turns a recorder into a cohort's Run; Restore and
// MergeRun compute a split run's figures from its shards' sums; Explain says
// in words what the figures of a Summary mean.
//
// Thresholds (thresholds.go) are release gates on a run's figures, written
// "metric op value" (or "mean(metric) op value") with the metric named as in
// summary.json; they are checked against a Summary, over every repetition,
// and recorded in it.
//
// The results folder on disk (writing, staging, reading back, the file
// formats) is the subpackage folder; the terminal's tables are the
// subpackage terminal; the HTML report and PNG charts, drawn from a folder,
// are the subpackage report. Nothing here prints on its own.
package results
