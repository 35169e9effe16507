package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/report"
	"github.com/spf13/pflag"
)

const reportHelp = `Usage: herdbench report DIR... [flags]

Renders the report of saved results without running anything: report.html
(one self-contained file: open it offline, attach it to a ticket) and a PNG
of each chart, from the files a run saved in its results folder
(summary.json, timeline.csv, the <cohort>.hlog histogram logs,
scenario.yaml).

With one DIR it re-renders that folder's report in place, e.g. after
upgrading herdbench. A sweep's folder (sweep.csv) gets a sweep's report:
every figure against each swept field, and heat maps over two; a cliff
search's (cliff.json), its boundaries, phase map and point of no return.

With several it overlays them in one report, for a before/after comparison
of a configuration change: each cohort appears once per run, labelled by
run ("no-jitter (before)", "no-jitter (after)") and drawn in the same
colour, solid for the first run and dashed for the second. The overlay
goes to a new folder (--out).

Examples:
  herdbench report runs/outage-20260301T120000Z
  herdbench report runs/outage-20260301T120000Z runs/outage-20260301T130000Z \
      --label before,after --out runs/outage-before-after

Flags:
`

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var (
		out    string
		labels []string
		noPNG  bool
		dpi    int
	)
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVarP(&out, "out", "o", "", "folder to write the report into (default: DIR itself for one folder; for several, a folder beside the first named overlay-<first>-vs-<second>...)")
	fs.StringSliceVar(&labels, "label", nil, "names for the runs in an overlay, comma-separated, one per DIR (default: the folder names, without what they share)")
	fs.BoolVar(&noPNG, "no-png", false, "write report.html only, no PNG copies of the charts")
	fs.IntVar(&dpi, "dpi", report.PNGDPI, "resolution of the PNG copies in dots per inch (a chart is 9 inches wide: 120 gives 1080 px; 240 for slides)")
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), reportHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 ok; 1 a results folder's files could not be read (damaged,\nor not as herdbench writes them) or the report not written; 2 bad usage,\nor a DIR that is not a results folder (missing, a file, no summary.json);\n130 interrupted (Ctrl-C: nothing written, the folder's report is as it\nwas).\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		fmt.Fprintln(stderr, "herdbench report: name at least one results folder (the one 'herdbench scenario' printed after \"results:\")\nRun 'herdbench report --help' for more.")
		return exitUsage
	}
	if len(labels) > 0 && len(labels) != len(dirs) {
		fmt.Fprintf(stderr, "herdbench report: --label has %d names for %d folders; give one per folder, in order, e.g. --label before,after\n", len(labels), len(dirs))
		return exitUsage
	}
	if dpi < 10 || dpi > 1200 {
		fmt.Fprintf(stderr, "herdbench report: --dpi %d: give a resolution between 10 and 1200, e.g. --dpi 240\n", dpi)
		return exitUsage
	}
	if len(labels) == 0 {
		labels = defaultLabels(dirs)
	}
	interrupted := func() int {
		fmt.Fprintln(stderr, "herdbench report: interrupted; nothing was written")
		return exitSignal
	}
	if len(dirs) == 1 && report.IsCliff(dirs[0]) {
		return reportCliff(ctx, dirs[0], out, report.Options{Version: herdbenchVersion(), NoPNG: noPNG, DPI: dpi}, stdout, stderr)
	}
	if len(dirs) == 1 && report.IsSweep(dirs[0]) {
		return reportSweep(ctx, dirs[0], out, report.Options{Version: herdbenchVersion(), NoPNG: noPNG, DPI: dpi}, stdout, stderr)
	}
	runs := make([]*report.Run, len(dirs))
	for i, d := range dirs {
		if ctx.Err() != nil {
			return interrupted()
		}
		r, err := report.LoadContext(ctx, d)
		if ctx.Err() != nil {
			return interrupted()
		}
		if errors.Is(err, report.ErrNotResults) {
			fmt.Fprintf(stderr, "herdbench report: %v\nNothing was written.\n", err)
			return exitUsage // the wrong folder named: bad input, as a bad scenario file is
		}
		if err != nil {
			fmt.Fprintln(stderr, "herdbench report:", err)
			return exitFailed
		}
		r.Label = labels[i]
		runs[i] = r
	}
	if names := scenarioNames(runs); len(names) > 1 {
		fmt.Fprintf(stderr, "herdbench report: note: overlaying runs of different scenarios (%s); their fault windows and loads differ\n", strings.Join(names, ", "))
	}
	if out == "" {
		out = dirs[0]
		if len(dirs) > 1 {
			var err error
			out, err = folder.ChildIn(filepath.Dir(filepath.Clean(dirs[0])), overlayName(labels))
			if err != nil {
				fmt.Fprintln(stderr, "herdbench report:", err)
				return exitFailed
			}
		}
	}
	files, err := report.RenderContext(ctx, runs, report.Options{Version: herdbenchVersion(), NoPNG: noPNG, DPI: dpi})
	if ctx.Err() != nil {
		return interrupted()
	}
	return writeReport(out, files, err, stdout, stderr)
}

// writeReport writes the files of a report drawn into out, or says why
// it was not drawn (err).
func writeReport(out string, files []report.File, err error, stdout, stderr io.Writer) int {
	if err == nil {
		err = report.WriteFiles(out, files)
	}
	if err != nil {
		fmt.Fprintln(stderr, "herdbench report:", err)
		return exitFailed
	}
	fmt.Fprintln(stdout, "report:", filepath.Join(out, "report.html"))
	return exitOK
}

// reportSweep renders a sweep's report: every figure against the swept
// fields, heat maps over two.
func reportSweep(ctx context.Context, dir, out string, o report.Options, stdout, stderr io.Writer) int {
	sw, err := report.LoadSweep(dir)
	var files []report.File
	if err == nil {
		if files, err = report.RenderSweep(ctx, sw, o); ctx.Err() != nil {
			fmt.Fprintln(stderr, "herdbench report: interrupted; nothing was written")
			return exitSignal
		}
	}
	if out == "" {
		out = dir
	}
	return writeReport(out, files, err, stdout, stderr)
}

// reportCliff re-renders a cliff search's report.
func reportCliff(ctx context.Context, dir, out string, o report.Options, stdout, stderr io.Writer) int {
	c, err := report.LoadCliff(dir)
	var files []report.File
	if err == nil {
		if files, err = report.RenderCliff(ctx, c, o); ctx.Err() != nil {
			fmt.Fprintln(stderr, "herdbench report: interrupted; nothing was written")
			return exitSignal
		}
	}
	if out == "" {
		out = dir
	}
	return writeReport(out, files, err, stdout, stderr)
}

// defaultLabels names runs by something the user recognises in what they
// typed: their folder names without the leading dash-separated parts they
// all share ("outage-20260301T120000Z" and "outage-20260301T130000Z"
// become the timestamps); when that leaves two the same (one run's
// folders from the swarm and from the proxy that recorded it share a
// name), the part of their paths that differs ("swarm/outage-X" and
// "proxy/outage-X" become "swarm" and "proxy"); and for a folder named
// twice, its name numbered ("outage-X #1", "outage-X #2").
func defaultLabels(dirs []string) []string {
	if labels, ok := baseLabels(dirs); ok {
		return labels
	}
	if labels, ok := pathLabels(dirs); ok {
		return labels
	}
	labels := make([]string, len(dirs))
	for i, d := range dirs {
		labels[i] = fmt.Sprintf("%s #%d", filepath.Base(filepath.Clean(d)), i+1)
	}
	return labels
}

// baseLabels is the folder names without the leading dash-separated parts
// they all share; not ok when that leaves two the same or one empty.
func baseLabels(dirs []string) ([]string, bool) {
	parts := make([][]string, len(dirs))
	for i, d := range dirs {
		parts[i] = strings.Split(filepath.Base(filepath.Clean(d)), "-")
	}
	common := 0
	if len(dirs) > 1 {
	scan:
		for ; common < len(parts[0])-1; common++ {
			for _, p := range parts[1:] {
				if common >= len(p)-1 || p[common] != parts[0][common] {
					break scan
				}
			}
		}
	}
	labels := make([]string, len(dirs))
	for i, p := range parts {
		labels[i] = strings.Join(p[common:], "-")
	}
	return labels, distinct(labels)
}

// pathLabels is the folders' paths (made absolute) without the leading
// and trailing folders they all share; not ok when that leaves two the
// same or one empty (a folder named twice).
func pathLabels(dirs []string) ([]string, bool) {
	parts := make([][]string, len(dirs))
	for i, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		parts[i] = strings.Split(filepath.ToSlash(filepath.Clean(d)), "/")
	}
	shared := func(at func(p []string, k int) string, k int) bool {
		for _, p := range parts {
			if k >= len(p) || at(p, k) != at(parts[0], k) {
				return false
			}
		}
		return true
	}
	shortest := len(parts[0])
	for _, p := range parts {
		shortest = min(shortest, len(p))
	}
	lead := 0
	for lead < shortest && shared(func(p []string, k int) string { return p[k] }, lead) {
		lead++
	}
	trail := 0
	for lead+trail < shortest && shared(func(p []string, k int) string { return p[len(p)-1-k] }, trail) {
		trail++
	}
	labels := make([]string, len(dirs))
	for i, p := range parts {
		labels[i] = strings.Join(p[lead:len(p)-trail], "/")
	}
	return labels, distinct(labels)
}

// distinct reports whether labels are all different and none is empty.
func distinct(labels []string) bool {
	seen := map[string]bool{}
	for _, l := range labels {
		if l == "" || seen[l] {
			return false
		}
		seen[l] = true
	}
	return true
}

// overlayName is the name of an overlay's folder, from its labels:
// "overlay-<first>-vs-<second>...", within the results folders' name rule
// (folder.NameProblem: letters, digits, '.', '-', '_', at most
// folder.MaxNameBytes).
func overlayName(labels []string) string {
	name := safeName("overlay-" + strings.Join(labels, "-vs-"))
	if len(name) > folder.MaxNameBytes {
		name = name[:folder.MaxNameBytes] // safeName leaves ASCII only
	}
	return name
}

// safeName replaces what is not a letter, digit, '.', '-' or '_' with '_'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

// scenarioNames lists the distinct scenarios of runs, in order.
func scenarioNames(runs []*report.Run) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range runs {
		if n := r.Summary.Scenario; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}
