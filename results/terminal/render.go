package terminal

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/herdbench/herdbench/results"
)

// tableColumns are the metrics of the comparison table (those with a
// Table column), in their columns' order.
var tableColumns = sync.OnceValue(func() []results.Metric {
	var out []results.Metric
	for _, m := range results.Metrics() {
		if m.Table != nil {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b results.Metric) int { return a.Table.At - b.Table.At })
	return out
})

// RenderTable writes the comparison table: one row per cohort, a column
// per metric with a Table column, and under a cohort that has the
// simulator's figures (runs[].sim) their row.
func RenderTable(w io.Writer, s *results.Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "strategy\t")
	cols := shownColumns(s)
	for _, m := range cols {
		fmt.Fprint(tw, m.Table.Head+"\t")
	}
	fmt.Fprintln(tw)
	cell := func(m results.Metric, v float64, ok bool) string { return cellText(s, m, v, ok) }
	for _, r := range s.Runs {
		fmt.Fprint(tw, r.Strategy+"\t")
		for _, m := range cols {
			text := "?" // a recording's figures its traffic cannot tell
			if !r.IsUnmeasured(m.Name) {
				v, ok := m.Value(&r)
				text = cell(m, v, ok)
			}
			fmt.Fprint(tw, text+"\t")
		}
		fmt.Fprintln(tw)
		if r.Sim == nil {
			continue
		}
		// The simulator's figures for the same seed, right under the real
		// ones.
		label := "(sim)"
		if s.Repetitions > 1 {
			label = "(sim mean)" // over the same seeds; the row above is the first repetition
		}
		simRow := func(label string, f results.Values) {
			fmt.Fprint(tw, label+"\t")
			for _, m := range cols {
				text := ""
				if m.Shows&results.InSim != 0 {
					v, ok := f.Get(m.Name)
					text = cell(m, v, ok)
				}
				fmt.Fprint(tw, text+"\t")
			}
			fmt.Fprintln(tw)
		}
		simRow(label, r.Sim)
		if r.SimLate != nil {
			// And with this run's own lateness (the model's second opinion).
			simRow("(sim, late)", r.SimLate)
		}
	}
	return tw.Flush()
}

// shownColumns are the comparison table's columns for s: a Nonzero one only
// when some cohort's figure (or its simulator's) is above 0.
func shownColumns(s *results.Summary) []results.Metric {
	var out []results.Metric
	for _, m := range tableColumns() {
		show := !m.Table.Nonzero
		for i := 0; i < len(s.Runs) && !show; i++ {
			r := &s.Runs[i]
			v, ok := m.Value(r)
			sv, sok := r.Sim.Get(m.Name)
			show = ok && v > 0 || sok && sv > 0
		}
		if show {
			out = append(out, m)
		}
	}
	return out
}

func recoveryText(r *float64) string {
	if r == nil {
		return "never"
	}
	return fmt.Sprintf("%.2fs", *r)
}

var sparks = []rune("▁▂▃▄▅▆▇█")

// RenderSparklines writes one sparkline per cohort of its attempts over the
// run, on a shared scale, about width columns wide, with a row marking the
// fault windows underneath.
func RenderSparklines(w io.Writer, s *results.Summary, timelines []results.Timeline, width int) error {
	if len(timelines) == 0 || len(timelines[0].Rows) == 0 {
		return nil
	}
	fine := timelines[0].Resolution
	rows := 0 // cohorts that stopped early (oneshot) have shorter timelines
	for _, t := range timelines {
		rows = max(rows, len(t.Rows))
	}
	per := max(1, (rows+width-1)/width)
	bins := (rows + per - 1) / per
	res := time.Duration(per) * fine
	cols := make([][]int64, len(timelines))
	var top int64
	for i, t := range timelines {
		a := t.Attempts()
		for b := 0; b < len(a); b += per {
			var sum int64
			for _, v := range a[b:min(b+per, len(a))] {
				sum += v
			}
			cols[i] = append(cols[i], sum)
			top = max(top, sum)
		}
	}
	nameW := len("faults")
	for _, r := range s.Runs {
		nameW = max(nameW, len(r.Strategy))
	}
	var legend []string
	for _, f := range s.Faults {
		legend = append(legend, fmt.Sprintf("%s %s–%ss", f.Name, trimFloat(f.AtS), trimFloat(f.AtS+f.ForS)))
	}
	// The faults' names go on the head line where they fit within the
	// sparklines' width, else on a line of their own under the faults' row.
	head := fmt.Sprintf("attempts per %s, one scale for all (tallest = %d)", res, top)
	if withNames := head + "; faults ▀: " + strings.Join(legend, ", "); len(legend) > 0 && utf8.RuneCountInString(withNames) <= nameW+1+bins {
		head, legend = withNames, nil
	}
	if _, err := fmt.Fprintln(w, head); err != nil {
		return err
	}
	for i, r := range s.Runs {
		var b strings.Builder
		for _, v := range cols[i] {
			if v == 0 {
				b.WriteRune(' ')
				continue
			}
			b.WriteRune(sparks[min(len(sparks)-1, int(float64(v)/float64(top)*float64(len(sparks)-1)+0.5))])
		}
		if _, err := fmt.Fprintf(w, "%-*s %s\n", nameW, r.Strategy, b.String()); err != nil {
			return err
		}
	}
	if len(s.Faults) == 0 {
		return nil
	}
	var b strings.Builder
	for c := range bins {
		t0, t1 := (time.Duration(c) * res).Seconds(), (time.Duration(c+1) * res).Seconds()
		mark := '·'
		for _, f := range s.Faults {
			if f.AtS < t1 && f.AtS+f.ForS > t0 {
				mark = '▀'
			}
		}
		b.WriteRune(mark)
	}
	if _, err := fmt.Fprintf(w, "%-*s %s\n", nameW, "faults", b.String()); err != nil || len(legend) == 0 {
		return err
	}
	_, err := fmt.Fprintf(w, "%-*s %s\n", nameW, "", strings.Join(legend, ", "))
	return err
}

func trimFloat(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// PartialNotice returns the line that says an interrupted run's figures
// are partial, or "" for a complete run.
func PartialNotice(s *results.Summary) string {
	if !s.Partial {
		return ""
	}
	at := "before its end"
	if s.EndedS != nil {
		at = fmt.Sprintf("at %.1fs of %gs", *s.EndedS, s.DurationS)
	}
	return "PARTIAL: the run was interrupted " + at + "; every figure below covers only what was recorded until then."
}
