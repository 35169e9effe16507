package results

import "strings"

// Judgement is what a real run's verdict says of its figures.
type Judgement string

// The three judgements of a verdict, from best to worst.
const (
	// Exact: the real figures equal the model's at the finest resolution.
	Exact Judgement = "exact"
	// Holds: every headline figure is within its band of the model's;
	// some finer figure was moved by the harness (the verdict says which).
	Holds Judgement = "holds"
	// NotTrustworthy: a headline figure is outside its band, or could be.
	NotTrustworthy Judgement = "not_trustworthy"
)

// Verdict is a real run's answer to "can I take these figures at their
// word?" (summary.json's "verdict"): one outcome, said in one sentence,
// and the figures that decided it. Absent in virtual time.
type Verdict struct {
	Outcome Judgement `json:"outcome"`
	// Sentence says the outcome in one sentence; for a run that is not
	// trustworthy, what to do about it.
	Sentence string `json:"sentence"`
	// Figures are the comparisons that decided the outcome.
	Figures []VerdictFigure `json:"figures,omitempty"`
}

// VerdictFigure is one figure of one cohort the verdict compared with the
// model's.
type VerdictFigure struct {
	Cohort string   `json:"cohort"`
	Name   string   `json:"name"`
	Real   *float64 `json:"real"`
	Sim    *float64 `json:"sim"`
	// Within is whether Real is within the figure's band of Sim.
	Within bool `json:"within"`
}

// Trusted reports whether v lets its run's figures be taken at their
// word: exact or holds. A nil verdict (virtual time) is trusted.
func (v *Verdict) Trusted() bool { return v == nil || v.Outcome != NotTrustworthy }

// Decide returns the verdict of a real run's summary from its self-check
// (s.Harness), or nil for a run without one (virtual time).
func Decide(s *Summary) *Verdict {
	h := s.Harness
	if h == nil {
		return nil
	}
	if h.Trustworthy {
		return &Verdict{Outcome: Holds, Sentence: "The figures hold: the harness kept up with this scenario."}
	}
	sentence := "NOT TRUSTWORTHY: the harness could not keep up."
	if len(h.Warnings) > 0 {
		sentence = "NOT TRUSTWORTHY: " + strings.TrimSuffix(h.Warnings[0], ".") + "."
	}
	return &Verdict{Outcome: NotTrustworthy, Sentence: sentence}
}
