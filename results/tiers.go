package results

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// tierRuns returns the figures of each tier of cohort c, whose own figures
// (the first tier's) are top: each a Run of the calls into the tier
// (Run.Tiers), its wasted work left to the engine.
func tierRuns(c Cohort, w Window, top *Run) []Run {
	out := make([]Run, len(c.Tiers))
	for k, name := range c.Tiers {
		t := *top
		if k > 0 {
			t = Summarize(Cohort{Strategy: c.Strategy, Rec: c.Below[k-1]}, w)
		}
		t.Tier, t.WastedWork, t.Amplification = name, 0, 0
		if top.Requests > 0 {
			t.Amplification = round(float64(t.Attempts)/float64(top.Requests), 3)
		}
		out[k] = t
	}
	return out
}

// Bottom returns the figures of the bottom tier of a chain, or nil for a
// single target.
func (r *Run) Bottom() *Run {
	if len(r.Tiers) == 0 {
		return nil
	}
	return &r.Tiers[len(r.Tiers)-1]
}

// TierTimelineName is the file of a chain's timelines per tier.
const TierTimelineName = "timeline_tiers.csv"

// EncodeTierTimeline returns timeline_tiers.csv: for a chain of tiers, one
// row per cohort per tier per bucket, with the columns of timeline.csv
// and the tier after the strategy. The first tier's rows are the
// cohort's timeline.csv rows.
func EncodeTierTimeline(cohorts []Cohort, res time.Duration) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var all [][]Timeline // by cohort, by tier
	var resends bool
	for _, c := range cohorts {
		ts := make([]Timeline, len(c.Tiers))
		for k := range c.Tiers {
			rec := c.Rec
			if k > 0 {
				rec = c.Below[k-1]
			}
			ts[k] = rec.Timeline(res)
			resends = resends || anyResends(ts[k])
		}
		all = append(all, ts)
	}
	n := timelineSeries(resends)
	_ = w.Write(append([]string{"strategy", "tier", "t_s"}, TimelineColumns(resends)...))
	for i, c := range cohorts {
		for k, name := range c.Tiers {
			t := all[i][k]
			for b, row := range t.Rows {
				var attempts int64
				for o := 0; o < int(NumOutcomes); o++ {
					attempts += row[o]
				}
				line := make([]string, 0, 4+len(row))
				line = append(line, c.Strategy, name, strconv.FormatFloat((time.Duration(b)*t.Resolution).Seconds(), 'f', 2, 64), strconv.FormatInt(attempts, 10))
				for _, v := range row[:n] {
					line = append(line, strconv.FormatInt(v, 10))
				}
				_ = w.Write(line)
			}
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// DecodeTierTimeline reads timeline_tiers.csv (EncodeTierTimeline): for
// each cohort, in order of appearance, its tiers' names and timelines, in
// order.
func DecodeTierTimeline(data []byte) (cohorts []string, tiers [][]string, timelines [][]Timeline, err error) {
	return ReadTierTimeline(bytes.NewReader(data), TimelineBounds{})
}

// ReadTierTimeline reads timeline_tiers.csv like DecodeTierTimeline, row
// by row from r, refusing what breaks b (whose Keys bound the cohort and
// tier pairs) at the row that breaks it.
func ReadTierTimeline(r io.Reader, b TimelineBounds) (cohorts []string, tiers [][]string, timelines [][]Timeline, err error) {
	keys, tls, err := readTimeline(r, b, "strategy", "tier")
	if err != nil {
		return nil, nil, nil, err
	}
	at := map[string]int{}
	for i, k := range keys {
		cohort, tier, _ := strings.Cut(k, "\x00")
		j, ok := at[cohort]
		if !ok {
			j = len(cohorts)
			at[cohort] = j
			cohorts, tiers, timelines = append(cohorts, cohort), append(tiers, nil), append(timelines, nil)
		}
		tiers[j] = append(tiers[j], tier)
		timelines[j] = append(timelines[j], tls[i])
	}
	return cohorts, tiers, timelines, nil
}

// RenderTiers writes, for a chain of tiers, a table of what reached each
// tier of each cohort: attempts, attempts per user request, how the
// callers' requests ended, and how the tier recovered. It writes nothing
// for a single target.
func RenderTiers(w io.Writer, s *Summary) error {
	if len(s.Runs) == 0 || len(s.Runs[0].Tiers) == 0 {
		return nil
	}
	fmt.Fprintln(w, "Attempts that reached each tier, per user request (amplif.); success: the callers' requests into the tier.")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "strategy\ttier\tattempts\tamplif.\tsuccess\tpeak/s\therd factor\tfailed after fault\trecovery\tbudget denied\t")
	for _, r := range s.Runs {
		for k, t := range r.Tiers {
			name := ""
			if k == 0 {
				name = r.Strategy
			}
			failed, recovery := "–", "–"
			if len(s.Faults) > 0 {
				failed, recovery = fmt.Sprint(t.FailedAfterFault), recoveryText(t.RecoveryS)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%s\t%d\t%.1f\t%s\t%s\t%d\t\n", name, t.Tier, t.Attempts, t.Amplification,
				ratioText(t.SuccessRatio), t.PeakAttemptsPerS, t.HerdFactor, failed, recovery, t.BudgetDenied)
		}
	}
	return tw.Flush()
}

// explainTiers says, for a chain of tiers, how much each cohort's retries
// multiplied on their way down.
func explainTiers(s *Summary) []string {
	if len(s.Runs) == 0 || len(s.Runs[0].Tiers) < 2 {
		return nil
	}
	parts := make([]string, len(s.Runs))
	bottom := ""
	for i, r := range s.Runs {
		b := r.Bottom()
		bottom = b.Tier
		parts[i] = fmt.Sprintf("%s %.2f", r.Strategy, b.Amplification)
	}
	return []string{"amplification at the bottom tier (" + bottom + "): attempts that reached it per user request; retries at every tier multiply (4 attempts at each of 3 callers: up to 4^3 = 64): " +
		strings.Join(parts, ", ") + "."}
}
