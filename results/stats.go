package results

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
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

// EncodeSweep returns sweep.csv: one row per point and strategy, with the
// value of each swept field (a column each, named by its path), the
// clients per cohort, the number of repetitions and, for every RepStats
// metric in the table's order, its mean and standard deviation (empty
// where the cohort has no such figure). Every row has the first row's
// swept fields.
func EncodeSweep(rows []SweepRow) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var head []string
	if len(rows) > 0 {
		for _, st := range rows[0].Point {
			head = append(head, st.Field)
		}
	}
	head = append(head, "clients", "strategy", "runs")
	for _, m := range statMetrics() {
		head = append(head, m.Name+"_mean", m.Name+"_sd")
	}
	_ = w.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range rows {
		n := 1
		for _, st := range r.Run.Stats {
			n = len(st.Values)
			break
		}
		var rec []string
		for _, st := range r.Point {
			rec = append(rec, st.Value)
		}
		rec = append(rec, strconv.Itoa(r.Clients), r.Run.Strategy, strconv.Itoa(n))
		for _, m := range statMetrics() {
			st, ok := r.Run.Stats[m.Name]
			if !ok {
				if v, has := m.Value(&r.Run); has && r.Run.Stats == nil {
					rec = append(rec, f(v), "0")
				} else {
					rec = append(rec, "", "")
				}
				continue
			}
			rec = append(rec, f(st.Mean), f(st.SD))
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// peakCalls returns the most calls in one Bucket from bucket from on.
func (r *Recorder) peakCalls(from int) int64 {
	var p int64
	for b := max(from, 0); b < int(r.used.Load()); b++ {
		p = max(p, atomic.LoadInt64(&r.counts[b*int(NumSeries)+int(SeriesCalls)]))
	}
	return p
}
