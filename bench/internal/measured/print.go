package measured

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Print writes t as a bench's closing summary on a terminal: its title,
// the table with its columns aligned, its notes. It is the same table the
// generated files hold, so what a bench prints and what it records agree.
func (t Table) Print(w io.Writer) error {
	if _, err := fmt.Fprintf(w, "\n%s\n\n", t.Title); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := func(cells []string) {
		for _, c := range cells {
			fmt.Fprintf(tw, "%s\t", c)
		}
		fmt.Fprintln(tw)
	}
	line(t.Columns)
	for _, r := range t.Rows {
		line(r)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i, n := range t.Notes {
		if i == 0 {
			fmt.Fprintln(w)
		}
		if _, err := fmt.Fprintf(w, "- %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

// Finish ends a bench: it prints t to w (Print), writes it as the bench's
// generated files (Write) and says where they went.
func (r *Recorder) Finish(bench string, t Table, w io.Writer) error {
	if err := t.Print(w); err != nil {
		return err
	}
	md, err := r.Write(bench, t)
	if md != "" {
		fmt.Fprintln(w, "figures:", md)
	}
	return err
}
