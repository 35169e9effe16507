package results

import (
	"math"
	"sync"
	"sync/atomic"
)

// Stat is one metric of one cohort over the repetitions of a run (--runs):
// how many repetitions had a value (recovery_s, completion_s and the
// OCC figures can be absent), their mean, their sample standard deviation
// (n-1; 0 for a single value), the extremes, and every repetition's value
// in order (null where absent).
type Stat struct {
	N      int        `json:"n"`
	Mean   float64    `json:"mean"`
	SD     float64    `json:"sd"`
	Min    float64    `json:"min"`
	Max    float64    `json:"max"`
	Values []*float64 `json:"values"`
}

// statMetrics are the metrics over repetitions in runs[].stats and
// sweep.csv (RepStats), in the table's order.
var statMetrics = sync.OnceValue(func() []Metric {
	var out []Metric
	for _, m := range metricTable() {
		if m.Reps == RepStats {
			out = append(out, m)
		}
	}
	return out
})

// StatOf summarizes values, skipping the absent (nil) ones.
func StatOf(values []*float64) Stat {
	s := Stat{Values: values}
	var sum float64
	for _, v := range values {
		if v == nil {
			continue
		}
		if s.N == 0 || *v < s.Min {
			s.Min = *v
		}
		if s.N == 0 || *v > s.Max {
			s.Max = *v
		}
		s.N++
		sum += *v
	}
	if s.N == 0 {
		return s
	}
	s.Mean = sum / float64(s.N)
	if s.N > 1 {
		var ss float64
		for _, v := range values {
			if v != nil {
				d := *v - s.Mean
				ss += d * d
			}
		}
		s.SD = math.Sqrt(ss / float64(s.N-1))
	}
	s.Mean, s.SD = round(s.Mean, 6), round(s.SD, 6)
	return s
}

// Aggregate returns the figures of one cohort over its repetitions: the
// first repetition's Run with Stats for every RepStats metric that some
// repetition has.
func Aggregate(reps []Run) Run {
	if len(reps) == 0 {
		return Run{}
	}
	out := reps[0]
	out.Stats = map[string]Stat{}
	for _, m := range statMetrics() {
		values := make([]*float64, len(reps))
		has := false
		for i := range reps {
			if v, ok := m.Value(&reps[i]); ok {
				values[i], has = &v, true
			}
		}
		if has {
			out.Stats[m.Name] = StatOf(values)
		}
	}
	return out
}

// SweepRow is one line of sweep.csv: one cohort at one point of a sweep.
type SweepRow struct {
	Point   []Setting // the swept fields' values, in the sweep's order
	Clients int       // clients per cohort at this point; 0 for an open workload
	Run     Run       // with Stats
}

// peakCalls returns the most calls in one Bucket from bucket from on.
func (r *Recorder) peakCalls(from int) int64 {
	var p int64
	for b := max(from, 0); b < int(r.used.Load()); b++ {
		p = max(p, atomic.LoadInt64(&r.counts[b*int(NumSeries)+int(SeriesCalls)]))
	}
	return p
}

// StatMetrics returns the metrics over repetitions, in the metric table's
// order: the columns of runs[].stats and of sweep.csv.
func StatMetrics() []Metric { return statMetrics() }
