package results

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

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
	// Calls is, for an OCC target, the writes it served (AWS's "calls":
	// successes plus conflicts). Absent for other targets.
	Calls *int64 `json:"calls,omitempty"`
	// PeakCallsPer10ms is, for an OCC target, the most writes served in one
	// 10 ms bucket from 1 s on: the height of the retry waves (the first
	// second, when every client starts at once, is left out).
	PeakCallsPer10ms *int64 `json:"peak_calls_per_10ms,omitempty"`
	// CompletionS is, for a oneshot workload, the time from the start until
	// the last unit of work ended. Absent when some work had not ended when
	// the run did.
	CompletionS *float64 `json:"completion_s,omitempty"`
	// Stats summarizes every metric above over the repetitions (--runs):
	// the figures above are the first repetition's.
	Stats map[string]Stat `json:"stats,omitempty"`

	// The self-check of a real-time run (selfcheck.go), over every
	// repetition; absent in virtual time. SendLagMS is how late this
	// cohort's attempts were sent; TargetDriftMS how late its embedded
	// target ended the waits its model set (absent for an external target).
	SendLagMS     *Lag `json:"send_lag_ms,omitempty"`
	TargetDriftMS *Lag `json:"target_drift_ms,omitempty"`
	// Started is, when the cohorts ran one after the other
	// (Summary.CohortsApart), this cohort's own t = 0; absent otherwise.
	Started *time.Time `json:"started,omitempty"`
	// Sim is, for a real-time run with an embedded target, the simulator's
	// figures for the same plan and seed (simref.go); absent otherwise.
	Sim *SimReference `json:"sim,omitempty" threshold:"-"`
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
	// One pass for all five; the 100th percentile is exactly h.Max(), which
	// would walk the whole histogram again.
	v := h.ValueAtPercentilesSlice(percentiles[:])
	return Percentiles{P50: ms(v[0]), P90: ms(v[1]), P99: ms(v[2]), P999: ms(v[3]), Max: ms(v[4])}
}

var percentiles = [...]float64{50, 90, 99, 99.9, 100}

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
	OCC      bool // the target is an OCC row: report calls
	OneShot  bool // the workload is oneshot: report completion_s
	// Started is the cohort's own t = 0 when it ran apart from the others
	// (Summary.CohortsApart); zero means the run's (Summary.Started).
	Started time.Time
}

// Summarize computes a cohort's figures.
func Summarize(c Cohort, w Window) Run {
	attempts, ok, outcomes := c.Rec.columns()
	defer putColumns(attempts)
	live := c.Rec.Live()
	var peak int64
	for b := 0; b < len(attempts); b += WindowBuckets {
		var sum int64
		for _, v := range attempts[b:min(b+WindowBuckets, len(attempts))] {
			sum += v
		}
		peak = max(peak, sum)
	}
	r := Run{
		Strategy:         c.Strategy,
		Requests:         live.Requests,
		Succeeded:        live.Succeeded,
		Failed:           live.Failed,
		Attempts:         live.Attempts,
		PeakAttemptsPerS: peak,
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
		r.Outcomes[o.String()] = outcomes[o]
	}
	r.addPolicies(c.Rec)
	ah, rh := c.Rec.Histograms()
	r.LatencyMS = Latencies{Attempt: PercentilesOf(ah), Request: PercentilesOf(rh)}
	if c.OCC {
		calls, peak := c.Rec.Calls(), c.Rec.peakCalls(BucketAt(time.Second))
		r.Calls, r.PeakCallsPer10ms = &calls, &peak
	}
	if c.OneShot && r.Requests == r.Succeeded+r.Failed {
		s := round(c.Rec.LastEnd().Seconds(), 6)
		r.CompletionS = &s
	}
	return r
}
