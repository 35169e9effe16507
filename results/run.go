package results

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Run is the figures of one cohort.
type Run struct {
	// Tier names, in an entry of Tiers, the tier whose figures these are;
	// empty in runs[].
	Tier      string `json:"tier,omitempty"`
	Strategy  string `json:"strategy"`
	Requests  int64  `json:"requests"`
	Succeeded int64  `json:"succeeded"`
	Failed    int64  `json:"failed"`
	// Unfinished is the requests started that had neither succeeded nor
	// failed when the run ended: on the wire, in a backoff wait, or
	// refused by a client's policy and waiting to try again.
	Unfinished int64 `json:"unfinished"`
	// SuccessRatio is Succeeded / (Succeeded + Failed), over the requests
	// that ended; null when none did. Unfinished requests are in neither
	// side: a run that stops in the middle of a storm leaves many.
	SuccessRatio     *float64         `json:"success_ratio"`
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
	// Tiers is, for a chain of tiers, what reached each tier, from the one
	// the clients call down to the bottom one (tiers.go); absent for a
	// single target. The figures above are the first tier's; WastedWork
	// is the bottom tier's. Each is a Run of the calls into its tier, of
	// which summary.json writes the InTiers figures; its Amplification is
	// attempts per user request (the cohort's requests): retries multiply
	// down a chain, so this is the fleet's amplification at that tier.
	Tiers []Run `json:"tiers,omitempty"`
	// Stats summarizes every metric above over the repetitions (--runs):
	// the figures above are the first repetition's.
	Stats map[string]Stat `json:"stats,omitempty"`

	// The self-check of a real-time run (selfcheck.go), over every
	// repetition; absent in virtual time. SendLagMS is how late this
	// cohort's attempts were sent; TargetDriftMS how late its embedded
	// target ended the waits its model set (absent for an external target).
	SendLagMS     *Lag `json:"send_lag_ms,omitempty"`
	TargetDriftMS *Lag `json:"target_drift_ms,omitempty"`
	// SpreadMS is how long after the plan's crashes this cohort's clients
	// learned of them (spread.go), SpreadEvents each crash's; absent when
	// no attempt was in flight at a crash.
	SpreadMS     *Lag    `json:"spread_ms,omitempty"`
	SpreadEvents []Event `json:"spread_events,omitempty" threshold:"-"`
	// Started is, when the cohorts ran one after the other
	// (Summary.CohortsApart), this cohort's own t = 0; absent otherwise.
	Started *time.Time `json:"started,omitempty"`
	// Sim is, for a real-time run with an embedded target, the simulator's
	// figures for the same plan and seed (SimFigures: the InSim figures of
	// the simulator's Run); absent otherwise.
	Sim Values `json:"sim,omitempty"`
	// SimLate is, beside Sim, the simulator's figures for the same plan
	// and seed with this run's own lateness (its clients learning of their
	// failures as late as this run's did: engine's second opinion,
	// JudgeModel); absent when there is no Sim or the harness was never
	// late enough to ask.
	SimLate Values `json:"sim_with_lateness,omitempty"`
	// LatenessNeeds is, when SimLate moved a headline figure (JudgeModel),
	// how many times less late than this run's a harness must be for the
	// model's figures to hold: the least of 2, 4, ... MaxLatenessNeeds
	// that does; 0 when they held, or none up to it did.
	LatenessNeeds int `json:"lateness_needs,omitempty"`
	// Computed holds the figures of the metrics whose entry in the table
	// computes them (Metric.Compute), by name: summary.json writes them
	// after the fields above, in the table's order; a missing one is null.
	Computed Values `json:"-"`
	// Unmeasured names the figures of a recording (Summary.Recorded) that
	// what it saw cannot tell, by metric name or object ("requests",
	// "latency_ms.request"): they are missing (Metric.Value), so
	// summary.json writes them as null, and thresholds read them as null
	// (+∞), never as the 0 they hold here.
	Unmeasured []string `json:"unmeasured,omitempty"`
}

// IsUnmeasured reports whether the figure name (a metric's name, dotted)
// is among r's unmeasured ones, itself or inside an object that is.
func (r *Run) IsUnmeasured(name string) bool {
	for _, u := range r.Unmeasured {
		if name == u || strings.HasPrefix(name, u+".") {
			return true
		}
	}
	return false
}

// Latencies holds the attempt and request latency percentiles.
type Latencies struct {
	Attempt Percentiles `json:"attempt"`
	Request Percentiles `json:"request"`
	// Upstream is, in a chaos proxy's recording, the time its upstream
	// took to answer the attempts it forwarded; absent otherwise.
	Upstream *Percentiles `json:"upstream,omitempty"`
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
	// Tiers names, for a chain of tiers, each tier from the one the
	// clients call down to the bottom one; Below[k] records the attempts
	// that reached tier k+1, as Rec records those that reached the first.
	// Both nil for a single target.
	Tiers []string
	Below []*Recorder
	// Hedged says the cohort's strategy hedges (clients.Hedge): its
	// summary carries hedges and hedges_won.
	Hedged bool
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
	r.Unfinished = max(0, r.Requests-r.Succeeded-r.Failed)
	r.SuccessRatio = SuccessRatioOf(r.Succeeded, r.Failed)
	if r.Requests > 0 {
		r.Amplification = round(float64(r.Attempts)/float64(r.Requests), 3)
	}
	if d, ok := Recovery(ok, attempts, BucketAt(w.LastEnd)); ok {
		s := round(d.Seconds(), 6) // d.Seconds() of 1.64 s is 1.6400000000000001
		r.RecoveryS = &s
	}
	for o := Outcome(0); o < NumOutcomes; o++ {
		r.Outcomes[o.String()] = outcomes[o]
	}
	r.addPolicies(c.Rec)
	ah, rh := c.Rec.Histograms()
	r.LatencyMS = Latencies{Attempt: PercentilesOf(ah), Request: PercentilesOf(rh)}
	if uh := c.Rec.UpstreamHistogram(); uh != nil {
		p := PercentilesOf(uh)
		r.LatencyMS.Upstream = &p
	}
	if c.OCC {
		calls, peak := c.Rec.Calls(), c.Rec.peakCalls(BucketAt(time.Second))
		r.Calls, r.PeakCallsPer10ms = &calls, &peak
	}
	if c.OneShot && r.Requests == r.Succeeded+r.Failed {
		s := round(c.Rec.LastEnd().Seconds(), 6)
		r.CompletionS = &s
	}
	for _, m := range computedMetrics() {
		if v, ok := m.Compute(c, w); ok {
			m.at.set(&r, v, true)
		}
	}
	if len(c.Tiers) > 0 {
		r.Tiers = tierRuns(c, w, &r)
	}
	return r
}

// SuccessRatioOf returns succeeded / (succeeded + failed), rounded to 4
// decimals, or nil when both are 0 (no request ended).
func SuccessRatioOf(succeeded, failed int64) *float64 {
	if succeeded+failed <= 0 {
		return nil
	}
	v := round(float64(succeeded)/float64(succeeded+failed), 4)
	return &v
}

// Metric is the definition of one figure of a cohort: a number in its
// entry of runs[] in summary.json. Every part of herdbench that handles
// figures reads it here: runs[].stats and sweep.csv (Aggregate,
// EncodeSweep), thresholds (ParseThreshold, CheckThresholds), the
// terminal's repetitions table (RenderStatsTable), the report's
// explanations, and the merge of shards.
//
// Adding a metric is one change in this file: a field of Run, its
// computation in Summarize and its entry in metricTable (a test fails
// when a number of Run has no entry), plus its line in docs/results.md
// (a test fails when it has none).
type Metric struct {
	// Name is the figure's path in a run of summary.json, dotted:
	// "amplification", "latency_ms.request.p99", "outcomes.reset".
	// Thresholds, runs[].stats and sweep.csv name it the same way.
	Name string
	// Unit is what its numbers measure.
	Unit Unit
	// Help says in one line what it is; docs/results.md says more.
	Help string
	// Reps is how it combines over the repetitions of a run (--runs).
	Reps RepRule
	// Shards is how the figures of shards of one cohort (its clients
	// split over processes) combine into the cohort's: from the merged
	// data, never averaged.
	Shards ShardRule
	// Headline marks the figures the report explains on hover.
	Headline bool
	// Column, if not nil, shows the figure in the terminal's repetitions
	// table.
	Column *Column
	// Table, if not nil, shows the figure in the terminal's comparison
	// table, one row per cohort (and under it the simulator's, for an
	// InSim figure).
	Table *Column
	// Shows is where else it shows: runs[].tiers[], runs[].sim.
	Shows Shows
	// Sweep is where it shows in the report of a sweep.
	Sweep Chart
	// Compute, if not nil, computes the figure from a cohort's records
	// and the chaos plan's window (Summarize); ok false leaves it
	// missing (null). Such a metric is no field of Run: its value lives
	// in Run.Computed. Without Compute, the figure is the field of Run
	// that Name names, which Summarize fills.
	Compute func(c Cohort, w Window) (v float64, ok bool)
	// AfterFault: Compute reads c.Rec.After(), the latencies of what
	// ended after the last fault; the engine then splits every cohort's
	// recorders there (Recorder.SplitAt). Without such a metric no
	// recorder splits, and pays nothing for it.
	AfterFault bool
	// Omit leaves a missing value out of summary.json (runs[] and the
	// simulator's reference) instead of writing null: a figure only some
	// strategies have (hedges), which the others' summaries never carry.
	Omit bool

	at field // where it lives in a Run, found from Name
}

// Unit is what a figure measures. Thresholds read their limits in it.
type Unit uint8

// Units.
const (
	Count   Unit = iota // how many (attempts, requests)
	Number              // a plain number (a multiplier, a factor)
	Ratio               // a fraction from 0 to 1; a threshold may write 99%
	Seconds             // seconds; a threshold may write a duration (5s)
	Millis              // milliseconds; a threshold may write a duration (250ms)
)

var unitNames = [...]string{Count: "count", Number: "number", Ratio: "ratio", Seconds: "s", Millis: "ms"}

// String returns the unit's name.
func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return fmt.Sprintf("Unit(%d)", uint8(u))
}

// RepRule is how a figure combines over the repetitions of a run.
type RepRule uint8

// Rules over repetitions.
const (
	// RepStats: each repetition has its own figure; runs[] shows the
	// first repetition's, runs[].stats and sweep.csv the mean, sd, min
	// and max of all of them.
	RepStats RepRule = iota
	// RepFirst: each repetition has its own figure; runs[] shows the
	// first repetition's, without stats.
	RepFirst
	// RepPooled: one figure computed from every repetition's data taken
	// together (the self-check's lag histograms).
	RepPooled
)

// ShardRule is how the figures of a cohort's shards combine into the
// cohort's. A merge recomputes every figure from merged data; averaging a
// percentile, a peak or a ratio would give a wrong one.
type ShardRule uint8

// Rules over shards.
const (
	ShardSum       ShardRule = iota // the shards' figures add up (counts)
	ShardMax                        // the largest of the shards' figures
	ShardRatio                      // recomputed from the summed counts it divides
	ShardTimeline                   // recomputed from the merged timeline (peaks, herd factor, recovery)
	ShardHistogram                  // recomputed from the merged histograms (percentiles)
)

var shardRuleNames = [...]string{ShardSum: "sum", ShardMax: "max", ShardRatio: "ratio of sums", ShardTimeline: "from the timeline", ShardHistogram: "from the histograms"}

// String says the rule in a few words.
func (r ShardRule) String() string {
	if int(r) < len(shardRuleNames) {
		return shardRuleNames[r]
	}
	return fmt.Sprintf("ShardRule(%d)", uint8(r))
}

// Column is how a figure shows in the terminal's repetitions table.
type Column struct {
	At   int                    // its place, from 1, left to right
	Head string                 // its heading
	Text func(v float64) string // how a mean or an sd is written
	// Faults: without faults the figure says nothing; the repetitions
	// table leaves the column out, the comparison table writes "–".
	Faults bool
	// Missing is what the comparison table writes for a missing figure
	// (recovery_s when the target never recovered); a figure a recording
	// cannot tell shows as "?".
	Missing string
	// Nonzero: a figure that is 0 in most runs; both tables leave the
	// column out unless some cohort's is above 0.
	Nonzero bool
}

// Chart is where a figure shows in the report of a sweep: its place
// among the lines drawn against a swept field (what the built-in
// scenarios claim first, then what the caller lives with), and among the
// heat maps over two swept fields (recovery first, where "never" marks
// the collapse boundary), from 1; 0 draws none.
type Chart struct{ Line, Heat int }

// LookupMetric returns the metric named name (as in summary.json).
func LookupMetric(name string) (Metric, bool) {
	i, ok := metricIndex()[name]
	if !ok {
		return Metric{}, false
	}
	return metricTable()[i], true
}

var metricIndex = sync.OnceValue(func() map[string]int {
	out := map[string]int{}
	for i, m := range metricTable() {
		out[m.Name] = i
	}
	return out
})

// metricTable is the table, in the order of sweep.csv's columns: a new
// metric goes at the end, so that the columns scripts know keep their
// places.
var metricTable = sync.OnceValue(func() []Metric {
	decimals := func(n int) func(float64) string {
		return func(v float64) string { return strconv.FormatFloat(v, 'f', n, 64) }
	}
	ms := []Metric{
		{Name: "requests", Unit: Count, Shards: ShardSum, Headline: true,
			Shows: InTiers | InSim,
			Table: &Column{At: 1, Head: "requests", Text: decimals(0)},
			Help:  "logical requests started (units of work)"},
		{Name: "succeeded", Unit: Count, Shards: ShardSum, Headline: true,
			Shows: InTiers | InSim,
			Sweep: Chart{Line: 7},
			Help:  "requests that ended in success"},
		{Name: "failed", Unit: Count, Shards: ShardSum, Headline: true,
			Shows: InTiers | InSim,
			Help:  "requests that gave up"},
		{Name: "success_ratio", Unit: Ratio, Shards: ShardRatio, Headline: true,
			Shows: InTiers | InSim,
			Table: &Column{At: 2, Head: "success", Text: func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }, Missing: "–"}, Sweep: Chart{Line: 4, Heat: 2},
			Help:   "succeeded / (succeeded + failed): the requests that ended, unfinished ones left out; null when none ended",
			Column: &Column{At: 6, Head: "success", Text: func(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }}},
		{Name: "attempts", Unit: Count, Shards: ShardSum, Headline: true,
			Shows:  InTiersFirst | InSim,
			Table:  &Column{At: 4, Head: "attempts", Text: decimals(0)},
			Help:   "calls that went to the target: first tries + retries",
			Column: &Column{At: 4, Head: "attempts", Text: decimals(1)}},
		{Name: "amplification", Unit: Number, Shards: ShardRatio, Headline: true,
			Shows: InTiersFirst | InSim,
			Table: &Column{At: 5, Head: "amplif.", Text: decimals(2)}, Sweep: Chart{Line: 5, Heat: 5},
			Help:   "attempts / requests",
			Column: &Column{At: 5, Head: "amplif.", Text: decimals(2)}},
		{Name: "calls", Unit: Count, Shards: ShardSum,
			Shows:  InSim,
			Help:   "writes an OCC target served, successes plus conflicts, as AWS counts them",
			Column: &Column{At: 1, Head: "calls", Text: decimals(1)}},
		{Name: "completion_s", Unit: Seconds, Shards: ShardMax,
			Shows:  InSim,
			Help:   "for a oneshot workload, the time from the start until the last unit of work ended",
			Column: &Column{At: 2, Head: "completion", Text: func(v float64) string { return MsText(v * 1000) }}},
		{Name: "peak_calls_per_10ms", Unit: Count, Shards: ShardTimeline,
			Help:   "the most writes an OCC target served in one 10 ms bucket from 1 s on: the height of the retry waves",
			Column: &Column{At: 3, Head: "wave peak/10ms", Text: decimals(1)}},
		{Name: "peak_attempts_per_s", Unit: Count, Shards: ShardTimeline, Headline: true,
			Shows: InTiers | InSim,
			Table: &Column{At: 6, Head: "peak/s", Text: decimals(0)}, Sweep: Chart{Line: 6},
			Help: "the largest count of attempts in any 1 s bucket"},
		{Name: "herd_factor", Unit: Number, Shards: ShardTimeline, Headline: true,
			Shows: InTiers | InSim,
			Table: &Column{At: 7, Head: "herd factor", Text: decimals(1)}, Sweep: Chart{Line: 1, Heat: 3},
			Help:   "how bunched attempts are inside each 1 s window from the first fault on: about 1 for independent arrivals, far above 1 for synchronized waves",
			Column: &Column{At: 7, Head: "herd factor", Text: decimals(1)}},
		{Name: "failed_after_fault", Unit: Count, Shards: ShardSum, Headline: true,
			Shows: InTiers | InSim,
			Table: &Column{At: 8, Head: "failed after fault", Text: decimals(0), Faults: true}, Sweep: Chart{Line: 2, Heat: 4},
			Help:   "attempts that failed after the last fault window ended",
			Column: &Column{At: 8, Head: "failed after fault", Text: decimals(1), Faults: true}},
		{Name: "recovery_s", Unit: Seconds, Shards: ShardTimeline, Headline: true,
			Shows: InTiers | InSim,
			Table: &Column{At: 9, Head: "recovery", Text: func(v float64) string { return fmt.Sprintf("%.2fs", v) }, Faults: true, Missing: "never"}, Sweep: Chart{Line: 3, Heat: 1},
			Help:   "seconds from the end of the last fault until every later 1 s window succeeds at least 95%; null: never within the run",
			Column: &Column{At: 9, Head: "recovery", Text: func(v float64) string { return fmt.Sprintf("%.2fs", v) }, Faults: true}},
	}
	for _, kind := range []string{"attempt", "request"} {
		what := "attempt latency (send to outcome)"
		if kind == "request" {
			what = "request latency (intended start of the first attempt to the final outcome, backoff included)"
		}
		for _, q := range []struct{ name, text string }{{"p50", "median"}, {"p90", "90th percentile"}, {"p99", "99th percentile"}, {"p999", "99.9th percentile"}, {"max", "maximum"}} {
			m := Metric{Name: "latency_ms." + kind + "." + q.name, Unit: Millis, Shards: ShardHistogram, Shows: InTiers,
				Help: what + ", " + q.text + ", from the HDR histogram"}
			switch m.Name {
			case "latency_ms.request.p50":
				m.Column = &Column{At: 10, Head: "req p50", Text: MsText}
				m.Table = &Column{At: 10, Head: "req p50", Text: MsText}
			case "latency_ms.request.p99":
				m.Column = &Column{At: 11, Head: "req p99", Text: MsText}
				m.Table = &Column{At: 11, Head: "req p99", Text: MsText}
				m.Sweep = Chart{Line: 8}
			}
			ms = append(ms, m)
		}
	}
	for o := Outcome(0); o < NumOutcomes; o++ {
		ms = append(ms, Metric{Name: "outcomes." + o.String(), Unit: Count, Reps: RepFirst, Shards: ShardSum, Shows: InTiers,
			Help: "attempts whose outcome was " + outcomeHelp[o] + ", counted by send time"})
	}
	ms = append(ms,
		Metric{Name: "budget_denied", Unit: Count, Reps: RepFirst, Shards: ShardSum, Shows: InTiers,
			Help: "retries a retry budget denied; each ended its request as failed at once"},
		Metric{Name: "breaker_rejected", Unit: Count, Reps: RepFirst, Shards: ShardSum, Shows: InTiers,
			Help: "calls a circuit breaker refused; they never reached the target"},
		Metric{Name: "throttled", Unit: Count, Reps: RepFirst, Shards: ShardSum, Shows: InTiers,
			Help: "calls client-side adaptive throttling refused; they never reached the target"},
		Metric{Name: "max_open_breakers", Unit: Count, Reps: RepFirst, Shards: ShardTimeline,
			Help: "the most clients with an open (or half-open) breaker at the end of any 10 ms bucket"},
		Metric{Name: "wasted_work", Unit: Count, Reps: RepFirst, Shards: ShardSum, Shows: InTiers,
			Help: "requests the target served after their client had gone away"},
	)
	for _, lag := range []struct{ name, what string }{
		{"send_lag_ms", "how late the cohort's attempts were sent (a real run's self-check)"},
		{"target_drift_ms", "how late the cohort's embedded target ended the waits its model set (a real run's self-check)"},
	} {
		for _, q := range []struct{ name, text string }{{"p50", "median"}, {"p99", "99th percentile"}, {"max", "maximum"}} {
			ms = append(ms, Metric{Name: lag.name + "." + q.name, Unit: Millis, Reps: RepPooled, Shards: ShardHistogram,
				Help: lag.what + ", " + q.text + ", over every repetition; null in virtual time"})
		}
	}
	for _, q := range []struct{ name, text string }{{"p50", "median"}, {"p99", "99th percentile"}, {"max", "maximum"}} {
		ms = append(ms, Metric{Name: "spread_ms." + q.name, Unit: Millis, Reps: RepPooled, Shards: ShardHistogram,
			Help: "how long after each crash of the plan the cohort's clients learned of it (a real run's self-check), " + q.text +
				", over every crash and repetition; null in virtual time, without a crash and in a merged split run"})
	}
	for _, q := range []struct{ name, text string }{{"p50", "median"}, {"p90", "90th percentile"}, {"p99", "99th percentile"}, {"p999", "99.9th percentile"}, {"max", "maximum"}} {
		ms = append(ms, Metric{Name: "latency_ms.upstream." + q.name, Unit: Millis, Reps: RepFirst, Shards: ShardHistogram,
			Help: "in a chaos proxy's recording, the time its upstream took to answer the attempts it forwarded, " + q.text + "; absent otherwise"})
	}
	// New metrics from here on, at the end: sweep.csv's columns keep their
	// places.
	ms = append(ms, Metric{Name: "unfinished", Unit: Count, Shards: ShardSum, Headline: true, Shows: InTiers | InSim,
		Table: &Column{At: 3, Head: "unfinished", Text: decimals(0)},
		Help:  "requests started that had neither succeeded nor failed when the run ended (on the wire or waiting to retry): in no side of success_ratio"})
	ms = append(ms, Metric{Name: "transport_resends", Unit: Count, Shards: ShardTimeline, Shows: InSim,
		Table:  &Column{At: 12, Head: "resends", Text: decimals(0), Nonzero: true},
		Column: &Column{At: 12, Head: "resends", Text: decimals(1), Nonzero: true},
		Help:   "attempts the client's transport sent again by itself, unseen by the strategy (net/http re-sends a replayable request once when its reused connection is reset before the answer's first byte); among the attempts",
		Compute: func(c Cohort, _ Window) (float64, bool) {
			return float64(c.Rec.TransportResends()), true
		}})
	ms = append(ms, Metric{Name: "hedges", Unit: Count, Shards: ShardSum, Shows: InSim, Omit: true,
		Table:  &Column{At: 13, Head: "hedges", Text: decimals(0), Nonzero: true},
		Column: &Column{At: 13, Head: "hedges", Text: decimals(1), Nonzero: true},
		Help:   "attempts a hedging strategy sent while another attempt of their request was in flight (hedge: {delay, max}); among the attempts; only for a strategy that hedges",
		Compute: func(c Cohort, _ Window) (float64, bool) {
			sent, _ := c.Rec.Hedges()
			return float64(sent), c.Hedged
		}})
	ms = append(ms, Metric{Name: "hedges_won", Unit: Count, Shards: ShardSum, Shows: InSim, Omit: true,
		Table:  &Column{At: 14, Head: "hedges won", Text: decimals(0), Nonzero: true},
		Column: &Column{At: 14, Head: "hedges won", Text: decimals(1), Nonzero: true},
		Help:   "hedges whose success ended their request, before the attempts sent ahead of them; only for a strategy that hedges",
		Compute: func(c Cohort, _ Window) (float64, bool) {
			_, won := c.Rec.Hedges()
			return float64(won), c.Hedged
		}})
	for i := range ms {
		if ms[i].Compute != nil {
			ms[i].at = field{key: ms[i].Name, computed: true}
			continue
		}
		at, err := fieldOf(ms[i].Name)
		if err != nil {
			panic("results: the metric table names " + ms[i].Name + ", which is no number of a Run: " + err.Error())
		}
		ms[i].at = at
	}
	return ms
})

// SplitWanted reports whether some metric reads the recorders' split at
// the end of the last fault (Metric.AfterFault).
func SplitWanted() bool {
	return slices.ContainsFunc(metricTable(), func(m Metric) bool { return m.AfterFault })
}

// computedMetrics are the metrics with a Compute, in the table's order.
var computedMetrics = sync.OnceValue(func() []Metric {
	var out []Metric
	for _, m := range metricTable() {
		if m.Compute != nil {
			out = append(out, m)
		}
	}
	return out
})

// Value reads the metric's figure in r; ok is false when r has none (a
// null or absent field: recovery_s when the target never recovered, calls
// for a target that is not an OCC row, send_lag_ms in virtual time).
func (m Metric) Value(r *Run) (v float64, ok bool) {
	if r.IsUnmeasured(m.Name) {
		return 0, false
	}
	return m.at.value(r)
}

// field is where a figure lives in a Run: a path of struct fields, and a
// map key for outcomes.<name>.
type field struct {
	index    []int
	key      string
	computed bool // in Run.Computed, under key
}

// fieldOf finds the number of Run whose summary.json path is name.
func fieldOf(name string) (field, error) {
	t := reflect.TypeOf(Run{})
	var f field
	parts := strings.Split(name, ".")
	for i, part := range parts {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			sf, ok := jsonField(t, part)
			if !ok {
				return field{}, fmt.Errorf("no field %q", strings.Join(parts[:i+1], "."))
			}
			f.index = append(f.index, sf.Index...)
			t = sf.Type
		case reflect.Map:
			if i != len(parts)-1 || t.Key().Kind() != reflect.String {
				return field{}, fmt.Errorf("%q is not a map of numbers", strings.Join(parts[:i], "."))
			}
			f.key, t = part, t.Elem()
		default:
			return field{}, fmt.Errorf("%q is a %s, not an object", strings.Join(parts[:i], "."), t.Kind())
		}
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !isNumber(t.Kind()) {
		return field{}, fmt.Errorf("%q is a %s, not a number", name, t.Kind())
	}
	return f, nil
}

// jsonField returns the field of struct type t named name in JSON.
func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if n, _, _ := strings.Cut(sf.Tag.Get("json"), ","); n == name && sf.IsExported() {
			return sf, true
		}
	}
	return reflect.StructField{}, false
}

func isNumber(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint64, reflect.Float64:
		return true
	}
	return false
}

// value reads the figure at f in r; ok is false when it is null or absent.
func (f field) value(r *Run) (float64, bool) {
	if f.computed {
		return r.Computed.Get(f.key)
	}
	v := reflect.ValueOf(r).Elem()
	for _, i := range f.index {
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return 0, false // inside an absent object (send_lag_ms in virtual time)
			}
			v = v.Elem()
		}
		v = v.Field(i)
	}
	if v.Kind() == reflect.Map {
		e := v.MapIndex(reflect.ValueOf(f.key))
		if !e.IsValid() {
			return 0, true // a count nothing was counted in
		}
		v = e
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	switch {
	case v.CanFloat():
		return v.Float(), true
	case v.CanInt():
		return float64(v.Int()), true
	case v.CanUint():
		return float64(v.Uint()), true
	}
	return 0, false
}
func MsText(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	return fmt.Sprintf("%.1fms", ms)
}

// Metrics returns the metric table, in its order (that of sweep.csv's
// columns), for the renderers outside this package; it is shared, so
// read only.
func Metrics() []Metric { return metricTable() }

// RatioText writes a success ratio as a percentage, "–" when it is null
// (no request ended).
func RatioText(r *float64) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100**r)
}
