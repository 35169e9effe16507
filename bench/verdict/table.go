package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/herdbench/herdbench/bench/internal/measured"
)

// summaryTable is the generated file's table (docs/measured/verdict.md):
// the corpus's confusion table, within or outside their bands by outcome,
// and the main job's outcomes quiet and beside the hogs, with the notes
// that read them; the page of every run (out) links from it.
func summaryTable(cp *corpus, out string) measured.Table {
	runs := slices.DeleteFunc(slices.Clone(cp.Runs), func(r record) bool { return r.skipped() || r.Err != "" })
	t := measured.Table{Name: "verdict",
		Title:   "The verdict's calibration corpus: real runs of every built-in and bench/physics/ against their bands, and the main job",
		Columns: []string{"runs", "exact", "holds", "not trustworthy", "all", "what the targets are about", "load (1 min)"}}
	for _, in := range []bool{true, false} {
		var group []record
		for _, r := range runs {
			if r.InBand == in {
				group = append(group, r)
			}
		}
		c := outcomes(group)
		what := "flagged: " + share(c["not_trustworthy"], len(group)) + " (target: at most 1 in 10)"
		if !in {
			what = "exact or holds: " + share(c["exact"]+c["holds"], len(group)) + " (target: none)"
		}
		t.Rows = append(t.Rows, []string{map[bool]string{true: "corpus, within their bands", false: "corpus, outside their bands"}[in],
			fmt.Sprint(c["exact"]), fmt.Sprint(c["holds"]), fmt.Sprint(c["not_trustworthy"]), fmt.Sprint(len(group)), what, loadText(group)})
	}
	for _, hogs := range []bool{false, true} {
		var group []record
		for _, r := range cp.Main {
			if r.Err == "" && r.Args == "" && (r.Hogs > 0) == hogs {
				group = append(group, r)
			}
		}
		if len(group) == 0 {
			continue
		}
		c, held, walls := outcomes(group), 0, []float64{}
		for _, r := range group {
			if r.Headline != nil && *r.Headline {
				held++
			}
			walls = append(walls, r.WallS)
		}
		t.Rows = append(t.Rows, []string{map[bool]string{false: "main job, as the machine is", true: fmt.Sprintf("main job, beside %d CPU hogs", cp.Config.Hogs)}[hogs],
			fmt.Sprint(c["exact"]), fmt.Sprint(c["holds"]), fmt.Sprint(c["not_trustworthy"]), fmt.Sprint(len(group)),
			fmt.Sprintf("exact or holds: %s (target: ≥ 9 of 10 quiet, ≥ 8 of 10 beside the hogs); headline held in %d; wall %s (target ≤ 150 s)",
				share(c["exact"]+c["holds"], len(group)), held, spreadText(walls, "s")), loadText(group)})
	}
	t.Notes = notes(cp, runs, out)
	return t
}

// notes say what the table's runs were and where every run is.
func notes(cp *corpus, runs []record, out string) []string {
	page := filepath.ToSlash(strings.TrimPrefix(out, measured.Dir+"/"))
	n := []string{
		fmt.Sprintf("The corpus: %d runs (a sweep's points each), measured %s to %s UTC on %s, at real speed and at `--slow-motion %s`, as the machine was and beside %d CPU hogs (`yes > /dev/null`); every run, its load and wall time: [%s](%s), by `%s`.",
			len(runs), cp.Started.Format("2006-01-02 15:04"), cp.Ended.Format("2006-01-02 15:04"), cp.Machine, cp.Config.Slow, cp.Config.Hogs, page, page, strings.Join(cp.Commands, "`, then `")),
		"A run is within its bands when every headline figure its verdict read is within its band of the simulator's for the same plan and seed, the herd factor at the resolution it was read (docs/results.md, the verdict).",
	}
	approx, failed := 0, 0
	for _, r := range append(slices.Clone(runs), cp.Main...) {
		if r.Approx != "" {
			approx++
		}
		if strings.HasPrefix(r.Rejudged, "failed") {
			failed++
		}
	}
	for _, r := range cp.Rejudged {
		n = append(n, fmt.Sprintf("Judged again by this version's verdict on %s UTC (`%s`): the simulator is deterministic per plan and seed; %d runs' verdicts approximate what their folders did not keep (the lateness beyond its p50, p99 and max; a sweep point's waves beyond two resolutions), %d could not be judged again and keep their verdict.",
			r.At.Format("2006-01-02 15:04"), r.Command, approx, failed))
	}
	return n
}

// outcomes counts recs by outcome.
func outcomes(recs []record) map[string]int {
	c := map[string]int{}
	for _, r := range recs {
		c[r.Outcome]++
	}
	return c
}
