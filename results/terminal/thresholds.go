package terminal

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/herdbench/herdbench/results"
)

// RenderThresholds writes the pass/fail table of the checks.
func RenderThresholds(w io.Writer, rs []results.ThresholdResult) error {
	if len(rs) == 0 {
		return nil
	}
	failed := results.ThresholdsFailed(rs)
	head := fmt.Sprintf("thresholds: all %d passed", len(rs))
	if failed > 0 {
		head = fmt.Sprintf("thresholds: %d of %d FAILED", failed, len(rs))
	}
	if _, err := fmt.Fprintln(w, head); err != nil {
		return err
	}
	return thresholdRows(w, rs)
}

// thresholdRows writes the table of the checks rs, a row each.
func thresholdRows(w io.Writer, rs []results.ThresholdResult) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  cohort\tthreshold\tvalue\tresult")
	for _, r := range rs {
		result := "pass"
		if !r.Pass {
			result = "FAIL"
		}
		value := valueText(r.Metric, r.Value)
		if len(r.Figures) > 0 {
			// A comparison: both sides, in the figures' own words below.
			value = numberText(r.Metric, r.Value) + " against " + numberText(r.Metric, r.Limit)
		}
		switch {
		case r.Repetitions == 0:
		case strings.HasPrefix(r.Expression, "mean("):
			value += fmt.Sprintf(" (mean of %d)", r.Repetitions)
		default:
			value += fmt.Sprintf(" (worst of %d)", r.Repetitions)
			if r.FailedRepetitions > 0 {
				result += fmt.Sprintf(" in %d of %d", r.FailedRepetitions, r.Repetitions)
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.Cohort, r.Expression, value, result)
	}
	return tw.Flush()
}

// numberText writes a side of a comparison: null is a time that never
// came (a cohort that never recovered: never), another null figure or an
// undefined ratio.
func numberText(metric string, v *float64) string {
	if m, _ := results.LookupMetric(metric); v == nil && m.Unit == results.Seconds {
		return "never"
	}
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}

// valueText writes a figure in its metric's unit.
func valueText(metric string, v *float64) string {
	if v == nil {
		if metric == "recovery_s" {
			return "never"
		}
		return "null"
	}
	m, _ := results.LookupMetric(metric)
	switch m.Unit {
	case results.Millis:
		return results.MsText(*v)
	case results.Seconds:
		return strconv.FormatFloat(*v, 'f', -1, 64) + "s"
	}
	return strconv.FormatFloat(*v, 'f', -1, 64)
}
