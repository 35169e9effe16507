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
// late the harness was, how far apart its clients learned of each crash,
// what it cost, and whether its figures can be trusted. Absent in virtual
// time, which is never late.
type Harness struct {
	// Trustworthy is the run's verdict (Verdict.Trusted): false when it
	// is not trustworthy. Warnings say where the harness was later than
	// the scenario's timescales allow (Limit, at the percentile the
	// scenario's figures depend on: Judge), and by how much: what a run
	// without a model to compare with is judged by, and what moved the
	// figures of one with a model.
	Trustworthy bool     `json:"trustworthy"`
	Warnings    []string `json:"warnings,omitempty"`
	// Figures is what the scenario's headline rests on, "waves" or
	// "counts" (Figures), which sets the limit and the percentile judged.
	Figures Figures `json:"figures"`
	// LimitMS is the lateness this scenario tolerates: Limit.
	LimitMS float64 `json:"limit_ms"`
	// SendLagMS is the send lag of every attempt of every cohort: send
	// time minus scheduled time. Each cohort's own is runs[].send_lag_ms.
	SendLagMS *Lag `json:"send_lag_ms"`
	// SpreadMS is how long after each crash of the plan the clients
	// learned of it (their attempt's error or answer arrived), every
	// cohort's together; runs[].spread_ms has each, runs[].spread_events
	// each crash's. Absent when no attempt was in flight at a crash (no
	// crash, or an external target).
	SpreadMS *Lag `json:"spread_ms,omitempty"`
	// TargetDriftMS is how much later than the model said the embedded
	// targets ended their modelled waits (service times, network hops,
	// added latency), every cohort's target together; runs[].target_drift_ms
	// has each. Absent for an external target.
	TargetDriftMS *Lag `json:"target_drift_ms,omitempty"`
	CPU           CPU  `json:"cpu"`
}

// Figures is what a scenario's headline rests on, and so how much
// lateness its figures tolerate and at which percentile (Limit, Judge).
type Figures int

const (
	// Waves: the herd factor and the failures after a fault, figures of
	// synchronized waves seen in 10 ms buckets. A wave is as wide as its
	// latest clients: the tail (p99) of the lateness is judged.
	Waves Figures = iota
	// Counts: totals over the run (calls, attempts, amplification,
	// successes) and times of seconds (completion, recovery). A total
	// moves with the typical lateness (a late 1% of attempts moves it by
	// about 1%): the median (p50) is judged.
	Counts
)

// String returns "waves" or "counts".
func (f Figures) String() string {
	if f == Counts {
		return "counts"
	}
	return "waves"
}

// MarshalText writes f as its name.
func (f Figures) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText reads "waves" or "counts".
func (f *Figures) UnmarshalText(b []byte) error {
	switch string(b) {
	case "waves":
		*f = Waves
	case "counts":
		*f = Counts
	default:
		return fmt.Errorf("figures %q: want waves or counts", b)
	}
	return nil
}

// Timescales are what a scenario's figures depend on, the inputs of Limit.
type Timescales struct {
	Figures Figures
	// Bases are the strategies' backoff bases (0: a strategy that retries
	// at once, which sets no limit).
	Bases []time.Duration
	// QueueTimeout is the target's queue timeout (0: none).
	QueueTimeout time.Duration
	// Hop is the model's mean network hop, one way (0: none).
	Hop time.Duration
}

// Limit returns the lateness a real run of a scenario tolerates before its
// figures are not trustworthy. This is the one definition; docs/results.md
// states it.
//
//   - Waves: a tenth of the smallest backoff base (a retry sent that late
//     has moved by a tenth of its shortest wait) and a tenth of the
//     target's queue timeout (a wave that late has used a tenth of the
//     time its requests may wait), never more than one timeline bucket
//     (10 ms: a wave later or wider than that spills into the herd
//     factor's next bucket).
//   - Counts: the smallest backoff base and the model's round trip (two
//     hops), whichever is shorter, never more than 10 ms: typical
//     attempts that late reorder against each other's retries and hops.
//
// Either way never less than MinLagLimit. LagLimit is the waves rule
// without a queue timeout.
func Limit(ts Timescales) time.Duration {
	limit := Bucket
	for _, b := range ts.Bases {
		if b <= 0 {
			continue
		}
		if ts.Figures == Counts {
			limit = min(limit, b)
		} else {
			limit = min(limit, b/10)
		}
	}
	switch {
	case ts.Figures == Counts && ts.Hop > 0:
		limit = min(limit, 2*ts.Hop)
	case ts.Figures == Waves && ts.QueueTimeout > 0:
		limit = min(limit, ts.QueueTimeout/10)
	}
	return max(limit, MinLagLimit)
}

// LagLimit returns Limit of a waves scenario without a queue timeout: a
// tenth of the smallest backoff base among its strategies, never more than
// one timeline bucket (10 ms) and never less than MinLagLimit. Strategies
// that retry at once (no base) set no limit of their own.
func LagLimit(bases []time.Duration) time.Duration {
	return Limit(Timescales{Figures: Waves, Bases: bases})
}

// MinLagLimit is the least lateness Limit allows. On Linux the Go
// runtime sleeps in epoll_wait, whose timeout counts whole milliseconds:
// a timer that falls due while every goroutine waits fires up to 1 ms
// late, by design, on an idle machine (measured here: a 5-client run at
// load average 0.3 has a send lag p50 of 0.5 to 0.7 ms and a p99 of 1.3 to
// 1.5 ms). Twice that granularity is the least a limit can ask without
// calling every run untrustworthy.
const MinLagLimit = 2 * time.Millisecond

// TailFactor is how many times Limit a counts scenario's tail (p99)
// may be late (Judge): a total hardly moves when 1% of its attempts are
// late, until they are as late as the waits themselves.
const TailFactor = 10

// Judge fills h.Trustworthy and h.Warnings from each cohort's send lag,
// spread and target drift in runs, against h.LimitMS, at the percentiles
// h.Figures says:
//
//   - waves: every cohort's send lag p99 and spread p99 within the limit
//     (a wave is as wide as its last clients: the late senders, and those
//     that learned of the crash late and retry late from there), and its
//     target drift p50 (each modelled wait ending that late slows the
//     service; a late timer now and then does not);
//   - counts: the p50 of each of the three within the limit (a total
//     moves with the typical lateness), and the send lag's and spread's
//     p99 within TailFactor times it (a tail as late as the waits
//     themselves breaks the lockstep of the retries that are counted).
func Judge(h *Harness, runs []Run) {
	h.Trustworthy, h.Warnings = true, nil
	type check struct {
		pct   string
		at    func(*Lag) float64
		limit float64
	}
	checks := []check{{"p99", func(l *Lag) float64 { return l.P99 }, h.LimitMS}}
	if h.Figures == Counts {
		checks = []check{{"p50", func(l *Lag) float64 { return l.P50 }, h.LimitMS}, {"p99", func(l *Lag) float64 { return l.P99 }, TailFactor * h.LimitMS}}
	}
	for _, r := range runs {
		for _, c := range checks {
			if l := r.SendLagMS; l != nil && c.at(l) > c.limit {
				h.Trustworthy = false
				h.Warnings = append(h.Warnings, fmt.Sprintf(
					"%s: attempts were sent late, %s %s after their scheduled time (limit %s): %s",
					r.Strategy, c.pct, lagText(c.at(l)), lagText(c.limit), smeared(h.Figures)))
			}
		}
		for _, c := range checks {
			if l := r.SpreadMS; l != nil && c.at(l) > c.limit {
				h.Trustworthy = false
				h.Warnings = append(h.Warnings, fmt.Sprintf(
					"%s: the clients learned of %s over %s %s (max %s) where the model has them learn at once (limit %s): %s",
					r.Strategy, crashes(r.SpreadEvents), c.pct, lagText(c.at(l)), lagText(l.Max), lagText(c.limit), wider(h.Figures)))
			}
		}
		if d := r.TargetDriftMS; d != nil && d.P50 > h.LimitMS {
			h.Trustworthy = false
			h.Warnings = append(h.Warnings, fmt.Sprintf(
				"%s: the embedded target ended its modelled waits late, p50 %s (limit %s): it served slower than the model says",
				r.Strategy, lagText(d.P50), lagText(h.LimitMS)))
		}
	}
}

// ModelCheck is one headline figure compared with the model's, and how
// far it may move: by more than Rel of the model's value and more than
// Abs (a Band's first part).
type ModelCheck struct {
	Name     string // the metric's name
	Rel, Abs float64
}

// ModelChecks are the figures of what follows a fault among Bands, and
// their tolerances: those ModelMoved compares.
var ModelChecks = func() []ModelCheck {
	var out []ModelCheck
	for _, b := range Bands {
		if b.Faults {
			out = append(out, b.ModelCheck)
		}
	}
	return out
}()

// MaxLatenessNeeds is the largest factor of less lateness the model's
// second opinion tries (2, 4, ... up to it) before it says none holds.
const MaxLatenessNeeds = 256

// ModelMoved returns, for each figure of ModelChecks that moved beyond
// its tolerance from sim to late, "<figure> <late> instead of <sim>"
// (a recovery present in one and not the other moved: "never"); a
// figure missing from both is not compared.
func ModelMoved(sim, late Values) []string {
	if sim == nil || late == nil {
		return nil
	}
	var moved []string
	for _, c := range ModelChecks {
		ref, ok1 := sim.Get(c.Name)
		v, ok2 := late.Get(c.Name)
		if c.Name == "recovery_s" && ok1 != ok2 {
			// A recovery is missing where the run never recovered.
			text := func(v float64, ok bool) string {
				if !ok {
					return "never"
				}
				return figureText(c.Name, v)
			}
			moved = append(moved, "recovery "+text(v, ok2)+" instead of "+text(ref, ok1))
			continue
		}
		if !ok1 || !ok2 {
			continue
		}
		if d := v - ref; d > max(c.Rel*ref, c.Abs) || -d > max(c.Rel*ref, c.Abs) {
			moved = append(moved, fmt.Sprintf("%s %s instead of %s", strings.TrimSuffix(strings.ReplaceAll(c.Name, "_", " "), " s"), figureText(c.Name, v), figureText(c.Name, ref)))
		}
	}
	return moved
}

// figureText writes a value of the metric name as the summary's table
// does: seconds with two decimals, counts whole, other numbers with one.
func figureText(name string, v float64) string {
	m, _ := LookupMetric(name)
	switch m.Unit {
	case Seconds:
		return fmt.Sprintf("%.2fs", v)
	case Count:
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func smeared(f Figures) string {
	if f == Counts {
		return "counts and completion times are off"
	}
	return "waves and timings are smeared"
}

func wider(f Figures) string {
	if f == Counts {
		return "the retries after it are spread out, counts are off"
	}
	return "its waves are wider than the model's, the herd factor and the failures after the fault are off"
}

// crashes names the crashes of events: "the crash at 6.00s", or "the
// crashes (at 3.00s, 9.00s)".
func crashes(events []Event) string {
	var at []string
	for _, e := range events {
		if e.Attempts > 0 {
			at = append(at, fmt.Sprintf("%.2fs", e.AtS))
		}
	}
	switch len(at) {
	case 0:
		return "the crashes"
	case 1:
		return "the crash at " + at[0]
	}
	return "the crashes (at " + strings.Join(at, ", ") + ")"
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
	if d := h.SpreadMS; d != nil {
		fmt.Fprintf(&b, "; spread after crashes p50 %s, p99 %s, max %s", lagText(d.P50), lagText(d.P99), lagText(d.Max))
	}
	if d := h.TargetDriftMS; d != nil {
		fmt.Fprintf(&b, "; target drift p50 %s, p99 %s", lagText(d.P50), lagText(d.P99))
	}
	fmt.Fprintf(&b, " (%s: limit %s on each cohort's %s); CPU %.0f%% of %d cores", h.Figures, lagText(h.LimitMS), judged(h.Figures), 100*h.CPU.Utilization, h.CPU.Cores)
	if l := h.CPU.LoadAvg1m; l != nil {
		fmt.Fprintf(&b, ", load average %.1f", *l)
	}
	if h.Trustworthy {
		b.WriteString(": the harness kept up.")
	} else {
		switch n := len(h.Warnings); n {
		case 0:
			b.WriteString(": NOT TRUSTWORTHY, the harness could not keep up.")
		case 1:
			fmt.Fprintf(&b, ": NOT TRUSTWORTHY, the harness could not keep up (%s).", h.Warnings[0])
		default:
			// The warnings, one a line, follow the line on the terminal
			// and in the report: say the first, count the rest.
			fmt.Fprintf(&b, ": NOT TRUSTWORTHY, the harness could not keep up (%s; and %d more, each in the warnings).", h.Warnings[0], n-1)
		}
	}
	return b.String()
}

// judged names the percentile Judge compares with the limit.
func judged(f Figures) string {
	if f == Counts {
		return fmt.Sprintf("p50, %d× on p99", TailFactor)
	}
	return "p99, drift p50"
}

// lagText writes a lateness in milliseconds readably: microseconds below
// 1 ms, where lateness usually is.
func lagText(ms float64) string {
	if ms < 1 {
		return fmt.Sprintf("%.0fµs", ms*1000)
	}
	return MsText(ms)
}
