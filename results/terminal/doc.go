// Package terminal draws a run's figures for the terminal, from a Summary
// in memory: the answer a run ends with, in brief (the verdict's sentence,
// RenderVerdict; the comparison's headline columns with the simulator's
// figures in brackets, RenderBrief; the thresholds that failed,
// RenderThresholdsBrief; the repetitions' and tiers' tables held to a
// width, RenderStatsBrief and RenderTiersBrief), the comparison table of
// the cohorts in full
// (RenderTable, its columns the metric table's Table entries), the
// sparklines of attempts
// (RenderSparklines), the repetitions and sweep table (RenderStatsTable),
// thresholds, policies and tiers tables, and the notice of a run cut short
// (PartialNotice). Each renderer writes to the io.Writer it is given; the
// CLI decides what to print.
package terminal
