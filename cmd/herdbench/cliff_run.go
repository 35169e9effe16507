package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/cliff/drive"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/report"
	"github.com/herdbench/herdbench/results/terminal"
	"github.com/herdbench/herdbench/seeds"
)

// cliffOutcome is what a cliff command found, for its results folder.
type cliffOutcome struct {
	*cliff.Document
	results  []cliff.Result
	confirms []*results.Summary
}

// run makes the runs the job asks for; its error is the first that
// stopped them (the context's on an interrupt), what was found kept.
func (j *cliffJob) run(ctx context.Context, stderr io.Writer) (*cliffOutcome, error) {
	p := j.op.Plans[0]
	out := &cliffOutcome{Document: &cliff.Document{Scenario: p.Name, Description: p.Description, Version: herdbenchVersion(),
		Started: time.Now().UTC().Truncate(time.Millisecond), Seed: j.op.Seed, Set: j.f.set, Criterion: cliff.Criterion}}
	if j.search != nil {
		if err := j.runSearch(ctx, out, stderr); err != nil {
			return out, err
		}
		if j.f.confirm {
			if err := j.runConfirm(ctx, out, stderr); err != nil {
				return out, err
			}
		}
	}
	if j.nr != nil {
		if err := j.runNoReturn(ctx, out, stderr); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (j *cliffJob) runSearch(ctx context.Context, out *cliffOutcome, stderr io.Writer) error {
	bar := newCountBar(stderr, "cliff search: simulated runs")
	j.search.Progress = func(done, left int) { bar.set(done, done+left) }
	rs, err := j.search.Run(ctx, nil)
	bar.stop()
	out.results = rs
	sum := cliff.Summarize(j.search.Spec, rs)
	out.Search = &sum
	if err != nil {
		out.Partial = ctx.Err() != nil
		return err
	}
	return nil
}

func (j *cliffJob) runConfirm(ctx context.Context, out *cliffOutcome, stderr io.Writer) error {
	sides := drive.Sides(*out.Search)
	if len(sides) == 0 {
		fmt.Fprintln(stderr, "herdbench cliff: --confirm: no strategy's boundary is inside the range: nothing to confirm on sockets")
		return nil
	}
	cf := &drive.Confirm{Search: j.search, Options: engine.Options{Mode: engine.Mode{SlowMotion: slowmo.Factor(j.f.slow)}, Version: herdbenchVersion()}, Before: func(c cliff.Confirmation) {
		fmt.Fprintf(stderr, "on sockets: %s at %s=%s (the search says: %s), %s of wall time\n", c.Strategy, j.search.Spec.X.Path, c.Text, c.Expect,
			slowmo.Factor(j.f.slow).Wall(j.op.Plans[0].Duration))
	}}
	cs, sums, err := cf.Run(ctx, sides)
	for i := range cs {
		cs[i].Summary = confirmName(cs[i])
	}
	out.Confirm, out.confirms = cs, sums
	if err != nil {
		out.Partial = ctx.Err() != nil
	}
	return err
}

// confirmName is the file beside cliff.json that holds a real run's
// summary.
func confirmName(c cliff.Confirmation) string {
	return fmt.Sprintf("confirm-%s-%s.json", safeName(c.Strategy), c.Expect)
}

func (j *cliffJob) runNoReturn(ctx context.Context, out *cliffOutcome, stderr io.Writer) error {
	bar := newCountBar(stderr, "point of no return: continuations")
	j.nr.Progress = func(done, left int) { bar.set(done, done+left) }
	tallies, err := j.nr.Run(ctx)
	bar.stop()
	first, last, _ := j.nr.Plan.Chaos.Span()
	c := cliff.NoReturnRun{Strategy: j.nr.Strategy, Rep: j.nr.Rep, Seed: seeds.Rep(j.nr.Plan.Seed, j.nr.Rep), Continuations: j.f.continuations,
		FaultStart: first, FaultEnd: last, NoReturn: cliff.SummarizeNoReturn(j.nr.Spec, tallies)}
	out.NoReturn = &c
	if err != nil {
		out.Partial = ctx.Err() != nil
	}
	return err
}

// writeCliff writes the results folder: cliff.json, probes.csv, the real
// runs' summaries, scenario.yaml and the report, staged and published
// whole.
func writeCliff(out *cliffOutcome, j *cliffJob, f *cliffFlags) (string, error) {
	path, err := folder.FolderIn(f.out, out.Scenario, out.Started, "-cliff")
	if err != nil {
		return "", err
	}
	st, err := folder.Stage(path)
	if err != nil {
		return "", err
	}
	files, err := cliffFiles(out, j)
	if err == nil {
		for _, fl := range files {
			if err = folder.WriteFileAtomic(filepath.Join(st.Dir, fl.Name), fl.Data); err != nil {
				break
			}
		}
	}
	if err != nil {
		st.Discard()
		return "", err
	}
	rerr := report.RenderDir(st.Dir, report.Options{Version: herdbenchVersion(), NoPNG: f.noPNG})
	dir, err := st.Publish()
	if err != nil {
		return "", err
	}
	if rerr != nil {
		return dir, fmt.Errorf("drawing the report: %v; the data is in place, 'herdbench report %s' draws it again", rerr, dir)
	}
	return dir, nil
}

func cliffFiles(out *cliffOutcome, j *cliffJob) ([]report.File, error) {
	doc, err := out.Encode()
	if err != nil {
		return nil, err
	}
	files := []report.File{{Name: "cliff.json", Data: doc}, {Name: "scenario.yaml", Data: j.op.Plans[0].Resolved}}
	if j.search != nil {
		csv, err := cliff.EncodeProbes(j.search.Spec, out.results, func(rep int) uint64 { return seeds.Rep(j.op.Seed, rep) })
		if err != nil {
			return nil, err
		}
		files = append(files, report.File{Name: "probes.csv", Data: csv})
	}
	for i, s := range out.confirms {
		b, err := folder.EncodeSummary(s)
		if err != nil {
			return nil, err
		}
		files = append(files, report.File{Name: out.Confirm[i].Summary, Data: b})
	}
	return files, nil
}

func renderCliffTerminal(w io.Writer, d *cliff.Document) error {
	if err := terminal.RenderCliff(w, d); err != nil {
		return errors.New("writing the table: " + err.Error())
	}
	return nil
}
