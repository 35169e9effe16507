package results

import (
	"math"
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
	// Target is the external target's URL; empty for the embedded target.
	Target string `json:"target,omitempty"`
	// Thresholds are the scenario's release gates checked against the runs;
	// absent when the scenario has none.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	// Harness is a real-time run's self-check (selfcheck.go); absent in
	// virtual time.
	Harness *Harness `json:"harness,omitempty"`
	// Shard marks one shard's share of a run split over processes
	// (shard.go); absent otherwise.
	Shard *ShardInfo `json:"shard,omitempty"`
	// Merged marks a run merged from its shards' folders (herdbench
	// merge); absent otherwise.
	Merged *Merged `json:"merged,omitempty"`
}

// FaultWindow is one fault of the chaos plan.
type FaultWindow struct {
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	AtS  float64 `json:"at_s"`
	ForS float64 `json:"for_s"`
}

// round rounds v to digits decimals, as summary.json records figures.
func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}
