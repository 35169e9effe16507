package terminal

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/herdbench/herdbench/results"
)

// tierColumn is a column of the tiers table: its head and a tier's figure.
type tierColumn struct {
	head string
	text func(s *results.Summary, t *results.Run) string
}

// tierColumns are the tiers table's columns after the strategy and the
// tier, in order.
var tierColumns = []tierColumn{
	{"attempts", func(_ *results.Summary, t *results.Run) string { return fmt.Sprint(t.Attempts) }},
	{"amplif.", func(_ *results.Summary, t *results.Run) string { return fmt.Sprintf("%.2f", t.Amplification) }},
	{"success", func(_ *results.Summary, t *results.Run) string { return results.RatioText(t.SuccessRatio) }},
	{"peak/s", func(_ *results.Summary, t *results.Run) string { return fmt.Sprint(t.PeakAttemptsPerS) }},
	{"herd factor", func(_ *results.Summary, t *results.Run) string { return fmt.Sprintf("%.1f", t.HerdFactor) }},
	{"failed after fault", func(s *results.Summary, t *results.Run) string {
		if len(s.Faults) == 0 {
			return "–"
		}
		return fmt.Sprint(t.FailedAfterFault)
	}},
	{"recovery", func(s *results.Summary, t *results.Run) string {
		if len(s.Faults) == 0 {
			return "–"
		}
		return recoveryText(t.RecoveryS)
	}},
	{"budget denied", func(_ *results.Summary, t *results.Run) string { return fmt.Sprint(t.BudgetDenied) }},
}

// tierDrops are the tiers table's columns to leave out in brief, in
// order, while it is wider than its width.
var tierDrops = []string{"peak/s", "attempts", "herd factor"}

// RenderTiers writes, for a chain of tiers, a table of what reached each
// tier of each cohort: attempts, attempts per user request, how the
// callers' requests ended, and how the tier recovered. It writes nothing
// for a single target.
func RenderTiers(w io.Writer, s *results.Summary) error { return renderTiers(w, s, nil) }

// RenderTiersBrief is RenderTiers with its table at most width columns
// wide where it can be: its peak, attempts and herd factor columns left
// out, in that order, until it fits.
func RenderTiersBrief(w io.Writer, s *results.Summary, width int) error {
	var skip []string
	for _, drop := range tierDrops {
		var b strings.Builder
		if err := renderTiers(&b, s, skip); err != nil {
			return err
		}
		if _, table, _ := strings.Cut(b.String(), "\n"); widest(table) <= width { // the line above it is prose
			break
		}
		skip = append(skip, drop)
	}
	return renderTiers(w, s, skip)
}

// renderTiers writes the tiers table without the columns headed skip.
func renderTiers(w io.Writer, s *results.Summary, skip []string) error {
	if len(s.Runs) == 0 || len(s.Runs[0].Tiers) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "Attempts that reached each tier, per user request (amplif.); success: the callers' requests into the tier."); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "strategy\ttier\t")
	for _, c := range tierColumns {
		if !slices.Contains(skip, c.head) {
			fmt.Fprint(tw, c.head+"\t")
		}
	}
	fmt.Fprintln(tw)
	for _, r := range s.Runs {
		for k := range r.Tiers {
			name := ""
			if k == 0 {
				name = r.Strategy
			}
			fmt.Fprintf(tw, "%s\t%s\t", name, r.Tiers[k].Tier)
			for _, c := range tierColumns {
				if !slices.Contains(skip, c.head) {
					fmt.Fprint(tw, c.text(s, &r.Tiers[k])+"\t")
				}
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}
