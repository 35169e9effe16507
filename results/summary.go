package results

import (
	"math"
	"strings"
	"time"
)

// Summary is summary.json: the figures of one run of a scenario, one entry
// per cohort in Runs. Field names are a contract (docs/results.md).
type Summary struct {
	Scenario    string    `json:"scenario"`
	Description string    `json:"description,omitempty"`
	Mode        string    `json:"mode"` // "real" or "sim"
	Seed        uint64    `json:"seed"`
	Version     string    `json:"version"`
	Started     time.Time `json:"started"`
	DurationS   float64   `json:"duration_s"`
	Partial     bool      `json:"partial"` // interrupted: figures cover what was recorded
	// EndedS is when an interrupted (partial) run was stopped, in seconds
	// since its start: its timelines and figures end there. Absent when
	// the run was not interrupted.
	EndedS   *float64 `json:"ended_s,omitempty"`
	Workload string   `json:"workload"`
	Clients  int      `json:"clients,omitempty"` // clients per cohort (closed, oneshot)
	// Point is, for a point of a sweep, the value of each swept field
	// there, in the sweep's order; absent for a single run.
	Point []Setting `json:"point,omitempty"`
	// Repetitions is how many times each cohort ran (--runs), each with its
	// own seed from Seeds (the first is Seed). Each Run then carries Stats.
	Repetitions int           `json:"repetitions,omitempty"`
	Seeds       []uint64      `json:"seeds,omitempty"`
	Faults      []FaultWindow `json:"faults"`
	Runs        []Run         `json:"runs"`
	// CohortsApart is set when the cohorts ran one after the other, each
	// alone on the machine, rather than all at once (--cohorts apart):
	// each cohort's times then count from its own start, and Started is
	// the first cohort's.
	CohortsApart bool `json:"cohorts_apart,omitempty"`
	// SlowMotion is, for a real-time run in slow motion (--slow-motion),
	// how many times slower than the scenario's clock it lived on the wall
	// clock; absent at real speed. Every figure is in the scenario's time.
	SlowMotion int `json:"slow_motion,omitempty"`
	// Target is the external target's URL; empty for the embedded target.
	Target string `json:"target,omitempty"`
	// Thresholds are the scenario's release gates checked against the runs;
	// absent when the scenario has none.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	// Harness is a real-time run's self-check (selfcheck.go); absent in
	// virtual time.
	Harness *Harness `json:"harness,omitempty"`
	// Verdict is a real-time run's answer to whether its figures can be
	// taken at their word (verdict.go); absent in virtual time.
	Verdict *Verdict `json:"verdict,omitempty"`
	// Recorded is set when the figures are not a swarm's but a recording of
	// the traffic a chaos proxy or standalone target received: where they
	// come from. Absent for a swarm's run.
	Recorded *Recorded `json:"recorded,omitempty"`
	// Shard marks one shard's share of a run split over processes
	// (shard.go); absent otherwise.
	Shard *ShardInfo `json:"shard,omitempty"`
	// Merged marks a run merged from its shards' folders (herdbench
	// merge); absent otherwise.
	Merged *Merged `json:"merged,omitempty"`
}

// Recorded says where a recording's figures come from: which server saw
// the attempts, on which clock, and how it told clients and retries apart.
type Recorded struct {
	// By is "proxy" or "target": herdbench proxy or herdbench target.
	By string `json:"by"`
	// Address is where it received the traffic (its --listen).
	Address string `json:"address"`
	// Upstream is the proxy's upstream (its URL, without credentials).
	Upstream string `json:"upstream,omitempty"`
	// Times says what the times and latencies measure.
	Times string `json:"times"`
	// CohortBy is how attempts were grouped into cohorts: "all" (one
	// cohort), "user-agent", "source-ip" or "header:NAME".
	CohortBy string `json:"cohort_by"`
	// MaxCohorts is how many cohorts of their own at most; the attempts of
	// later keys are in the cohort "other".
	MaxCohorts int `json:"max_cohorts"`
	// Other is the keys folded into "other" that sent the most attempts
	// (at most 10, counted exactly while at most 1,000 keys were folded,
	// then approximately: Misra-Gries counts, never above the truth).
	Other []KeyCount `json:"other,omitempty"`
	// AttemptHeader is the request header read for the attempt number;
	// empty when none was, and the figures that need it are null.
	AttemptHeader string `json:"attempt_header,omitempty"`
	// AttemptsUnnumbered counts the attempts whose attempt number could
	// not be read (no header, or one that did not parse).
	AttemptsUnnumbered int64 `json:"attempts_unnumbered"`
	// UnnumberedApart are, by cohort, the attempts without a readable
	// number in a cohort that also had numbered ones (a load balancer's
	// health checks among a client's attempts): counted apart, in none of
	// the cohort's figures, which are its numbered attempts'.
	UnnumberedApart []KeyCount `json:"unnumbered_apart,omitempty"`
	// CutAtEnd counts the attempts in flight when the run ended (the
	// scenario's duration on the plan's clock) whose clients closed them
	// at once: cut short by the run's end, as a swarm's are, not timed
	// out; they are in no figure, as a swarm leaves them out of its own.
	CutAtEnd int64 `json:"cut_at_end"`
	// Segment numbers the results folders of one recording (1, 2, ...):
	// a recording longer than its window is written one window at a time.
	Segment int `json:"segment"`
	// PlanOffsetS is where this folder's t = 0 is on the plan's clock, in
	// seconds (0 but for the later segments of a long recording).
	PlanOffsetS float64 `json:"plan_offset_s"`
	// Notes say what the figures cannot tell, in words.
	Notes []string `json:"notes,omitempty"`
}

// KeyCount is a cohort key and its attempts.
type KeyCount struct {
	Key      string `json:"key"`
	Attempts int64  `json:"attempts"`
}

// ProvenanceLine says in one line where a recording's figures come from;
// "" for a swarm's run.
func ProvenanceLine(s *Summary) string {
	r := s.Recorded
	if r == nil {
		return ""
	}
	who := "the standalone target"
	if r.By == "proxy" {
		who = "the proxy"
	}
	line := "Recorded by " + who + " at " + r.Address
	if r.Upstream != "" {
		line += " (upstream " + r.Upstream + ")"
	}
	line += ", server-side times: " + r.Times + "."
	return line
}

// Setting is one swept field's value at a point of a sweep.
type Setting struct {
	Field string `json:"field"` // its path in the scenario, e.g. "strategies[0].jitter"
	Value string `json:"value"` // as written, e.g. "0.05", "3s"
}

// PointLabel names a point of a sweep by its settings:
// "workload.clients=100, chaos[1].for=3s"; "" for a single run.
func PointLabel(point []Setting) string {
	parts := make([]string, len(point))
	for i, s := range point {
		parts[i] = s.Field + "=" + s.Value
	}
	return strings.Join(parts, ", ")
}

// FaultWindow is one fault of the chaos plan.
type FaultWindow struct {
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	AtS  float64 `json:"at_s"`
	ForS float64 `json:"for_s"`
	// Tier is, in a chain of tiers, the tier the fault strikes; absent
	// for a single target.
	Tier string `json:"tier,omitempty"`
}

// round rounds v to digits decimals, as summary.json records figures.
func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
