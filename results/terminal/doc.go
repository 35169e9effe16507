// Package terminal draws a run's figures for the terminal, from a Summary
// in memory: the comparison table of the cohorts (RenderTable, its columns
// the metric table's Table entries), the sparklines of attempts
// (RenderSparklines), the repetitions and sweep table (RenderStatsTable),
// thresholds, policies and tiers tables, and the notice of a run cut short
// (PartialNotice). Each renderer writes to the io.Writer it is given; the
// CLI decides what to print.
package terminal
