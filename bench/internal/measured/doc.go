// Package measured is how the bench commands keep their figures: each
// writes its results as a generated file under docs/measured/ (NAME.json,
// the data, and NAME.md, the same as a table), stamped with the date, the
// machine, the load average before and after, the commit and the exact
// command, so prose links to a figure instead of restating it and a
// re-run replaces it whole. docs/performance.md's current table is
// rendered from those files (Section, Sync), and TestPerformancePageIsCurrent
// keeps it equal to them.
package measured
