package report

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
)

// The pure data behind the charts: rates from timelines, percentile curves
// from histograms.

// rebin sums a timeline's rows into bins of res (rounded to a multiple of
// its resolution).
func rebin(t results.Timeline, res time.Duration) results.Timeline {
	per := max(1, int(res/t.Resolution))
	out := results.Timeline{Resolution: time.Duration(per) * t.Resolution, Rows: make([][results.NumSeries]int64, (len(t.Rows)+per-1)/per)}
	for i, row := range t.Rows {
		o := &out.Rows[i/per]
		for s, v := range row {
			o[s] += v
		}
	}
	return out
}

// perSecond returns f of each row of t as a rate per second.
func perSecond(t results.Timeline, f func(row *[results.NumSeries]int64) int64) []float64 {
	out := make([]float64, len(t.Rows))
	scale := float64(time.Second) / float64(t.Resolution)
	for i := range t.Rows {
		out[i] = float64(f(&t.Rows[i])) * scale
	}
	return out
}

func attemptsOf(row *[results.NumSeries]int64) int64 {
	var n int64
	for o := range results.NumOutcomes {
		n += row[o]
	}
	return n
}

func seriesOf(s results.Series) func(row *[results.NumSeries]int64) int64 {
	return func(row *[results.NumSeries]int64) int64 { return row[s] }
}

// fineResolution is the resolution of the charts that show waves: 100 ms,
// coarser for long runs so a chart stays within about 2,000 bins.
func fineResolution(d time.Duration, base time.Duration) time.Duration {
	res := max(100*time.Millisecond, base)
	for d/res > 2000 {
		res *= 2
	}
	return res
}

// percentilePoint is one point of a percentile curve: X is log10(1/(1-p)),
// so 0 is the median's left end (p = 0), 1 is p90, 2 is p99, 3 is p99.9.
type percentilePoint struct {
	X, P, Ms float64
}

// percentileCurve reads a histogram of microseconds at evenly spaced points
// of log10(1/(1-p)), from p = 0 to p = 1 - 1/count (the highest percentile
// the count resolves), in milliseconds.
func percentileCurve(h *hdrhistogram.Histogram) []percentilePoint {
	n := h.TotalCount()
	if n == 0 {
		return nil
	}
	top := math.Log10(float64(n))
	const step = 0.02
	var out []percentilePoint
	for i := 0; ; i++ {
		x := min(float64(i)*step, top)
		p := 1 - math.Pow(10, -x)
		out = append(out, percentilePoint{X: x, P: p, Ms: float64(h.ValueAtQuantile(100*p)) / 1000})
		if x >= top {
			return out
		}
	}
}
