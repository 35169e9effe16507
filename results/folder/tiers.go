package folder

import (
	"bytes"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/results"
)

// TierTimelineName is the file of a chain's timelines per tier.
const TierTimelineName = "timeline_tiers.csv"

// EncodeTierTimeline returns timeline_tiers.csv: for a chain of tiers, one
// row per cohort per tier per bucket, with the columns of timeline.csv
// and the tier after the strategy. The first tier's rows are the
// cohort's timeline.csv rows.
func EncodeTierTimeline(cohorts []results.Cohort, res time.Duration) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var all [][]results.Timeline // by cohort, by tier
	var resends bool
	for _, c := range cohorts {
		ts := make([]results.Timeline, len(c.Tiers))
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
				for o := 0; o < int(results.NumOutcomes); o++ {
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
func DecodeTierTimeline(data []byte) (cohorts []string, tiers [][]string, timelines [][]results.Timeline, err error) {
	return ReadTierTimeline(bytes.NewReader(data), TimelineBounds{})
}

// ReadTierTimeline reads timeline_tiers.csv like DecodeTierTimeline, row
// by row from r, refusing what breaks b (whose Keys bound the cohort and
// tier pairs) at the row that breaks it.
func ReadTierTimeline(r io.Reader, b TimelineBounds) (cohorts []string, tiers [][]string, timelines [][]results.Timeline, err error) {
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
