package terminal

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/herdbench/herdbench/cliff"
)

// RenderCliff writes what a cliff search found (cliff.json's contents): a
// row per strategy (and line of a second field) with its boundary and 95%
// interval, the band in which some seeds recovered and others did not,
// and for budget sizing what the safe setting costs; then the runs it
// took against a brute-force sweep's, the point of no return, and the
// real runs that confirm it.
func RenderCliff(w io.Writer, d *cliff.Document) error {
	if s := d.Search; s != nil {
		if err := renderSearch(w, s); err != nil {
			return err
		}
	}
	if nr := d.NoReturn; nr != nil {
		renderNoReturn(w, nr)
	}
	if len(d.Confirm) > 0 {
		renderConfirm(w, d.Confirm)
	}
	if d.Partial {
		fmt.Fprintln(w, "interrupted: what is above is what the runs made so far found; lines marked unfinished have seeds whose edge is not yet known")
	}
	return nil
}

func renderSearch(w io.Writer, s *cliff.Summary) error {
	x := s.X
	fmt.Fprintf(w, "where each strategy stops recovering, over %s from %s to %s by %s", x.Path, x.Format(x.Lo), x.Format(x.Hi), x.Format(x.Step))
	if s.Y != nil {
		fmt.Fprintf(w, ", at each traced value of %s", s.Y.Path)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "strategy\t"
	if s.Y != nil {
		head += s.Y.Path + "\t"
	}
	head += "boundary\t95% interval\tevery seed recovers\tevery seed collapses\tseeds\t"
	cost := false
	for _, st := range s.Strategies {
		for _, l := range st.Lines {
			cost = cost || l.Cost != nil
		}
	}
	if cost {
		head += "success during fault: safe / lo / hi\t"
	}
	fmt.Fprintln(tw, head)
	for _, st := range s.Strategies {
		for _, l := range st.Lines {
			row := st.Name + "\t"
			if s.Y != nil && l.Y != nil {
				row += s.Y.Format(*l.Y) + "\t"
			}
			row += strings.Join(boundaryCells(x, l), "\t") + "\t"
			if cost {
				row += costCell(x, l.Cost) + "\t"
			}
			fmt.Fprintln(tw, row)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d simulated runs; a --set sweep over the same grid, strategies and seeds makes %d (%.1f%%)\n\n",
		s.Runs, s.GridRuns, 100*float64(s.Runs)/float64(max(1, s.GridRuns)))
	return nil
}

// boundaryCells are a line's boundary, interval, band edges and seeds.
func boundaryCells(x cliff.Axis, l cliff.Line) []string {
	if !l.Complete {
		return []string{"unfinished", "", "", "", fmt.Sprint(l.Seeds)}
	}
	t := l.Texts(x)
	return []string{t.Median, t.Interval, cmp.Or(t.Recovers, "no value"), cmp.Or(t.Collapses, "no value"), t.Seeds}
}

func costCell(x cliff.Axis, c *cliff.Cost) string {
	if c == nil {
		return "—"
	}
	pct := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return fmt.Sprintf("%.1f%%", 100**v)
	}
	return fmt.Sprintf("at %s %s / %s / %s", x.Format(c.Safe), pct(c.AtSafe), pct(c.AtLow), pct(c.AtHigh))
}

func renderNoReturn(w io.Writer, nr *cliff.NoReturnRun) {
	fmt.Fprintf(w, "point of no return of %s's run (seed %d; the fault from %s to %s), %d continuations an instant with fresh randomness and the trigger removed:\n",
		nr.Strategy, nr.Seed, secs(nr.FaultStart), secs(nr.FaultEnd), nr.Continuations)
	switch {
	case !nr.Found:
		fmt.Fprintln(w, "  none: even from the last instant probed, collapse is not 95% certain")
	default:
		lo, hi := secs(nr.Low), secs(nr.High)
		if nr.LowOpen {
			lo = "at or before " + lo
		}
		if nr.HighOpen {
			hi = "after " + hi
		}
		fmt.Fprintf(w, "  collapse is 95%% certain from %s on (%s after the fault began); between %s and %s\n",
			secs(nr.Instant), secs(nr.Instant-nr.FaultStart), lo, hi)
	}
	fmt.Fprintf(w, "  %d instants probed:", len(nr.Points))
	for _, p := range nr.Points {
		fmt.Fprintf(w, " %s %d/%d", secs(p.At), p.Collapsed, p.Runs)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
}

func renderConfirm(w io.Writer, cs []cliff.Confirmation) {
	fmt.Fprintln(w, "on sockets, either side of each boundary (seed 0's run, alone):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range cs {
		got := "collapsed"
		if c.RecoveryS != nil {
			got = fmt.Sprintf("recovered in %.2f s", *c.RecoveryS)
		}
		mark := "landed on its side"
		switch {
		case c.Flagged():
			mark = "NOT on its side, and flagged by its verdict"
		case !c.Landed:
			mark = "NOT on its side"
		}
		fmt.Fprintf(tw, "  %s\tat %s\texpected %s\t%s\t%s\tverdict: %s\t\n", c.Strategy, c.Text, c.Expect, got, mark, c.Verdict)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
}

func secs(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".") + " s"
}
