package terminal

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/herdbench/herdbench/results"
)

// RenderTiers writes, for a chain of tiers, a table of what reached each
// tier of each cohort: attempts, attempts per user request, how the
// callers' requests ended, and how the tier recovered. It writes nothing
// for a single target.
func RenderTiers(w io.Writer, s *results.Summary) error {
	if len(s.Runs) == 0 || len(s.Runs[0].Tiers) == 0 {
		return nil
	}
	fmt.Fprintln(w, "Attempts that reached each tier, per user request (amplif.); success: the callers' requests into the tier.")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\ttier\tattempts\tamplif.\tsuccess\tpeak/s\therd factor\tfailed after fault\trecovery\tbudget denied\t")
	for _, r := range s.Runs {
		for k, t := range r.Tiers {
			name := ""
			if k == 0 {
				name = r.Strategy
			}
			failed, recovery := "–", "–"
			if len(s.Faults) > 0 {
				failed, recovery = fmt.Sprint(t.FailedAfterFault), recoveryText(t.RecoveryS)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\t%d\t%.1f\t%s\t%s\t%d\t\n", name, t.Tier, t.Attempts, t.Amplification,
				results.RatioText(t.SuccessRatio), t.PeakAttemptsPerS, t.HerdFactor, failed, recovery, t.BudgetDenied)
		}
	}
	return tw.Flush()
}
