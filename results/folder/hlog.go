package folder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
)

// Tags of the two histograms each interval of a .hlog holds.
const (
	TagAttempt = "attempt" // latency of the attempts that ended in the interval
	TagRequest = "request" // latency of the logical requests that ended in it
	// TagUpstream is the time a chaos proxy's upstream took for the
	// attempts that ended in the interval: in the logs of a proxy's
	// recording only.
	TagUpstream = "upstream"
)

// HlogName returns the file name of a cohort's histogram log:
// "<cohort>.hlog", with any character that is not a letter, a digit, '.',
// '-' or '_' replaced by '_' so a strategy name is always a safe file name.
func HlogName(cohort string) string {
	var b strings.Builder
	for _, c := range cohort {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 || strings.Trim(b.String(), ".") == "" {
		return "cohort.hlog"
	}
	return b.String() + ".hlog"
}

// HlogNames returns the histogram log file names of a run's cohorts, in
// order: HlogName of each, with "-2", "-3", ... added before ".hlog" when two
// names would otherwise be the same file.
func HlogNames(cohorts []string) []string {
	out := make([]string, len(cohorts))
	used := map[string]bool{}
	for i, c := range cohorts {
		name := HlogName(c)
		base := strings.TrimSuffix(name, ".hlog")
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s-%d.hlog", base, n)
		}
		used[name] = true
		out[i] = name
	}
	return out
}

// EncodeHistogramLog returns a cohort's HdrHistogram interval log: for each
// second of the run, one interval tagged "attempt" and one tagged "request",
// values in microseconds, timestamps in seconds since start (the log's start
// and base time). The HdrHistogram tools read it (HistogramLogProcessor with
// -tag attempt, -outputValueUnitRatio 1000 for milliseconds).
func EncodeHistogramLog(cohort string, start time.Time, intervals []results.Interval) ([]byte, error) {
	var buf bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&buf)
	startMs := start.UnixMilli()
	lw.SetBaseTime(startMs)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return nil, err
	}
	if err := lw.OutputComment(fmt.Sprintf("herdbench cohort %s: Tag=%s and Tag=%s intervals of %s, values in microseconds (the max column is in seconds)",
		cohort, TagAttempt, TagRequest, results.IntervalLength)); err != nil {
		return nil, err
	}
	// The Go writer's OutputStartTime and OutputBaseTime print whole seconds;
	// the run starts at a millisecond, so write the headers in the Java
	// writer's format, with three decimals, which every reader parses.
	secs := fmt.Sprintf("%d.%03d", startMs/1000, startMs%1000)
	if err := lw.OutputComment(fmt.Sprintf("[StartTime: %s (seconds since epoch), %s]", secs, start.UTC().Format("2006-01-02T15:04:05.000Z"))); err != nil {
		return nil, err
	}
	if err := lw.OutputComment(fmt.Sprintf("[BaseTime: %s (seconds since epoch)]", secs)); err != nil {
		return nil, err
	}
	if err := lw.OutputLegend(); err != nil {
		return nil, err
	}
	empty := results.NewPackedHistogram()
	upstream := false
	for _, it := range intervals {
		upstream = upstream || it.Upstream != nil
	}
	type tagged struct {
		tag  string
		hist *hdrhistogram.PackedHistogram
	}
	for k, it := range intervals {
		hists := []tagged{{TagAttempt, it.Attempt}, {TagRequest, it.Request}}
		if upstream {
			hists = append(hists, tagged{TagUpstream, it.Upstream})
		}
		for _, h := range hists {
			p := h.hist
			if p == nil {
				p = empty
			}
			from := startMs + int64(k)*results.IntervalLength.Milliseconds()
			p.SetTag(h.tag)
			p.SetStartTimeMs(from)
			p.SetEndTimeMs(from + results.IntervalLength.Milliseconds())
			if err := lw.OutputIntervalPackedHistogram(p); err != nil {
				return nil, fmt.Errorf("interval %d (%s): %w", k, h.tag, err)
			}
		}
	}
	return buf.Bytes(), nil
}

// LoggedInterval is one interval read back from a histogram log.
type LoggedInterval struct {
	Tag   string
	Index int // seconds from the run's start: the interval covers [Index s, Index+1 s)
	Hist  *hdrhistogram.Histogram
}

// ErrHistogramLog marks a histogram log that could not be read.
var ErrHistogramLog = errors.New("bad histogram log")

// ScanHistogramLog reads a histogram log written by EncodeHistogramLog for a
// run that started at start and calls fn with each interval in order, so a
// long log is never held in memory whole. An error from fn stops the scan
// and is returned.
func ScanHistogramLog(r io.Reader, start time.Time, fn func(LoggedInterval) error) error {
	lr := hdrhistogram.NewHistogramLogReader(r)
	startMs := start.UnixMilli()
	for n := 0; ; n++ {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return fmt.Errorf("%w: interval %d: %w", ErrHistogramLog, n, err)
		}
		if h == nil {
			return nil
		}
		// The reader turns "seconds since base" back into milliseconds
		// through a float, so round to the nearest whole interval.
		idx := int(math.Round(float64(h.StartTimeMs()-startMs) / float64(results.IntervalLength.Milliseconds())))
		if idx < 0 {
			return fmt.Errorf("%w: interval %d starts %d ms before the run's start", ErrHistogramLog, n, startMs-h.StartTimeMs())
		}
		if err := fn(LoggedInterval{Tag: h.Tag(), Index: idx, Hist: h}); err != nil {
			return err
		}
	}
}

// AddInterval adds h, one second of a cohort's latencies read from a
// histogram log (tag TagAttempt or TagRequest), into intervals[k],
// growing intervals as needed: how a merge adds the shards' logs interval
// by interval. k is read from a file, so it is refused past last (the
// run's LastInterval) before intervals grow to it.
func AddInterval(intervals []results.Interval, k, last int, tag string, h *hdrhistogram.Histogram) ([]results.Interval, error) {
	if k < 0 {
		return intervals, fmt.Errorf("%w: interval %d", results.ErrRestore, k)
	}
	if k > last {
		return intervals, fmt.Errorf("%w: an interval at %d s, after the run's end (its last interval is at %d s)", ErrHistogramLog, k, last)
	}
	for len(intervals) <= k {
		intervals = append(intervals, results.Interval{})
	}
	it := &intervals[k]
	if it.Attempt == nil {
		it.Attempt = results.NewPackedHistogram()
		it.Request = results.NewPackedHistogram()
	}
	var dropped int64
	switch tag {
	case TagAttempt:
		dropped = it.Attempt.MergeFrom(h)
	case TagRequest:
		dropped = it.Request.MergeFrom(h)
	default:
		return intervals, fmt.Errorf("%w: interval %d has a tag neither %s nor %s", ErrHistogramLog, k, TagAttempt, TagRequest)
	}
	if dropped > 0 {
		return intervals, fmt.Errorf("%w: interval %d (%s): %d values outside 1 µs to 1 h", ErrHistogramLog, k, tag, dropped)
	}
	return intervals, nil
}
