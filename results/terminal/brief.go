package terminal

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/herdbench/herdbench/results"
)

// The brief renderers draw the answer a run ends with, in few lines: the
// verdict, the comparison table's headline columns with the simulator's
// figures beside the run's, and the thresholds that failed. The full
// tables (RenderTable, RenderThresholds) say the rest.

// briefColumns are the brief table's metrics: the figures a verdict and a
// reader compare first.
var briefColumns = []string{"success_ratio", "amplification", "peak_attempts_per_s", "herd_factor",
	"failed_after_fault", "recovery_s", "latency_ms.request.p99"}

// briefDrops are the brief table's columns to leave out, in order, while
// it is wider than its width: the waves' figures stay.
var briefDrops = []string{"latency_ms.request.p99", "peak_attempts_per_s", "amplification", "success_ratio"}

// RenderBrief writes the comparison table in brief, at most width columns
// wide where it can be: one row per cohort, the headline columns, and
// beside each figure the simulator has for the same plan and seed
// (runs[].sim), that figure in brackets; the first column's head says
// "(sim)" then. The full table (RenderTable) has every column and the
// (sim, late) rows.
func RenderBrief(w io.Writer, s *results.Summary, width int) error {
	names := briefColumns
	for _, drop := range briefDrops {
		var b strings.Builder
		if err := renderBrief(&b, s, names); err != nil {
			return err
		}
		if widest(b.String()) <= width {
			break
		}
		names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == drop })
	}
	return renderBrief(w, s, names)
}

// widest is the width of text's widest line, in columns.
func widest(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		n = max(n, utf8.RuneCountInString(l))
	}
	return n
}

// renderBrief writes the brief table of the metrics names.
func renderBrief(w io.Writer, s *results.Summary, names []string) error {
	var cols []results.Metric
	for _, name := range names {
		if m, ok := results.LookupMetric(name); ok && m.Table != nil {
			cols = append(cols, m)
		}
	}
	withSim := false
	for i := range s.Runs {
		withSim = withSim || s.Runs[i].Sim != nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "strategy"
	if withSim {
		head = "strategy (sim)"
		if s.Repetitions > 1 {
			head = "strategy (sim mean)"
		}
	}
	fmt.Fprint(tw, head+"\t")
	for _, m := range cols {
		fmt.Fprint(tw, m.Table.Head+"\t")
	}
	fmt.Fprintln(tw)
	for i := range s.Runs {
		r := &s.Runs[i]
		fmt.Fprint(tw, r.Strategy+"\t")
		for _, m := range cols {
			text := "?" // a recording's figures its traffic cannot tell
			if !r.IsUnmeasured(m.Name) {
				v, ok := m.Value(r)
				text = cellText(s, m, v, ok)
			}
			if r.Sim != nil && m.Shows&results.InSim != 0 {
				v, ok := r.Sim.Get(m.Name)
				text += " (" + cellText(s, m, v, ok) + ")"
			}
			fmt.Fprint(tw, text+"\t")
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// cellText writes a figure of the comparison table in its column's form.
func cellText(s *results.Summary, m results.Metric, v float64, ok bool) string {
	switch {
	case m.Table.Faults && len(s.Faults) == 0:
		return "–" // without faults there is nothing to fail after or recover from
	case !ok:
		return m.Table.Missing
	}
	return m.Table.Text(v)
}

// RenderVerdict writes a real run's verdict (summary.json's "verdict"), its
// sentence wrapped at width columns, prefixed by lead (a sweep's point);
// nothing for a run without one (virtual time).
func RenderVerdict(w io.Writer, s *results.Summary, lead string, width int) error {
	if s.Verdict == nil || s.Verdict.Sentence == "" {
		return nil
	}
	for _, line := range Wrap(lead+s.Verdict.Sentence, width) {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// Wrap breaks text into lines of at most width columns at spaces; a word
// longer than width gets a line of its own.
func Wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// RenderThresholdsBrief writes the checks in brief: "thresholds: all 3
// passed" in one line, or the count that failed and a row for each of
// those alone. RenderThresholds writes every check.
func RenderThresholdsBrief(w io.Writer, rs []results.ThresholdResult) error {
	if len(rs) == 0 {
		return nil
	}
	if results.ThresholdsFailed(rs) == 0 {
		_, err := fmt.Fprintf(w, "thresholds: all %d passed\n", len(rs))
		return err
	}
	var failed []results.ThresholdResult
	for _, r := range rs {
		if !r.Pass {
			failed = append(failed, r)
		}
	}
	if _, err := fmt.Fprintf(w, "thresholds: %d of %d FAILED\n", len(failed), len(rs)); err != nil {
		return err
	}
	return thresholdRows(w, failed)
}
