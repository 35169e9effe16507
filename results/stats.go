package results

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
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

// metric reads one figure from a Run; ok is false when the Run has none.
type metric struct {
	name string
	get  func(r *Run) (float64, bool)
}

func always(f func(r *Run) float64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) { return f(r), true }
}

func optInt(f func(r *Run) *int64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) {
		if v := f(r); v != nil {
			return float64(*v), true
		}
		return 0, false
	}
}

func optFloat(f func(r *Run) *float64) func(r *Run) (float64, bool) {
	return func(r *Run) (float64, bool) {
		if v := f(r); v != nil {
			return *v, true
		}
		return 0, false
	}
}

// StatMetrics lists, in order, the metrics that Stats and sweep.csv carry,
// by their summary.json names (latency percentiles as
// latency_ms.<attempt|request>.<p50|p90|p99|p999|max>).
func StatMetrics() []string {
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = m.name
	}
	return out
}

var metrics = func() []metric {
	ms := []metric{
		{"requests", always(func(r *Run) float64 { return float64(r.Requests) })},
		{"succeeded", always(func(r *Run) float64 { return float64(r.Succeeded) })},
		{"failed", always(func(r *Run) float64 { return float64(r.Failed) })},
		{"success_ratio", always(func(r *Run) float64 { return r.SuccessRatio })},
		{"attempts", always(func(r *Run) float64 { return float64(r.Attempts) })},
		{"amplification", always(func(r *Run) float64 { return r.Amplification })},
		{"calls", optInt(func(r *Run) *int64 { return r.Calls })},
		{"completion_s", optFloat(func(r *Run) *float64 { return r.CompletionS })},
		{"peak_calls_per_10ms", optInt(func(r *Run) *int64 { return r.PeakCallsPer10ms })},
		{"peak_attempts_per_s", always(func(r *Run) float64 { return float64(r.PeakAttemptsPerS) })},
		{"herd_factor", always(func(r *Run) float64 { return r.HerdFactor })},
		{"failed_after_fault", always(func(r *Run) float64 { return float64(r.FailedAfterFault) })},
		{"recovery_s", optFloat(func(r *Run) *float64 { return r.RecoveryS })},
	}
	for _, kind := range []string{"attempt", "request"} {
		pick := func(r *Run) *Percentiles { return &r.LatencyMS.Attempt }
		if kind == "request" {
			pick = func(r *Run) *Percentiles { return &r.LatencyMS.Request }
		}
		for _, q := range []struct {
			name string
			get  func(p *Percentiles) float64
		}{
			{"p50", func(p *Percentiles) float64 { return p.P50 }},
			{"p90", func(p *Percentiles) float64 { return p.P90 }},
			{"p99", func(p *Percentiles) float64 { return p.P99 }},
			{"p999", func(p *Percentiles) float64 { return p.P999 }},
			{"max", func(p *Percentiles) float64 { return p.Max }},
		} {
			ms = append(ms, metric{"latency_ms." + kind + "." + q.name, always(func(r *Run) float64 { return q.get(pick(r)) })})
		}
	}
	return ms
}()

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
// first repetition's Run with Stats for every metric of StatMetrics that
// some repetition has.
func Aggregate(reps []Run) Run {
	if len(reps) == 0 {
		return Run{}
	}
	out := reps[0]
	out.Stats = map[string]Stat{}
	for _, m := range metrics {
		values := make([]*float64, len(reps))
		has := false
		for i := range reps {
			if v, ok := m.get(&reps[i]); ok {
				values[i], has = &v, true
			}
		}
		if has {
			out.Stats[m.name] = StatOf(values)
		}
	}
	return out
}

// SweepRow is one line of sweep.csv: one cohort at one client count.
type SweepRow struct {
	Clients int
	Run     Run // with Stats
}

// EncodeSweep returns sweep.csv: one row per (clients, strategy) with the
// number of repetitions and, for every metric of StatMetrics, its mean and
// standard deviation (empty where the cohort has no such figure).
func EncodeSweep(rows []SweepRow) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	head := []string{"clients", "strategy", "runs"}
	for _, m := range metrics {
		head = append(head, m.name+"_mean", m.name+"_sd")
	}
	_ = w.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range rows {
		n := 1
		for _, st := range r.Run.Stats {
			n = len(st.Values)
			break
		}
		rec := []string{strconv.Itoa(r.Clients), r.Run.Strategy, strconv.Itoa(n)}
		for _, m := range metrics {
			st, ok := r.Run.Stats[m.name]
			if !ok {
				if v, has := m.get(&r.Run); has && r.Run.Stats == nil {
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
