package results

import (
	"fmt"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The self-check: a real-time run measures how late the harness itself
// was, so that a machine that cannot keep up (a busy CI runner, a laptop
// running a video call) is said to be the bottleneck instead of silently
// producing wrong figures. The engine measures; this file keeps the
// records, the one rule that judges them and the words that report them.

// Lag histograms record microseconds from 0 to one hour with 2 significant
// figures (1%): enough to compare a percentile with a limit, and small
// (25 KB), since every shard of a real-time recorder has one.
const lagSigF = 2

// NewLagHistogram returns an empty histogram of lateness in microseconds,
// the kind SendLag returns.
func NewLagHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(histMin, histMax, lagSigF) }

// recordLag records one attempt's send lag. The caller holds s.mu.
func (s *Shard) recordLag(d time.Duration) {
	if s.lag == nil {
		s.lag = NewLagHistogram()
	}
	_ = s.lag.RecordValue(min(max(int64(d/time.Microsecond), 0), histMax))
}

// SendLag returns the send lag of every attempt recorded so far, merged
// over the shards, in microseconds. A simulated (unshared) recorder has
// none: it returns an empty histogram.
func (r *Recorder) SendLag() *hdrhistogram.Histogram {
	h := NewLagHistogram()
	for i := range r.shards {
		s := &r.shards[i]
		s.mu.Lock()
		if s.lag != nil {
			h.Merge(s.lag)
		}
		s.mu.Unlock()
	}
	return h
}

// Lag is how late the harness did what it had scheduled, in milliseconds,
// from an HDR histogram of microseconds: the median, the 99th percentile
// and the worst.
type Lag struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// LagOf reads a lag histogram of microseconds; nil if it is empty.
func LagOf(h *hdrhistogram.Histogram) *Lag {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	v := h.ValueAtPercentiles([]float64{50, 99, 100})
	ms := func(us int64) float64 { return round(float64(us)/1000, 3) }
	return &Lag{P50: ms(v[50]), P99: ms(v[99]), Max: ms(v[100])}
}

// CPU is what the herdbench process used during a real run (its swarm and
// its embedded targets together), from getrusage.
type CPU struct {
	UserS float64 `json:"user_s"` // CPU seconds in user mode
	SysS  float64 `json:"sys_s"`  // CPU seconds in the kernel
	WallS float64 `json:"wall_s"` // wall-clock seconds of the run, its lead included
	Cores int     `json:"cores"`  // the cores the process may use (GOMAXPROCS)
	// Utilization is (user + sys) / (cores × wall): near 1, the process
	// used every core it had and was likely starved.
	Utilization float64 `json:"utilization"`
	// LoadAvg1m is the machine's one-minute load average when the run
	// started (Linux); absent where the system does not say.
	LoadAvg1m *float64 `json:"load_avg_1m,omitempty"`
}

// Harness is a real-time run's self-check (summary.json's "harness"): how
// late the harness was, what it cost, and whether its figures can be
// trusted. Absent in virtual time, which is never late.
type Harness struct {
	// Trustworthy is false when the harness was too late for the
	// scenario's timescales (LagLimit): some cohort's send lag p99, or
	// its embedded target's drift p50, exceeded LimitMS (Judge). Warnings
	// say which and by how much.
	Trustworthy bool     `json:"trustworthy"`
	Warnings    []string `json:"warnings,omitempty"`
	// LimitMS is the lateness this scenario tolerates: LagLimit.
	LimitMS float64 `json:"limit_ms"`
	// SendLagMS is the send lag of every attempt of every cohort: send
	// time minus scheduled time. Each cohort's own is runs[].send_lag_ms.
	SendLagMS *Lag `json:"send_lag_ms"`
	// TargetDriftMS is how much later than the model said the embedded
	// targets ended their modelled waits (service times, network hops,
	// added latency), every cohort's target together; runs[].target_drift_ms
	// has each. Absent for an external target.
	TargetDriftMS *Lag `json:"target_drift_ms,omitempty"`
	CPU           CPU  `json:"cpu"`
}

// LagLimit returns the lateness a real run of a scenario tolerates before
// its figures are not trustworthy: a tenth of the smallest backoff base
// among its strategies (a retry sent that late has moved by a tenth of its
// shortest wait), never more than one timeline bucket (10 ms: a wave sent
// later than that is smeared into the herd factor's next bucket) and never
// less than MinLagLimit. Strategies that retry at once (no base) set no
// limit of their own. This is the one definition; docs/results.md states
// it.
func LagLimit(bases []time.Duration) time.Duration {
	limit := Bucket
	for _, b := range bases {
		if b > 0 {
			limit = min(limit, b/10)
		}
	}
	return max(limit, MinLagLimit)
}

// MinLagLimit is the least lateness LagLimit allows. On Linux the Go
// runtime sleeps in epoll_wait, whose timeout counts whole milliseconds:
// a timer that falls due while every goroutine waits fires up to 1 ms
// late, by design, on an idle machine (measured here: a 5-client run at
// load average 0.3 has a send lag p50 of 0.5 to 0.7 ms and a p99 of 1.3 to
// 1.5 ms). Twice that granularity is the least a limit can ask without
// calling every run untrustworthy.
const MinLagLimit = 2 * time.Millisecond

// Judge fills h.Trustworthy and h.Warnings from each cohort's send lag and
// target drift in runs, against h.LimitMS: a run is trustworthy when every
// cohort's send lag p99 and target drift p50 are within the limit. The
// tail of the send lag is what smears a wave (the last clients of a wave
// are the late ones); the target's typical drift is what slows its
// service down (each modelled wait ends that much late), while a late
// timer now and then does not.
func Judge(h *Harness, runs []Run) {
	h.Trustworthy, h.Warnings = true, nil
	for _, r := range runs {
		if l := r.SendLagMS; l != nil && l.P99 > h.LimitMS {
			h.Trustworthy = false
			h.Warnings = append(h.Warnings, fmt.Sprintf(
				"%s: attempts were sent late, p99 %s after their scheduled time (limit %s): waves and timings are smeared",
				r.Strategy, lagText(l.P99), lagText(h.LimitMS)))
		}
		if d := r.TargetDriftMS; d != nil && d.P50 > h.LimitMS {
			h.Trustworthy = false
			h.Warnings = append(h.Warnings, fmt.Sprintf(
				"%s: the embedded target ended its modelled waits late, p50 %s (limit %s): it served slower than the model says",
				r.Strategy, lagText(d.P50), lagText(h.LimitMS)))
		}
	}
}

// SelfCheckLine returns one line that sums up a real run's self-check, or
// "" for a run without one (virtual time).
func SelfCheckLine(s *Summary) string {
	h := s.Harness
	if h == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("self-check: ")
	if h.SendLagMS != nil {
		fmt.Fprintf(&b, "send lag p50 %s, p99 %s, max %s", lagText(h.SendLagMS.P50), lagText(h.SendLagMS.P99), lagText(h.SendLagMS.Max))
	} else {
		b.WriteString("no attempts")
	}
	if d := h.TargetDriftMS; d != nil {
		fmt.Fprintf(&b, "; target drift p50 %s, p99 %s", lagText(d.P50), lagText(d.P99))
	}
	fmt.Fprintf(&b, " (limit %s); CPU %.0f%% of %d cores", lagText(h.LimitMS), 100*h.CPU.Utilization, h.CPU.Cores)
	if l := h.CPU.LoadAvg1m; l != nil {
		fmt.Fprintf(&b, ", load average %.1f", *l)
	}
	if h.Trustworthy {
		b.WriteString(": the harness kept up.")
	} else {
		fmt.Fprintf(&b, ": NOT TRUSTWORTHY, the harness could not keep up (%s).", strings.Join(h.Warnings, "; "))
	}
	return b.String()
}

// lagText writes a lateness in milliseconds readably: microseconds below
// 1 ms, where lateness usually is.
func lagText(ms float64) string {
	if ms < 1 {
		return fmt.Sprintf("%.0fµs", ms*1000)
	}
	return msText(ms)
}
