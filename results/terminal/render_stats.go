package terminal

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/herdbench/herdbench/results"
)

// statColumns are the metrics of the repetitions table (those with a
// Column), in their columns' order; a column shows only when some cohort
// has the figure.
var statColumns = sync.OnceValue(func() []results.Metric {
	var out []results.Metric
	for _, m := range results.Metrics() {
		if m.Column != nil {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b results.Metric) int { return a.Column.At - b.Column.At })
	return out
})

// RenderStatsTable writes the table of a run with repetitions: one row per
// cohort (per point and cohort for a sweep, with a column per swept
// field), each figure as "mean ± sd" over the repetitions. Runs without
// Stats show their own figures.
func RenderStatsTable(w io.Writer, summaries []*results.Summary) error {
	return renderStats(w, summaries, nil)
}

// statsDrops are the repetitions table's columns to leave out, in order,
// while it is wider than its width in brief.
var statsDrops = []string{"latency_ms.request.p50", "attempts", "latency_ms.request.p99", "success_ratio"}

// RenderStatsBrief writes the repetitions (or sweep) table at most width
// columns wide where it can be: RenderStatsTable, leaving out its columns
// of latency, attempts and success, in that order, until it fits.
func RenderStatsBrief(w io.Writer, summaries []*results.Summary, width int) error {
	var skip []string
	for _, drop := range statsDrops {
		var b strings.Builder
		if err := renderStats(&b, summaries, skip); err != nil {
			return err
		}
		if widest(b.String()) <= width {
			break
		}
		skip = append(skip, drop)
	}
	return renderStats(w, summaries, skip)
}

// renderStats writes the repetitions table without the columns of the
// metrics named in skip.
func renderStats(w io.Writer, summaries []*results.Summary, skip []string) error {
	var fields []string
	if len(summaries) > 0 {
		for _, st := range summaries[0].Point {
			fields = append(fields, st.Field)
		}
	}
	cols := statColumns()
	show := make([]bool, len(cols))
	for _, s := range summaries {
		for _, r := range s.Runs {
			st := statsOf(r)
			for i, c := range cols {
				if st[c.Name].N > 0 && (!c.Column.Faults || len(s.Faults) > 0) && (!c.Column.Nonzero || st[c.Name].Mean > 0) && !slices.Contains(skip, c.Name) {
					show[i] = true
				}
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, f := range fields {
		fmt.Fprint(tw, f+"\t")
	}
	fmt.Fprint(tw, "strategy\truns\t")
	for i, c := range cols {
		if show[i] {
			fmt.Fprint(tw, c.Column.Head+"\t")
		}
	}
	fmt.Fprintln(tw)
	for _, s := range summaries {
		for _, r := range s.Runs {
			st := statsOf(r)
			for _, st := range s.Point {
				fmt.Fprint(tw, st.Value+"\t")
			}
			fmt.Fprintf(tw, "%s\t%d\t", r.Strategy, max(1, s.Repetitions))
			for i, c := range cols {
				if !show[i] {
					continue
				}
				v, text := st[c.Name], c.Column.Text
				switch {
				case v.N == 0:
					fmt.Fprint(tw, "-\t")
				case v.N == 1 && c.Unit == results.Count:
					// One run's count is a whole number, not a mean.
					fmt.Fprintf(tw, "%.0f\t", v.Mean)
				case v.N == 1:
					fmt.Fprint(tw, text(v.Mean)+"\t")
				default:
					fmt.Fprintf(tw, "%s ± %s\t", text(v.Mean), text(v.SD))
				}
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// statsOf returns r's Stats, or Stats made of r's own figures.
func statsOf(r results.Run) map[string]results.Stat {
	if r.Stats != nil {
		return r.Stats
	}
	return results.Aggregate([]results.Run{r}).Stats
}
