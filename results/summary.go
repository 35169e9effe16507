package results

import (
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Summary is summary.json: the figures of one run of a scenario, one entry
// per cohort in Runs. Field names are a contract (docs/results.md).
type Summary struct {
	Scenario    string        `json:"scenario"`
	Description string        `json:"description,omitempty"`
	Mode        string        `json:"mode"` // "real" or "sim"
	Seed        uint64        `json:"seed"`
	Version     string        `json:"version"`
	Started     time.Time     `json:"started"`
	DurationS   float64       `json:"duration_s"`
	Partial     bool          `json:"partial"` // interrupted: figures cover what was recorded
	Workload    string        `json:"workload"`
	Faults      []FaultWindow `json:"faults"`
	Runs        []Run         `json:"runs"`
	// Target is the external target's URL; empty for the embedded target.
	Target string `json:"target,omitempty"`
	// Thresholds are the scenario's release gates checked against the runs;
	// absent when the scenario has none.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
}

// FaultWindow is one fault of the chaos plan.
type FaultWindow struct {
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	AtS  float64 `json:"at_s"`
	ForS float64 `json:"for_s"`
}

// Run is the figures of one cohort.
type Run struct {
	Strategy         string           `json:"strategy"`
	Requests         int64            `json:"requests"`
	Succeeded        int64            `json:"succeeded"`
	Failed           int64            `json:"failed"`
	SuccessRatio     float64          `json:"success_ratio"`
	Attempts         int64            `json:"attempts"`
	Amplification    float64          `json:"amplification"`
	PeakAttemptsPerS int64            `json:"peak_attempts_per_s"`
	HerdFactor       float64          `json:"herd_factor"`
	FailedAfterFault int64            `json:"failed_after_fault"`
	RecoveryS        *float64         `json:"recovery_s"`
	Outcomes         map[string]int64 `json:"outcomes"`
	LatencyMS        Latencies        `json:"latency_ms"`

	// What the client policies and the target's wasted work did; see
	// policy.go.
	BudgetDenied    int64 `json:"budget_denied"`
	BreakerRejected int64 `json:"breaker_rejected"`
	Throttled       int64 `json:"throttled"`
	MaxOpenBreakers int64 `json:"max_open_breakers"`
	WastedWork      int64 `json:"wasted_work"`
}

// Latencies holds the attempt and request latency percentiles.
type Latencies struct {
	Attempt Percentiles `json:"attempt"`
	Request Percentiles `json:"request"`
}

// Percentiles in milliseconds, read from an HDR histogram.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// PercentilesOf reads the percentiles of a histogram of microseconds.
func PercentilesOf(h *hdrhistogram.Histogram) Percentiles {
	if h.TotalCount() == 0 {
		return Percentiles{}
	}
	ms := func(us int64) float64 { return round(float64(us)/1000, 3) }
	return Percentiles{
		P50:  ms(h.ValueAtQuantile(50)),
		P90:  ms(h.ValueAtQuantile(90)),
		P99:  ms(h.ValueAtQuantile(99)),
		P999: ms(h.ValueAtQuantile(99.9)),
		Max:  ms(h.Max()),
	}
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// Window is the span of the chaos plan that the metrics measure from: the
// start of the first fault and the end of the last. Without faults both are
// zero and the metrics measure from the start of the run.
type Window struct {
	FirstStart, LastEnd time.Duration
}

// Cohort is one cohort's recorder with its strategy name.
type Cohort struct {
	Strategy string
	Rec      *Recorder
}

// Summarize computes a cohort's figures.
func Summarize(c Cohort, w Window) Run {
	fine := c.Rec.Timeline(Bucket)
	attempts, ok := fine.Attempts(), fine.Column(Series(OK))
	live := c.Rec.Live()
	r := Run{
		Strategy:         c.Strategy,
		Requests:         live.Requests,
		Succeeded:        live.Succeeded,
		Failed:           live.Failed,
		Attempts:         live.Attempts,
		PeakAttemptsPerS: Peak(c.Rec.Timeline(time.Second).Attempts()),
		HerdFactor:       round(HerdFactor(attempts, BucketAt(w.FirstStart)), 3),
		FailedAfterFault: FailedFrom(ok, attempts, BucketAt(w.LastEnd)),
		Outcomes:         map[string]int64{},
	}
	if r.Requests > 0 {
		r.SuccessRatio = round(float64(r.Succeeded)/float64(r.Requests), 4)
		r.Amplification = round(float64(r.Attempts)/float64(r.Requests), 3)
	}
	if d, ok := Recovery(ok, attempts, BucketAt(w.LastEnd)); ok {
		s := d.Seconds()
		r.RecoveryS = &s
	}
	for o := Outcome(0); o < NumOutcomes; o++ {
		var n int64
		for _, row := range fine.Rows {
			n += row[o]
		}
		r.Outcomes[o.String()] = n
	}
	r.addPolicies(fine)
	ah, rh := c.Rec.Histograms()
	r.LatencyMS = Latencies{Attempt: PercentilesOf(ah), Request: PercentilesOf(rh)}
	return r
}
