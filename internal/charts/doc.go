// Package charts is what herdbench's two pages draw with: charts.js (the
// time-series charts over uPlot, its API at its top), the colours of the
// outcomes and of the cohorts, and the Content-Security-Policy hash of an
// inlined script. The report (results/report) draws a finished run with
// it, the live page (live) a run as it goes, so an outcome has one colour
// and a chart one behaviour in both.
package charts
