package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/cliff"
	"github.com/herdbench/herdbench/cliff/drive"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// agree runs the search and a --set sweep of its whole grid with as many
// --runs, on metastable and on the outage.
func (b *bench) agree() error {
	cases := []struct {
		scenario, vary string
		extra          []string
	}{
		{"metastable", "chaos[blip].for=0.5s..14s", nil},
		{"outage", "workload.clients=500..3000", []string{"--strategies", "no-jitter,full-jitter", "--max-seeds", "16"}},
	}
	for _, c := range cases {
		if err := b.agreeOne(c.scenario, c.vary, c.extra); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) agreeOne(scenario, vary string, extra []string) error {
	args := append([]string{scenario, "--vary", vary, "--seed", "7"}, extra...)
	doc, dir, wall, when, err := b.cliffRun(args...)
	if err != nil {
		return err
	}
	s := doc.Search
	seeds := 0
	var names []string
	for _, st := range s.Strategies {
		names = append(names, st.Name)
		for _, l := range st.Lines {
			seeds = max(seeds, l.Seeds)
		}
	}
	sweepArgs := []string{"scenario", scenario, "--sim", "--set", s.X.Path + "=" + strings.Join(s.X.Values(), ","), "--runs", strconv.Itoa(seeds),
		"--seed", "7", "--strategies", strings.Join(names, ","), "-q", "-o", b.dir}
	stdout, swall, swhen, err := b.herdbench(sweepArgs...)
	if err != nil {
		return err
	}
	sdir, err := resultsDir(stdout)
	if err != nil {
		return err
	}
	grid, err := sweepOutcomes(scenario, s.X, names, sdir)
	if err != nil {
		return err
	}
	agreeing, probed, err := probesAgree(dir, s.X, grid)
	if err != nil {
		return err
	}
	sweepCmd := fmt.Sprintf("herdbench scenario %s --sim --set '%s=<each of the %d values>' --runs %d --seed 7 --strategies %s", scenario, s.X.Path, s.X.Len(), seeds, strings.Join(names, ","))
	b.rows = append(b.rows, row{what: fmt.Sprintf("%s over %s, %s to %s by %s: the search against a --set sweep of the whole grid", scenario, s.X.Path, s.X.Format(s.X.Lo), s.X.Format(s.X.Hi), s.X.Format(s.X.Step)),
		figure: fmt.Sprintf("search **%d** simulated runs in %s; the sweep (%d values × %d strategies × %d seeds) **%d** runs in %s: **%.1f%%** of its runs. Of the search's runs, %d of %d collapsed or recovered as the sweep's same run did",
			s.Runs, wall.Round(100*time.Millisecond), s.X.Len(), len(names), seeds, s.GridRuns, swall.Round(100*time.Millisecond), 100*float64(s.Runs)/float64(s.GridRuns), agreeing, probed),
		command: command(append([]string{"cliff"}, args...)...) + "` and `" + sweepCmd,
		when:    when + "; the sweep " + swhen})
	for _, st := range s.Strategies {
		l := st.Lines[0]
		med := sweepMedian(s.X, grid[st.Name])
		inside := l.Complete && (l.LowOpen || med >= l.Low) && (l.HighOpen || med <= l.High)
		b.rows = append(b.rows, row{what: fmt.Sprintf("%s, %s: boundary against the sweep's", scenario, st.Name),
			figure:  fmt.Sprintf("search %s (95%% interval %s), %d seeds; the sweep's %s: **%s**", medianText(s.X, l), intervalText(s.X, l), l.Seeds, valueText(s.X, med), map[bool]string{true: "inside the interval", false: "OUTSIDE the interval"}[inside]),
			command: "as above", when: when})
	}
	return nil
}

// sweepOutcomes reads a sweep's summaries: for each strategy, seed and grid
// value, whether the run collapsed (the search's criterion, drive.Collapsed).
func sweepOutcomes(scenario string, x cliff.Axis, names []string, dir string) (map[string][][]bool, error) {
	seed := uint64(7)
	op, err := scenarios.Open(scenario, scenarios.Overrides{Seed: &seed})
	if err != nil {
		return nil, err
	}
	out := map[string][][]bool{}
	for i, v := range x.Values() {
		p, err := drive.Compile(op, []scenarios.Axis{{Path: x.Path, Values: []string{v}}})
		if err != nil {
			return nil, err
		}
		s, err := readPoint(dir, x.Path, v)
		if err != nil {
			return nil, err
		}
		for _, r := range s.Runs {
			si := slices.IndexFunc(p.Strategies, func(st clients.Strategy) bool { return st.Name == r.Strategy })
			// Stats leaves out a figure null in every repetition.
			recs := r.Stats["recovery_s"].Values
			if len(recs) == 0 {
				recs = make([]*float64, max(1, s.Repetitions))
			}
			if out[r.Strategy] == nil {
				out[r.Strategy] = make([][]bool, len(recs))
			}
			for k, rec := range recs {
				if len(out[r.Strategy][k]) != i {
					return nil, fmt.Errorf("%s: point %s out of order", dir, v)
				}
				out[r.Strategy][k] = append(out[r.Strategy][k], drive.Collapsed(p, si, engine.Window(p), rec))
			}
		}
	}
	for _, n := range names {
		if out[n] == nil {
			return nil, fmt.Errorf("the sweep has no %s", n)
		}
	}
	return out, nil
}

// readPoint reads the sweep's summary of the point where path is v.
func readPoint(dir, path, v string) (*results.Summary, error) {
	names, _ := filepath.Glob(filepath.Join(dir, "summary-*.json"))
	for _, n := range names {
		data, err := folder.ReadRegular(n, 64<<20)
		if err != nil {
			return nil, err
		}
		s, err := folder.DecodeSummary(data)
		if err != nil {
			return nil, err
		}
		for _, pt := range s.Point {
			if pt.Field == path && pt.Value == v {
				return s, nil
			}
		}
	}
	return nil, fmt.Errorf("%s: no summary of the point %s=%s", dir, path, v)
}

// probesAgree compares every run in the search's probes.csv with the
// sweep's same run.
func probesAgree(dir string, x cliff.Axis, grid map[string][][]bool) (agreeing, probed int, err error) {
	f, err := os.Open(filepath.Join(dir, "probes.csv"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return 0, 0, err
	}
	values := x.Values()
	for _, r := range rows[1:] {
		// strategy, x, rep, seed, collapsed, recovery_s, success_during_fault
		i := slices.Index(values, r[1])
		rep, _ := strconv.Atoi(r[2])
		probed++
		if i >= 0 && rep < len(grid[r[0]]) && strconv.FormatBool(grid[r[0]][rep][i]) == r[4] {
			agreeing++
		}
	}
	return agreeing, probed, nil
}

// sweepMedian is a sweep's boundary: the median over the seeds of the
// middle of each one's edge (its last recovering value and its first
// collapsing one).
func sweepMedian(x cliff.Axis, seeds [][]bool) float64 {
	var edges []float64
	for _, runs := range seeds {
		e := math.Inf(1)
		for i, collapsed := range runs {
			if collapsed {
				e = math.Inf(-1)
				if i > 0 {
					e = x.Value(i) - x.Step/2
				}
				break
			}
		}
		edges = append(edges, e)
	}
	slices.Sort(edges)
	n := len(edges)
	return (edges[(n-1)/2] + edges[n/2]) / 2
}

func medianText(x cliff.Axis, l cliff.Line) string {
	switch {
	case !l.Complete:
		return "unfinished"
	case !l.Found:
		return "none (" + string(l.Beyond) + " over the range)"
	}
	return x.Format(l.Median)
}

func intervalText(x cliff.Axis, l cliff.Line) string {
	lo, hi := x.Format(l.Low), x.Format(l.High)
	if l.LowOpen {
		lo = "below " + x.Format(x.Lo)
	}
	if l.HighOpen {
		hi = "above " + x.Format(x.Hi)
	}
	return lo + " to " + hi
}

func valueText(x cliff.Axis, v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "none (recovered over the range)"
	case math.IsInf(v, -1):
		return "none (collapsed over the range)"
	}
	return x.Format(round3(v))
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
