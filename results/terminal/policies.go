package terminal

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/herdbench/herdbench/results"
)

// RenderPolicies writes what the client policies and the target's wasted
// work did, one row per cohort, then a blank line; nothing when no cohort
// had any.
func RenderPolicies(w io.Writer, s *results.Summary) error {
	some := false
	for _, r := range s.Runs {
		some = some || r.BudgetDenied+r.BreakerRejected+r.Throttled+r.MaxOpenBreakers+r.WastedWork > 0
	}
	if !some {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\tbudget denied\tbreaker refused\tthrottled\tmost open breakers\twasted work\t")
	for _, r := range s.Runs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t\n", r.Strategy, r.BudgetDenied, r.BreakerRejected, r.Throttled, r.MaxOpenBreakers, r.WastedWork)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}
