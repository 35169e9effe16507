package folder

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
)

// SendLagLog is the file in a shard's results folder that keeps each
// cohort's send lag, so that a merge computes send_lag_ms from every
// shard's attempts: a histogram log with one interval per cohort, the
// whole run, tagged with the cohort's histogram log name without
// ".hlog".
const SendLagLog = "send_lag.hlog"

// EncodeSendLagLog returns a shard's send lag log: lags[i] (microseconds)
// is cohort names[i]'s, over the run from start for duration.
func EncodeSendLagLog(names []string, start time.Time, duration time.Duration, lags []*hdrhistogram.Histogram) ([]byte, error) {
	tags := HlogNames(names)
	for i, name := range tags {
		tags[i] = strings.TrimSuffix(name, ".hlog")
		if lags[i] == nil {
			lags[i] = results.NewLagHistogram()
		}
	}
	return encodeWholeRunLog("herdbench send lag: one interval per cohort (tagged with its .hlog name), the whole run, values in microseconds", "send lag of ", tags, start, duration, lags)
}

// SplitLog is the file in a shard's results folder that keeps each
// cohort's latencies after its recorder's split (Recorder.SplitAt), so
// that a merge computes the figures after the fault from every shard's
// records: a histogram log with two intervals per cohort, the whole run,
// tagged with the cohort's histogram log name without ".hlog" and
// SplitAttempt or SplitRequest. Absent when no cohort had a split.
const SplitLog = "split.hlog"

// The tags' suffixes of the split log.
const (
	SplitAttempt = "." + TagAttempt
	SplitRequest = "." + TagRequest
)

// EncodeSplitLog returns a shard's split log (SplitLog) of the cohorts
// cs whose recorders had a split, over the run from start for duration.
func EncodeSplitLog(cs []results.Cohort, start time.Time, duration time.Duration) ([]byte, error) {
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = c.Strategy
	}
	var tags []string
	var hs []*hdrhistogram.Histogram
	for i, name := range HlogNames(names) {
		a, q, ok := cs[i].Rec.After()
		if !ok {
			continue
		}
		base := strings.TrimSuffix(name, ".hlog")
		tags, hs = append(tags, base+SplitAttempt, base+SplitRequest), append(hs, a, q)
	}
	return encodeWholeRunLog("herdbench split: two intervals per cohort (tagged with its .hlog name and .attempt or .request), the latencies of what ended after the split, values in microseconds", "split of ", tags, start, duration, hs)
}

// encodeWholeRunLog returns a histogram log of one interval per
// histogram, the whole run from start for duration, each tagged.
func encodeWholeRunLog(comment, what string, tags []string, start time.Time, duration time.Duration, hs []*hdrhistogram.Histogram) ([]byte, error) {
	var buf bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&buf)
	startMs := start.UnixMilli()
	lw.SetBaseTime(startMs)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return nil, err
	}
	if err := lw.OutputComment(comment); err != nil {
		return nil, err
	}
	secs := fmt.Sprintf("%d.%03d", startMs/1000, startMs%1000)
	if err := lw.OutputComment(fmt.Sprintf("[BaseTime: %s (seconds since epoch)]", secs)); err != nil {
		return nil, err
	}
	if err := lw.OutputLegend(); err != nil {
		return nil, err
	}
	for i, h := range hs {
		h.SetTag(tags[i])
		h.SetStartTimeMs(startMs)
		h.SetEndTimeMs(startMs + duration.Milliseconds())
		if err := lw.OutputIntervalHistogram(h); err != nil {
			return nil, fmt.Errorf("%s%s: %w", what, tags[i], err)
		}
	}
	return buf.Bytes(), nil
}
