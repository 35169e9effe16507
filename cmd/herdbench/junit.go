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
// per cohort, a failure for each that failed with the value measured, and
// a "run completed" case, in error when the run was interrupted (its
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
// label names a point ("" for a single run).
func encodeJUnit(summaries []*results.Summary, label func(*results.Summary) string) ([]byte, error) {
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
