// Package report turns saved results folders into the report people look at:
// report.html (one self-contained file, no network) and PNG copies of its
// charts.
//
// It renders only from what a run saved on disk: summary.json,
// timeline.csv (10 ms), one HdrHistogram interval log per cohort (.hlog) and
// scenario.yaml. Load reads a folder into a Run; Render turns one Run, or
// several to overlay (before/after a configuration change), into files.
// So `herdbench report DIR` re-renders exactly what a run renders at its
// end, and a results folder from another machine renders the same.
//
// Each chart over time (and each of a sweep's figures against its fields)
// is defined once, as data (spec.go: its title, caption, panels, series,
// colours, stacked layers and fault bands), and drawn by two renderers:
// gonum.org/v1/plot for the PNGs (spec.chart), and uPlot in the page
// (internal/uplot) through charts.js (internal/charts, shared with the live
// page), which reads the spec as JSON with its counts (interactive.go: the
// timelines at 10 ms, run-length encoded), so a reader zooms into single
// buckets; the page inlines both scripts and allows them by hash in its
// Content-Security-Policy. The other charts (latency percentiles, heat
// maps) are drawn with gonum/plot alone, as PNG and as SVG inlined in the
// page.
//
// The page's first screen is the answer: a real run's verdict in a
// sentence and the attempts chart zoomed on the first fault, in bins
// narrow enough for synchronized retries to stand out; the tables come
// after it. The comparison table is generic: it flattens every field of
// each cohort's entry in summary.json, so a metric added to the summary
// shows up without a change here.
package report
