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
// Each chart is a small function from Runs to a drawing made with
// gonum.org/v1/plot, written as PNG and, for the charts that are not time
// series, as SVG inlined in the HTML. The time series (and a sweep's
// figures against its fields) are drawn in the browser instead, by uPlot
// (internal/uplot) through charts.js (internal/charts, shared with the live page), from the page's embedded data
// (interactive.go: the timelines at 10 ms, run-length encoded), so a reader
// zooms into single buckets; the page inlines both scripts and allows them
// by hash in its Content-Security-Policy. charts.js's API (at its top) takes
// data in and draws charts, for any page that shows timelines. The
// comparison table is generic: it flattens every field of each
// cohort's entry in summary.json, so a metric added to the summary shows up
// without a change here.
package report
