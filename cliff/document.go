package cliff

import (
	"encoding/json"
	"fmt"
	"time"
)

// Document is cliff.json, the summary of a cliff search's results folder:
// what was searched, over what, and everything found. Its readers (the
// report, scripts) read it back with Decode.
type Document struct {
	Scenario    string    `json:"scenario"`
	Description string    `json:"description,omitempty"`
	Version     string    `json:"version"`
	Started     time.Time `json:"started"`
	// Seed is the root seed: seed k of a search is repetition k's,
	// seeds.Rep(Seed, k), as --runs draws them.
	Seed uint64 `json:"seed"`
	// Set are the values every run took (--set), as PATH=VALUE.
	Set []string `json:"set,omitempty"`
	// Criterion says what collapsing is.
	Criterion string `json:"criterion"`
	// Partial says an interrupt cut the work short: what is here is what
	// was done.
	Partial bool `json:"partial,omitempty"`

	Search   *Summary       `json:"search,omitempty"`
	NoReturn *NoReturnRun   `json:"no_return,omitempty"`
	Confirm  []Confirmation `json:"confirm,omitempty"`
}

// Criterion is what a run collapsing means, as cliff.json says it.
const Criterion = "collapsed: the run never recovers (recovery_s is null: no 1 s window after the end of the last fault begins a stretch to the end of the run in which every 1 s window succeeds at least 95%), or the 1 s window its recovery starts with reaches into the run's last stretch as long as the strategy's timeout, where the attempts still in flight are not yet counted"

// NoReturnRun is the point of no return of one run, with what identifies
// the run.
type NoReturnRun struct {
	Strategy string `json:"strategy"`
	// Rep is the run's repetition (its seed is seeds.Rep(root, Rep)); Seed
	// is that seed.
	Rep  int    `json:"rep"`
	Seed uint64 `json:"run_seed"`
	// Continuations is how many continuations each instant probed got.
	Continuations int `json:"continuations"`
	// FaultStart and FaultEnd are the run's fault window.
	FaultStart time.Duration `json:"fault_start_ns"`
	FaultEnd   time.Duration `json:"fault_end_ns"`
	NoReturn
}

// Confirmation is a real run on sockets on one side of a boundary.
type Confirmation struct {
	Strategy string  `json:"strategy"`
	Value    float64 `json:"value"`
	Text     string  `json:"text"` // the value as --set writes it
	// Expect is the side the search puts it on: recovered (every seed
	// recovered there) or collapsed (every seed collapsed).
	Expect    Phase    `json:"expect"`
	RecoveryS *float64 `json:"recovery_s"`
	// Landed says the real run did what the search expects there.
	Landed bool `json:"landed"`
	// Verdict and Sentence are the real run's verdict (summary.json's):
	// a run that did not land where expected and whose verdict is not
	// trustworthy is flagged, not a contradiction.
	Verdict  string `json:"verdict"`
	Sentence string `json:"sentence"`
	// Summary is the file beside cliff.json holding the run's summary.
	Summary string `json:"summary"`
}

// Flagged reports whether a run that did not land where expected is one
// its verdict does not trust.
func (c Confirmation) Flagged() bool { return !c.Landed && c.Verdict == "not_trustworthy" }

// Encode returns d as cliff.json's bytes.
func (d *Document) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Decode reads cliff.json's bytes.
func Decode(data []byte) (*Document, error) {
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("cliff.json: %w", err)
	}
	if d.Search == nil && d.NoReturn == nil {
		return nil, fmt.Errorf("cliff.json: neither a search nor a point of no return")
	}
	return &d, nil
}
