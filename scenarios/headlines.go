package scenarios

import (
	"fmt"
	"math"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/herdbench/herdbench/results"
)

// Claim is one claim of a built-in scenario's headline, checked on a
// summary of its run.
type Claim struct {
	Text   string  // the claim as the scenario writes it: "herd_factor[no-jitter] >= 5 * herd_factor[full-jitter]"
	Short  string  // its place among them, for a table's header: "c1"
	Value  float64 // the left side of it (NaN when not shown; +Inf for never)
	Figure string  // both sides as a person reads them: "153.5 vs 13.82", or "no cohort"
	Holds  bool
}

// Headline returns the checks of what built-in scenario name claims: the
// thresholds its YAML states (each built-in's claims are its thresholds),
// on the summary of its run, or, for a sweep, the summaries of its points;
// false if name is no built-in or claims nothing. A cohort or a point the
// summaries lack (--strategies or an interrupt left it out) fails the
// claims that read it (results.CheckClaims).
func Headline(name string, summaries ...*results.Summary) ([]Claim, bool) {
	ths, ok := BuiltinClaims(name)
	if !ok || len(ths) == 0 {
		return nil, false
	}
	var out []Claim
	for i, r := range results.CheckClaims(ths, summaries...) {
		c := Claim{Text: r.Expression, Short: "c" + strconv.Itoa(i+1), Value: math.NaN(), Figure: "no cohort", Holds: r.Pass}
		if len(r.Figures) > 0 || r.Value != nil || r.Limit != nil {
			c.Value = side(r.Value)
			c.Figure = sideText(r.Metric, r.Value)
			if len(r.Figures) > 0 {
				c.Figure += " vs " + sideText(r.Metric, r.Limit)
			}
		}
		out = append(out, c)
	}
	return out, true
}

func side(v *float64) float64 {
	if v == nil {
		return math.Inf(1)
	}
	return *v
}

// sideText writes a side of a claim: a time that never came is never.
func sideText(metric string, v *float64) string {
	if m, _ := results.LookupMetric(metric); v == nil && m.Unit == results.Seconds {
		return "never"
	}
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}

// BuiltinClaims returns the thresholds built-in scenario name states: what
// it claims, as its YAML writes them; false if there is no such built-in.
func BuiltinClaims(name string) ([]results.Threshold, bool) {
	c, ok := builtinClaims()[name]
	return c, ok
}

// builtinClaims reads every built-in's thresholds once.
var builtinClaims = sync.OnceValue(func() map[string][]results.Threshold {
	out := map[string][]results.Threshold{}
	entries, err := builtin.ReadDir("builtin")
	if err != nil {
		return out
	}
	for _, e := range entries {
		data, err := builtin.ReadFile(path.Join("builtin", e.Name()))
		if err != nil {
			continue
		}
		s, err := Parse(e.Name(), data)
		if err != nil {
			continue // TestBuiltinsValidate says why
		}
		var ths []results.Threshold
		for _, expr := range s.File.Thresholds {
			if th, err := results.ParseThreshold(expr); err == nil {
				ths = append(ths, th)
			}
		}
		out[strings.TrimSuffix(e.Name(), ".yaml")] = ths
	}
	return out
})

// HeadlineFigures returns what built-in scenario name's claims rest on, and
// so how a real run of it is judged (results.Limit): waves when a claim
// reads a figure of waves (herd factors and failures after the fault, in
// 10 ms buckets), counts otherwise (calls, completion, successes,
// amplification, recovery within seconds); results.FiguresOf. A scenario
// without claims (a user's file) is judged by waves: its summary has a herd
// factor, the strictest figure.
func HeadlineFigures(name string) results.Figures {
	ths, _ := BuiltinClaims(name)
	return results.FiguresOf(ths)
}

// String says a claim and how it stood, for a test's log.
func (c Claim) String() string {
	mark := "holds"
	if !c.Holds {
		mark = "FAILS"
	}
	return fmt.Sprintf("%s: %s (%s)", c.Text, c.Figure, mark)
}
