package main

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"

	"github.com/herdbench/herdbench/results"
)

// A JUnit XML report of a run's thresholds, the file CI systems read
// (Jenkins, GitLab, GitHub's test reporters): a test suite per point of
// the run (one, or one per point of a sweep), a test case per threshold
// per cohort, a failure for each that failed with the value measured, for
// a real run a "verdict" case (failed when the verdict is not
// trustworthy, skipped instead with --allow-untrustworthy; its sentence
// and the figures that decided it in the failure or the case's output),
// and a "run completed" case, in error when the run was interrupted (its
// figures are partial).
// docs/results.md describes the file.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// junitSeconds writes a duration in seconds as the schema's time
// attribute wants it: digits and a decimal point, no exponent.
func junitSeconds(s float64) string { return strconv.FormatFloat(s, 'f', 3, 64) }

// encodeJUnit returns the JUnit XML report of the points' summaries;
// label names a point ("" for a single run); allow is
// --allow-untrustworthy.
func encodeJUnit(summaries []*results.Summary, label func(*results.Summary) string, allow bool) ([]byte, error) {
	all := junitSuites{Name: "herdbench"}
	var total float64
	for _, s := range summaries {
		name := "herdbench scenario " + s.Scenario
		if l := label(s); l != "" {
			name += " [" + l + "]"
		}
		seconds := s.DurationS
		if s.EndedS != nil {
			seconds = *s.EndedS
		}
		total += seconds
		suite := junitSuite{
			Name:      name,
			Time:      junitSeconds(seconds),
			Timestamp: s.Started.UTC().Format("2006-01-02T15:04:05"),
			Properties: []junitProperty{
				{"scenario", s.Scenario},
				{"mode", s.Mode},
				{"seed", strconv.FormatUint(s.Seed, 10)},
				{"herdbench", s.Version},
			},
		}
		class := func(cohort string) string { return "herdbench." + s.Scenario + "." + cohort }
		for _, th := range s.Thresholds {
			c := junitCase{Name: th.Expression, ClassName: class(th.Cohort), Time: junitSeconds(0)}
			if !th.Pass {
				msg := thresholdFailure(th)
				c.Failure = &junitProblem{Message: msg, Type: "threshold", Text: msg}
				suite.Failures++
			}
			suite.Cases = append(suite.Cases, c)
		}
		if v := s.Verdict; v != nil {
			c := verdictCase(v, "herdbench."+s.Scenario, allow)
			switch {
			case c.Failure != nil:
				suite.Failures++
			case c.Skipped != nil:
				suite.Skipped++
			}
			suite.Properties = append(suite.Properties, junitProperty{"verdict", string(v.Outcome)})
			suite.Cases = append(suite.Cases, c)
		}
		// Every run has a "run completed" case: an interrupted run is in
		// error, and a scenario without thresholds still gives CI a test
		// to count (some readers take an empty report for a broken one).
		done := junitCase{Name: "run completed", ClassName: "herdbench." + s.Scenario, Time: junitSeconds(seconds)}
		if s.Partial {
			msg := "the run was interrupted: its figures cover only what was recorded (partial), so its thresholds prove nothing"
			done.Error = &junitProblem{Message: msg, Type: "interrupted", Text: msg}
			suite.Errors++
		}
		suite.Cases = append(suite.Cases, done)
		suite.Tests = len(suite.Cases)
		all.Tests += suite.Tests
		all.Failures += suite.Failures
		all.Errors += suite.Errors
		all.Suites = append(all.Suites, suite)
	}
	all.Time = junitSeconds(total)
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// thresholdFailure says what a failed threshold measured: "herd_factor
// was 46.5; the threshold is herd_factor < 5 (failed in 3 of 5
// repetitions)".
func thresholdFailure(th results.ThresholdResult) string {
	var b strings.Builder
	if len(th.Figures) > 0 {
		// A comparison: what it read, then both sides.
		side := func(v *float64) string {
			if v == nil {
				return "null"
			}
			return strconv.FormatFloat(*v, 'g', 6, 64)
		}
		fmt.Fprintf(&b, "the threshold is %s; it read %s, so %s against %s", th.Expression, th.Read(), side(th.Value), side(th.Limit))
		if th.Repetitions > 0 {
			fmt.Fprintf(&b, " (failed in %d of %d repetitions)", th.FailedRepetitions, th.Repetitions)
		}
		return b.String()
	}
	b.WriteString(th.Metric)
	if th.Value == nil {
		b.WriteString(" was null (never reached: e.g. the service never recovered within the run)")
	} else {
		fmt.Fprintf(&b, " was %s", strconv.FormatFloat(*th.Value, 'g', 6, 64))
	}
	fmt.Fprintf(&b, "; the threshold is %s", th.Expression)
	if th.Cohort != "" {
		fmt.Fprintf(&b, " for cohort %s", th.Cohort)
	}
	if th.Repetitions > 0 {
		fmt.Fprintf(&b, " (failed in %d of %d repetitions)", th.FailedRepetitions, th.Repetitions)
	}
	return b.String()
}

// verdictCase is a real run's verdict as a test case named "verdict": a
// failure of type not_trustworthy when the verdict is (skipped instead
// when allowed), its message the verdict's sentence and its text the
// figures that decided it; passing otherwise, with the same in its
// output.
func verdictCase(v *results.Verdict, class string, allow bool) junitCase {
	c := junitCase{Name: "verdict", ClassName: class, Time: junitSeconds(0)}
	text := v.Sentence + "\n" + verdictFigures(v)
	switch {
	case v.Trusted():
		c.SystemOut = text
	case allow:
		c.Skipped = &junitProblem{Message: v.Sentence + " (--allow-untrustworthy)", Type: string(v.Outcome), Text: text}
	default:
		c.Failure = &junitProblem{Message: v.Sentence, Type: string(v.Outcome), Text: text}
	}
	return c
}

// verdictFigures writes the figures a verdict compared, one a line:
// "no-jitter herd_factor at 50 ms: 115.7, the simulator's 127.8, with
// this run's lateness 110.2: agrees" (within its band, and nearer the
// simulator's than the harness's lateness could make it).
func verdictFigures(v *results.Verdict) string {
	num := func(p *float64) string {
		if p == nil {
			return "null"
		}
		return strconv.FormatFloat(*p, 'g', 6, 64)
	}
	var b strings.Builder
	for _, f := range v.Figures {
		fmt.Fprintf(&b, "%s %s", f.Cohort, f.Name)
		if f.ResolutionMS > 0 {
			fmt.Fprintf(&b, " at %g ms", f.ResolutionMS)
		}
		fmt.Fprintf(&b, ": %s, the simulator's %s", num(f.Real), num(f.Sim))
		if f.Late != nil {
			fmt.Fprintf(&b, ", with this run's lateness %s", num(f.Late))
		}
		switch {
		case f.Within:
			b.WriteString(": agrees")
		case f.Finer:
			b.WriteString(": disagrees, read coarser")
		default:
			b.WriteString(": DISAGREES")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
