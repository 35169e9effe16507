package results

import "math"

// SimReference is the simulator's figures for the same plan and seed as a
// real-time run's cohort (runs[].sim in summary.json): the model's answer
// without sockets or scheduler noise, to read the real figures against.
// With repetitions (--runs K) each figure is the mean over the same K
// seeds, recovery_s over the repetitions that recovered, success_ratio
// over those in which some request ended.
type SimReference struct {
	Requests         float64  `json:"requests"`
	Succeeded        float64  `json:"succeeded"`
	Failed           float64  `json:"failed"`
	Unfinished       float64  `json:"unfinished"`
	SuccessRatio     *float64 `json:"success_ratio"`
	Attempts         float64  `json:"attempts"`
	Amplification    float64  `json:"amplification"`
	PeakAttemptsPerS float64  `json:"peak_attempts_per_s"`
	HerdFactor       float64  `json:"herd_factor"`
	FailedAfterFault float64  `json:"failed_after_fault"`
	RecoveryS        *float64 `json:"recovery_s"`
	Calls            *float64 `json:"calls,omitempty"`
	CompletionS      *float64 `json:"completion_s,omitempty"`
}

// SimReferenceOf returns the reference figures of a simulated cohort's
// Run: its own figures, or the means of its Stats when it has them.
func SimReferenceOf(r Run) *SimReference {
	get := func(name string, v float64) float64 {
		if st, ok := r.Stats[name]; ok && st.N > 0 {
			return st.Mean
		}
		return v
	}
	opt := func(name string, v *float64) *float64 {
		if st, ok := r.Stats[name]; ok {
			if st.N == 0 {
				return nil
			}
			m := st.Mean
			return &m
		}
		return v
	}
	optInt := func(name string, v *int64) *float64 {
		if v == nil {
			return opt(name, nil)
		}
		f := float64(*v)
		return opt(name, &f)
	}
	round := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	ref := &SimReference{
		Requests:         round(get("requests", float64(r.Requests))),
		Succeeded:        round(get("succeeded", float64(r.Succeeded))),
		Failed:           round(get("failed", float64(r.Failed))),
		Unfinished:       round(get("unfinished", float64(r.Unfinished))),
		SuccessRatio:     opt("success_ratio", r.SuccessRatio),
		Attempts:         round(get("attempts", float64(r.Attempts))),
		Amplification:    round(get("amplification", r.Amplification)),
		PeakAttemptsPerS: round(get("peak_attempts_per_s", float64(r.PeakAttemptsPerS))),
		HerdFactor:       round(get("herd_factor", r.HerdFactor)),
		FailedAfterFault: round(get("failed_after_fault", float64(r.FailedAfterFault))),
		RecoveryS:        opt("recovery_s", r.RecoveryS),
		Calls:            optInt("calls", r.Calls),
		CompletionS:      opt("completion_s", r.CompletionS),
	}
	for _, p := range []*float64{ref.SuccessRatio, ref.RecoveryS, ref.Calls, ref.CompletionS} {
		if p != nil {
			*p = round(*p)
		}
	}
	return ref
}
