package scenarios

import (
	"errors"
	"fmt"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
)

// thresholds reads the release gates: the file's (for every cohort) and each
// strategy's own. f is the file as written, so paths keep their indices when
// --strategies picks cohorts; the gates of cohorts not picked are checked
// but dropped.
func (c *compiler) thresholds(f *File, picked []clients.Strategy) []results.Threshold {
	run := map[string]bool{}
	for _, s := range picked {
		run[s.Name] = true
	}
	var out []results.Threshold
	total := len(f.Thresholds)
	for _, sf := range f.Strategies {
		total += len(sf.Thresholds)
	}
	if total > MaxThresholds {
		c.fail([]step{key("thresholds")}, "%d thresholds in all; a scenario has at most %d", total, MaxThresholds)
		return nil
	}
	for i, e := range f.Thresholds {
		if th, ok := c.threshold(e, "", []step{key("thresholds"), index(i)}); ok {
			out = append(out, th)
		}
	}
	for i, sf := range f.Strategies {
		for j, e := range sf.Thresholds {
			th, ok := c.threshold(e, sf.Name, []step{key("strategies"), index(i), key("thresholds"), index(j)})
			if ok && run[sf.Name] {
				out = append(out, th)
			}
		}
	}
	return out
}

func (c *compiler) threshold(expr, cohort string, path []step) (results.Threshold, bool) {
	th, err := results.ParseThreshold(expr)
	if err == nil {
		th.Cohort = cohort
		return th, true
	}
	var um *results.UnknownMetricError
	if errors.As(err, &um) {
		hint := ""
		if m, near := closest(um.Metric, results.MetricNames()); near {
			hint = fmt.Sprintf(" (did you mean %q?)", m)
		}
		c.fail(path, "%q: unknown metric %q%s; metrics: %s", expr, um.Metric, hint, results.MetricHelp())
		return th, false
	}
	c.fail(path, "%v", trimThresholdErr(err))
	return th, false
}

// trimThresholdErr drops the "invalid threshold: " prefix: the path already
// says where the problem is.
func trimThresholdErr(err error) string {
	msg := err.Error()
	prefix := results.ErrThreshold.Error() + ": "
	if len(msg) > len(prefix) && msg[:len(prefix)] == prefix {
		return msg[len(prefix):]
	}
	return msg
}
