package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// -rejudge DIR: the runs -data holds judged again by this tree's verdict,
// from the results folders DIR keeps (the -keep of the command that ran
// them), nothing run: the simulator is deterministic per plan and seed,
// so each run's reference is its own again (engine.Rejudge, which says
// what it could only approximate). Each record keeps the outcome it had
// (Before).

// rejudgeAll judges again every record of cp whose folder keep holds, and
// says on the log what changed.
func rejudgeAll(ctx context.Context, cp *corpus, keep string) error {
	assignFolders(cp)
	var changed, failed int
	for _, recs := range [][]record{cp.Runs, cp.Main} {
		for i := range recs {
			r := &recs[i]
			if r.Err != "" || r.Folder == "" || ctx.Err() != nil {
				continue
			}
			before := r.Outcome
			if err := rejudge(ctx, r, filepath.Join(keep, r.Folder)); err != nil {
				failed++
				r.Rejudged = "failed: " + err.Error()
				logf(os.Stderr, "%s%s (%s): not judged again: %v", r.Scenario, pointText(r.Point), r.Folder, err)
				continue
			}
			if r.Outcome != before {
				changed++
			}
			logf(os.Stderr, "%s%s (%s, %d hogs, %d×): %s, was %s%s", r.Scenario, pointText(r.Point), r.Folder, r.Hogs, r.SlowMotion, r.Outcome, before, approxText(r.Approx))
		}
	}
	logf(os.Stderr, "judged again: %d changed their outcome, %d could not be judged again", changed, failed)
	return ctx.Err()
}

// assignFolders names each record's folder under the -keep folder where
// the first corpora did not: the runs numbered in the order they ran
// (corpus-001, ...; a sweep's points one run, a skipped condition one
// too), then the main job's (main-NNN). It returns how many runs there
// are, for the next to number on from.
func assignFolders(cp *corpus) int {
	n := 0
	var last *record
	seen := map[string]bool{} // the points of the sweep run last
	for i := range cp.Runs {
		r := &cp.Runs[i]
		if last == nil || r.Scenario != last.Scenario || r.Hogs != last.Hogs || r.Slow != last.Slow || r.Point == "" || seen[r.Point] {
			n++
			clear(seen)
		}
		seen[r.Point] = true
		if r.Folder == "" {
			r.Folder = fmt.Sprintf("corpus-%03d", n)
		}
		last = r
	}
	for i := range cp.Main {
		n++
		if cp.Main[i].Folder == "" {
			cp.Main[i].Folder = fmt.Sprintf("main-%03d", n)
		}
	}
	return n
}

// rejudge judges r again from its run's folder under dir.
func rejudge(ctx context.Context, r *record, dir string) error {
	run, err := resultsFolder(dir)
	if err != nil {
		return err
	}
	ss, err := readSummaries(run)
	if err != nil {
		return err
	}
	var s *results.Summary
	for _, x := range ss {
		if results.PointLabel(x.Point) == r.Point {
			s = x
		}
	}
	if s == nil {
		return fmt.Errorf("%s holds no point %q", run, r.Point)
	}
	k := engine.Kept{Summary: s}
	if k.Plan, err = keptPlan(run, s); err != nil {
		return err
	}
	if len(ss) == 1 {
		if k.Attempts, err = keptAttempts(run); err != nil {
			return err
		}
	}
	v, approx, err := engine.Rejudge(ctx, k)
	if err != nil {
		return err
	}
	if r.Before == "" {
		r.Before = r.Outcome
	}
	s.Verdict = v
	judged(r, s)
	r.Approx, r.Rejudged = strings.Join(approx, "; "), "yes"
	r.SlowMotion, r.Apart, r.Headline = max(1, s.SlowMotion), s.CohortsApart, headline(ss)
	r.Exit = exitOf([]*results.Summary{s}) // a sweep's point: as if run alone
	return nil
}

// exitOf is the exit code this version gives a run of the summaries ss
// (cmd/herdbench's exitCodeOf): 5 for a verdict not trustworthy, before
// 3 for a failed threshold.
func exitOf(ss []*results.Summary) int {
	code := 0
	for _, s := range ss {
		if !s.Verdict.Trusted() {
			return 5
		}
		if results.ThresholdsFailed(s.Thresholds) > 0 {
			code = 3
		}
	}
	return code
}

// resultsFolder finds the results folder under dir: dir itself, or the
// one folder in it (or in its runs/, where the main job writes).
func resultsFolder(dir string) (string, error) {
	for _, pattern := range []string{"summary.json", "*/summary.json", "*/sweep.csv", "runs/*/summary.json"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		if len(m) == 1 {
			return filepath.Dir(m[0]), nil
		}
	}
	return "", fmt.Errorf("no results folder in %s", dir)
}

// keptPlan compiles the folder's scenario.yaml with s's seed and
// repetitions, at s's point for a sweep. A preset renamed since it ran is
// left out: the resolved scenario holds every field it set (and the
// simulator's reference, checked by engine.Rejudge, says so).
func keptPlan(run string, s *results.Summary) (*scenarios.Plan, error) {
	seed := s.Seed
	o := scenarios.Overrides{Seed: &seed, Runs: max(1, s.Repetitions)}
	name := filepath.Join(run, "scenario.yaml")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	data = renamedPresetRE.ReplaceAllFunc(data, func(line []byte) []byte {
		if _, renamed := clients.RenamedPreset(string(renamedPresetRE.FindSubmatch(line)[1])); renamed {
			return nil
		}
		return line
	})
	op, err := scenarios.OpenData(name, data, o)
	if err != nil {
		return nil, err
	}
	for _, p := range op.Plans {
		if results.PointLabel(p.Point) == results.PointLabel(s.Point) {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%s: no plan at the point %q", run, results.PointLabel(s.Point))
}

// keptAttempts reads each cohort's attempts per 10 ms bucket from the
// folder's timeline.csv.
func keptAttempts(run string) (map[string][]int64, error) {
	f, err := os.Open(filepath.Join(run, "timeline.csv"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, timelines, err := folder.ReadTimeline(f, folder.TimelineBounds{})
	if err != nil {
		return nil, err
	}
	out := map[string][]int64{}
	for i, n := range names {
		if timelines[i].Resolution != results.Bucket {
			return nil, errors.New("timeline.csv is not in 10 ms buckets")
		}
		out[n] = timelines[i].Attempts()
	}
	return out, nil
}

// renamedPresetRE finds a strategy's preset line in a resolved scenario.
var renamedPresetRE = regexp.MustCompile(`(?m)^\s*preset: (\S+)\n`)

func approxText(a string) string {
	if a == "" {
		return ""
	}
	return " (approximate: " + a + ")"
}
