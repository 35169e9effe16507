package folder

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
)

// DirName returns the results folder name for a run of scenario started at
// t: "<scenario>-<UTC timestamp>".
func DirName(scenario string, t time.Time) string {
	return scenario + "-" + t.UTC().Format("20060102T150405Z")
}

// WriteFileAtomic writes data to path through a temporary file in the same
// folder and a rename, so a reader (or a killed run) never sees half a file.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if werr == nil {
		werr = tmp.Chmod(0o644) // CreateTemp's 0600 would hide results from other readers
	}
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		if werr != nil {
			return werr
		}
		return cerr
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return nil
}

// EncodeSummary returns summary.json's bytes, every number at most
// SignificantDigits significant digits long.
func EncodeSummary(s *results.Summary) ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(tidyNumbers(b), '\n'), nil
}

// TimelineColumns are timeline.csv's columns after strategy and t_s: every
// series, transport_resends only when resends is set (timelineSeries).
func TimelineColumns(resends bool) []string {
	cols := []string{"attempts"}
	for s := results.Series(0); s < timelineSeries(resends); s++ {
		cols = append(cols, s.String())
	}
	return cols
}

// timelineSeries is how many series a timeline file writes: all of them
// when some cohort's transport re-sent (the last series,
// SeriesTransportResends), else all but it, so that a run where no
// transport re-sends writes the columns it always wrote.
func timelineSeries(resends bool) results.Series {
	if resends {
		return results.NumSeries
	}
	return results.SeriesTransportResends
}

// anyResends reports whether a row of the timelines counts a transport
// re-send.
func anyResends(timelines ...results.Timeline) bool {
	for _, t := range timelines {
		for _, row := range t.Rows {
			if row[results.SeriesTransportResends] > 0 {
				return true
			}
		}
	}
	return false
}

// EncodeTimeline returns a timeline CSV: one row per cohort per bucket, with
// the bucket's start in seconds, the attempts of all outcomes, then every
// series (transport_resends only when some row has one).
func EncodeTimeline(names []string, timelines []results.Timeline) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	resends := anyResends(timelines...)
	n := timelineSeries(resends)
	_ = w.Write(append([]string{"strategy", "t_s"}, TimelineColumns(resends)...))
	for i, t := range timelines {
		for b, row := range t.Rows {
			rec := make([]string, 0, 3+int(n))
			var attempts int64
			for o := 0; o < int(results.NumOutcomes); o++ {
				attempts += row[o]
			}
			rec = append(rec, names[i], strconv.FormatFloat((time.Duration(b)*t.Resolution).Seconds(), 'f', 2, 64), strconv.FormatInt(attempts, 10))
			for _, v := range row[:n] {
				rec = append(rec, strconv.FormatInt(v, 10))
			}
			_ = w.Write(rec)
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// Output is everything a run writes to its results folder.
type Output struct {
	Summary  *results.Summary
	Cohorts  []results.Cohort
	Scenario []byte // the resolved scenario YAML
}

// Write writes the run's files into dir (created if needed): summary.json,
// timeline.csv (10 ms), timeline_1s.csv, scenario.yaml and one HdrHistogram
// interval log per cohort (HlogName). Each file is written atomically; the
// first error stops and is returned.
func Write(dir string, o Output) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	names := make([]string, len(o.Cohorts))
	fine := make([]results.Timeline, len(o.Cohorts))
	coarse := make([]results.Timeline, len(o.Cohorts))
	for i, c := range o.Cohorts {
		names[i] = c.Strategy
		fine[i] = c.Rec.Timeline(results.Bucket)
		coarse[i] = c.Rec.Timeline(time.Second)
	}
	type file struct {
		name   string
		encode func() ([]byte, error)
	}
	files := []file{
		{"timeline.csv", func() ([]byte, error) { return EncodeTimeline(names, fine) }},
		{"timeline_1s.csv", func() ([]byte, error) { return EncodeTimeline(names, coarse) }},
		{"scenario.yaml", func() ([]byte, error) { return o.Scenario, nil }},
	}
	if len(o.Cohorts) > 0 && len(o.Cohorts[0].Tiers) > 0 {
		files = append(files, file{TierTimelineName, func() ([]byte, error) { return EncodeTierTimeline(o.Cohorts, results.Bucket) }})
	}
	for i, hlog := range HlogNames(names) {
		c := o.Cohorts[i]
		files = append(files, file{hlog, func() ([]byte, error) {
			started := o.Summary.Started
			if !c.Started.IsZero() {
				started = c.Started // a cohort run apart: its own t = 0
			}
			return EncodeHistogramLog(c.Strategy, started, c.Rec.Intervals())
		}})
	}
	if sh := o.Summary.Shard; sh != nil {
		// A shard's send lag, for the merge's send_lag_ms (shard.go).
		files = append(files, file{SendLagLog, func() ([]byte, error) {
			lags := make([]*hdrhistogram.Histogram, len(o.Cohorts))
			for i, c := range o.Cohorts {
				lags[i] = c.Rec.SendLag()
			}
			return EncodeSendLagLog(names, o.Summary.Started, time.Duration(o.Summary.DurationS*float64(time.Second)), lags)
		}})
		// Its latencies after the split, for the merge's figures after
		// the fault.
		if split := slices.ContainsFunc(o.Cohorts, func(c results.Cohort) bool { _, _, ok := c.Rec.After(); return ok }); split {
			files = append(files, file{SplitLog, func() ([]byte, error) {
				return EncodeSplitLog(o.Cohorts, o.Summary.Started, time.Duration(o.Summary.DurationS*float64(time.Second)))
			}})
		}
	}
	// summary.json last: once it is there, the folder is complete.
	files = append(files, file{"summary.json", func() ([]byte, error) { return EncodeSummary(o.Summary) }})
	for _, f := range files {
		data, err := f.encode()
		if err != nil {
			return fmt.Errorf("results: encoding %s: %w", f.name, err)
		}
		if err := WriteFileAtomic(filepath.Join(dir, f.name), data); err != nil {
			return fmt.Errorf("results: writing %s: %w", f.name, err)
		}
	}
	return nil
}
