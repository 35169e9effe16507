package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/merge"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

const mergeHelp = `Usage: herdbench merge DIR... [flags]

Combines the results folders of a run's shards (herdbench scenario --shard
K/N --start-at T0, one per process or machine) into the run's results
folder: summary.json, timeline.csv, the histogram logs and report.html, as
if one process had run every client.

It adds the shards' 10 ms timelines bucket by bucket and their HdrHistogram
logs interval by interval, then computes every figure again from the sums:
percentiles, peaks, the herd factor and recovery are the whole run's, never
averages of the shards'. It checks the scenario's thresholds, which the
shards left to it, and exits 3 if one fails.

Each DIR is a shard's folder, or a folder the shards wrote into (its shard
folders are found inside). It refuses shards of different scenarios (name
or scenario.yaml), seeds, start instants (T0) or shard counts, a missing or
duplicate shard, and a shard whose clock was more than 500 ms off the
target's; it warns of one more than 5 ms off, naming it.

Examples:
  herdbench merge runs/gameday-20261201T103000Z-shard-*-of-3
  herdbench merge /results/run-1 --out /results/run-1

Flags:
`

func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	var dir string
	defer func() {
		if v := recover(); v != nil {
			code = internalError(stderr, v, debug.Stack(), dir)
		}
	}()
	f := &scenarioFlags{}
	fs := pflag.NewFlagSet("merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&f.out, "out", "o", "runs", "folder to write the merged results folder into (<scenario>-<T0>)")
	fs.BoolVar(&f.noPNG, "no-png", false, "write report.html without PNG copies of its charts")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print only the results")
	addOutputFlags(fs, f)
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), mergeHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 ok; 1 a folder could not be read, or the results not\nwritten; 2 bad usage, or folders that are not one run's shards (nothing\nwritten); 3 a threshold failed (results written).\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "herdbench merge: name the shards' results folders (or the folder they were written into)\nRun 'herdbench merge --help' for more.")
		return exitUsage
	}
	if err := checkJUnitPath(f.junit); err != nil {
		fmt.Fprintf(stderr, "herdbench merge: --junit: %v\nNothing was written.\n", err)
		return exitUsage
	}
	dirs, err := merge.Expand(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "herdbench merge:", err)
		return exitUsage
	}
	m, warnings, err := merge.FoldersContext(ctx, dirs)
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "herdbench merge: interrupted; nothing was written")
		return exitSignal
	}
	for _, w := range warnings {
		fmt.Fprintln(stderr, "herdbench merge: warning:", w)
	}
	switch {
	case errors.Is(err, merge.ErrRefused):
		fmt.Fprintf(stderr, "herdbench merge: %v\nNothing was written.\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintln(stderr, "herdbench merge:", err)
		return exitFailed
	}
	s := m.Output.Summary
	if !f.quiet {
		fmt.Fprintf(stderr, "herdbench merge: %d shards of %s (seed %d, t = 0 at %s)", len(m.Shards), s.Scenario, s.Seed, s.Started.Format("2006-01-02T15:04:05.000Z"))
		if sp := s.Merged.StartSpreadMS; sp != nil {
			fmt.Fprintf(stderr, "; first sends %.3g ms apart", *sp)
		}
		fmt.Fprintln(stderr)
	}
	point := engine.Point{Plan: &scenarios.Plan{Name: s.Scenario, Thresholds: m.Thresholds, GRPC: speaksGRPC(m.Output.Scenario)}, Output: m.Output}
	return finish(stdout, stderr, "merge", f, []engine.Point{point}, false, &dir, ctx)
}

// speaksGRPC reports whether the shards' resolved scenario has a gRPC
// target (target.protocol: grpc), which their summaries do not record: the
// end of the merge's warnings speak of gRPC's statuses then.
func speaksGRPC(scenario []byte) bool {
	sc, err := scenarios.Parse("scenario.yaml", scenario)
	return err == nil && sc.File.Target.Protocol == scenarios.ProtocolGRPC
}
