package results

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
)

// statColumns are the figures of the repetitions table, in order; a column
// shows only when some cohort has the figure.
var statColumns = []struct {
	metric, head string
	format       func(v float64) string
}{
	{"calls", "calls", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }},
	{"completion_s", "completion", func(v float64) string { return msText(v * 1000) }},
	{"peak_calls_per_10ms", "wave peak/10ms", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }},
	{"attempts", "attempts", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }},
	{"amplification", "amplif.", func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }},
	{"success_ratio", "success", func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }},
	{"herd_factor", "herd factor", func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }},
	{"recovery_s", "recovery", func(v float64) string { return fmt.Sprintf("%.2fs", v) }},
	{"latency_ms.request.p50", "req p50", msText},
	{"latency_ms.request.p99", "req p99", msText},
}

// RenderStatsTable writes the table of a run with repetitions: one row per
// cohort (per client count and cohort for a sweep), each figure as
// "mean ± sd" over the repetitions. Runs without Stats show their own
// figures.
func RenderStatsTable(w io.Writer, summaries []*Summary) error {
	sweep := len(summaries) > 1
	show := make([]bool, len(statColumns))
	for _, s := range summaries {
		for _, r := range s.Runs {
			st := statsOf(r)
			for i, c := range statColumns {
				if st[c.metric].N > 0 {
					show[i] = true
				}
			}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if sweep {
		fmt.Fprint(tw, "clients\t")
	}
	fmt.Fprint(tw, "strategy\truns\t")
	for i, c := range statColumns {
		if show[i] {
			fmt.Fprint(tw, c.head+"\t")
		}
	}
	fmt.Fprintln(tw)
	for _, s := range summaries {
		for _, r := range s.Runs {
			st := statsOf(r)
			if sweep {
				fmt.Fprintf(tw, "%d\t", s.Clients)
			}
			fmt.Fprintf(tw, "%s\t%d\t", r.Strategy, max(1, s.Repetitions))
			for i, c := range statColumns {
				if !show[i] {
					continue
				}
				v := st[c.metric]
				switch {
				case v.N == 0:
					fmt.Fprint(tw, "-\t")
				case v.N == 1:
					fmt.Fprint(tw, c.format(v.Mean)+"\t")
				default:
					fmt.Fprintf(tw, "%s ± %s\t", c.format(v.Mean), c.format(v.SD))
				}
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// statsOf returns r's Stats, or Stats made of r's own figures.
func statsOf(r Run) map[string]Stat {
	if r.Stats != nil {
		return r.Stats
	}
	return Aggregate([]Run{r}).Stats
}
