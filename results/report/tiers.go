package report

import (
	"context"
	"fmt"
	"image/color"
	"path/filepath"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"gonum.org/v1/plot/vg"
)

// Tier is one tier of a cohort of a chain of tiers: the attempts that
// reached it, as saved in timeline_tiers.csv (10 ms).
type Tier struct {
	Name     string
	Timeline results.Timeline
}

// readTiers reads timeline_tiers.csv into r's cohorts, for a run of a
// chain of tiers (its summary's runs have tiers); a folder without it gets
// a note, and its report no tier chart.
func (r *Run) readTiers(ctx context.Context) error {
	if len(r.Summary.Runs) == 0 || len(r.Summary.Runs[0].Tiers) == 0 {
		return nil
	}
	path := filepath.Join(r.Dir, folder.TierTimelineName)
	f, err := folder.OpenBounded(ctx, path, maxTimelineBytes)
	if err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("The folder has no readable %s: the chart of attempts per tier is left out.", folder.TierTimelineName))
		return nil
	}
	defer f.Close()
	s := r.Summary
	bounds := folder.TimelineBounds{Keys: tierKeys(s), Rows: folder.TimelineBuckets(s.DurationS), DurationS: s.DurationS, Bin: r.bin}
	cohorts, tiers, timelines, err := folder.ReadTierTimeline(f, bounds)
	if err != nil {
		return wrapRead(ctx, path, err)
	}
	for i, name := range cohorts {
		for k := range r.Cohorts {
			if r.Cohorts[k].Name != name {
				continue
			}
			for j, tl := range timelines[i] {
				if err := checkTimelines([]string{name}, []results.Timeline{tl}, r.Summary, r.bin); err != nil {
					return fmt.Errorf("%s: %w", filepath.Join(r.Dir, folder.TierTimelineName), err)
				}
				r.Cohorts[k].Tiers = append(r.Cohorts[k].Tiers, Tier{Name: tiers[i][j], Timeline: tl})
			}
		}
	}
	return nil
}

// tierColors tell a chain's tiers apart, from the first to the bottom one.
var tierColors = []color.Color{rgb(0x56B4E9), rgb(0xE69F00), rgb(0xD55E00), rgb(0x009E73), rgb(0xCC79A7), rgb(0x0072B2), rgb(0x000000), rgb(0xF0E442)}

// tiersSpec: for a chain of tiers, the attempts that reached each tier per
// second, one panel per cohort on one scale, a line per tier; false when
// no cohort has tiers.
func (v *view) tiersSpec() (*spec, bool) {
	has := false
	for _, e := range v.entries {
		has = has || len(e.cohort.Tiers) > 0
	}
	if !has {
		return nil, false
	}
	return &spec{ID: "tiers_1s", title: "Attempts that reached each tier, per second%s, one panel per cohort (same scale)", YLabel: "attempts / s", Height: 170,
		res: time.Second, ResS: v.base.Seconds(), MaxBinS: 1, Bins: 300, SyncLegend: true,
		Caption: "In a chain of tiers, the calls that reached each tier: from the clients (the first tier) and from the tier above (the others). " +
			"Each tier that retries multiplies what reaches the tiers below it: with 4 attempts at each of 3 callers, up to 64 attempts reach the bottom tier per user request. Shaded: the fault windows.",
		Panels: v.cohortPanels(false, everyLegend, func(e entry) []line {
			var out []line
			for k, tier := range e.cohort.Tiers {
				out = append(out, line{Label: tier.Name, color: tierColors[k%len(tierColors)], width: vg.Points(1.2), tl: tier.Timeline, count: attemptsOf, key: "tier/" + tier.Name + "/" + e.label})
			}
			return out
		})}, true
}
