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

// TierRun is what one tier of a chain of tiers saw: the attempts that
// reached it, from the workload's clients (the first tier) or from the
// tier above, and how its callers' requests ended (runs[].tiers in
// summary.json). Its figures are the metrics of a Run, computed the same
// way from the records of the calls into the tier (Summarize), but
// Amplification, which counts per user request.
type TierRun struct {
	Tier string `json:"tier"`
	// Attempts are the calls that reached the tier; Amplification is
	// attempts per user request (the cohort's requests): retries multiply
	// down a chain, so this is the fleet's amplification at this tier.
	Attempts      int64   `json:"attempts"`
	Amplification float64 `json:"amplification"`
	// Requests are the calls the tier's callers made (their logical
	// requests, each with its retries): the cohort's requests at the
	// first tier, the attempts that reached the tier above otherwise.
	Requests         int64            `json:"requests"`
	Succeeded        int64            `json:"succeeded"`
	Failed           int64            `json:"failed"`
	Unfinished       int64            `json:"unfinished"`
	SuccessRatio     *float64         `json:"success_ratio"`
	PeakAttemptsPerS int64            `json:"peak_attempts_per_s"`
	HerdFactor       float64          `json:"herd_factor"`
	FailedAfterFault int64            `json:"failed_after_fault"`
	RecoveryS        *float64         `json:"recovery_s"`
	Outcomes         map[string]int64 `json:"outcomes"`
	// LatencyMS is the latency of the attempts into the tier, and of the
	// callers' requests, backoff included.
	LatencyMS Latencies `json:"latency_ms"`
	// What the callers' policies did (their budget, breaker, throttle)
	// and the tier's wasted work (served after its caller went away).
	BudgetDenied    int64 `json:"budget_denied"`
	BreakerRejected int64 `json:"breaker_rejected"`
	Throttled       int64 `json:"throttled"`
	WastedWork      int64 `json:"wasted_work"`
}

// tierRuns returns the figures of each tier of cohort c, whose own figures
// (the first tier's) are top.
func tierRuns(c Cohort, w Window, top *Run) []TierRun {
	out := make([]TierRun, len(c.Tiers))
	for k, name := range c.Tiers {
		r := top
		if k > 0 {
			below := Summarize(Cohort{Strategy: c.Strategy, Rec: c.Below[k-1]}, w)
			r = &below
		}
		t := TierRun{
			Tier: name, Attempts: r.Attempts, Requests: r.Requests, Succeeded: r.Succeeded, Failed: r.Failed,
			Unfinished: r.Unfinished, SuccessRatio: r.SuccessRatio, PeakAttemptsPerS: r.PeakAttemptsPerS, HerdFactor: r.HerdFactor,
			FailedAfterFault: r.FailedAfterFault, RecoveryS: r.RecoveryS, Outcomes: r.Outcomes, LatencyMS: r.LatencyMS,
			BudgetDenied: r.BudgetDenied, BreakerRejected: r.BreakerRejected, Throttled: r.Throttled,
		}
		if top.Requests > 0 {
			t.Amplification = round(float64(t.Attempts)/float64(top.Requests), 3)
		}
		out[k] = t
	}
	return out
}

// Bottom returns the figures of the bottom tier of a chain, or nil for a
// single target.
func (r *Run) Bottom() *TierRun {
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
	_ = w.Write(append([]string{"strategy", "tier", "t_s"}, TimelineColumns()...))
	for _, c := range cohorts {
		for k, name := range c.Tiers {
			rec := c.Rec
			if k > 0 {
				rec = c.Below[k-1]
			}
			t := rec.Timeline(res)
			for b, row := range t.Rows {
				var attempts int64
				for o := 0; o < int(NumOutcomes); o++ {
					attempts += row[o]
				}
				line := make([]string, 0, 4+len(row))
				line = append(line, c.Strategy, name, strconv.FormatFloat((time.Duration(b)*t.Resolution).Seconds(), 'f', 2, 64), strconv.FormatInt(attempts, 10))
				for _, v := range row {
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
	keys, tls, err := decodeTimeline(data, "strategy", "tier")
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
