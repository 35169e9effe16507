package scenarios

import (
	"errors"
	"fmt"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
)

// thresholds reads the release gates: the file's (for every cohort, or for
// the cohorts they name) and each strategy's own. f is the file as written,
// so paths keep their indices when --strategies picks cohorts; the gates
// of cohorts not picked, and those comparing with them, are checked but
// dropped.
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
	keep := func(th results.Threshold) bool {
		for _, name := range th.Cohorts() {
			if !run[name] {
				return false
			}
		}
		return th.Cohort == "" || run[th.Cohort]
	}
	for i, e := range f.Thresholds {
		if th, ok := c.threshold(f, e, "", []step{key("thresholds"), index(i)}); ok && keep(th) {
			out = append(out, th)
		}
	}
	for i, sf := range f.Strategies {
		for j, e := range sf.Thresholds {
			th, ok := c.threshold(f, e, sf.Name, []step{key("strategies"), index(i), key("thresholds"), index(j)})
			if ok && keep(th) {
				out = append(out, th)
			}
		}
	}
	return out
}

func (c *compiler) threshold(f *File, expr, cohort string, path []step) (results.Threshold, bool) {
	th, err := results.ParseThreshold(expr)
	if err == nil {
		th.Cohort = cohort
		return th, c.thresholdNames(f, &th, path)
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

// thresholdNames checks what a threshold names against the scenario: its
// cohorts are strategies, its tiers tiers of the chain, its points values
// of a swept field. Every problem is told.
func (c *compiler) thresholdNames(f *File, th *results.Threshold, path []step) bool {
	ok := true
	var names []string
	for _, sf := range f.Strategies {
		names = append(names, sf.Name)
	}
	for _, name := range th.Cohorts() {
		if !contains(names, name) {
			c.fail(path, "%q names cohort %q, which is not a strategy of this scenario%s; its strategies: %s", th.Expr, name, meant(name, names), validList(names))
			ok = false
		}
	}
	var tiers []string
	for _, t := range f.Tiers {
		tiers = append(tiers, t.Name)
	}
	for _, name := range th.Tiers() {
		switch {
		case len(tiers) == 0:
			c.fail(path, "%q reads tier %q, but this scenario has one target, no chain of tiers; write the figure without tiers[…]", th.Expr, name)
			ok = false
		case !contains(tiers, name):
			c.fail(path, "%q reads tier %q, which is not a tier of this scenario%s; its tiers: %s", th.Expr, name, meant(name, tiers), validList(tiers))
			ok = false
		}
	}
	for _, st := range th.Points() {
		if msg := c.sweptValue(f, st); msg != "" {
			c.fail(path, "%q names the point %s=%s, but %s", th.Expr, st.Field, st.Value, msg)
			ok = false
		}
	}
	return ok
}

// sweptValue says what is wrong with a threshold's field=value ("" if
// nothing): the field is swept (by the file's sweep section or the
// command line) and the value is one of its values.
func (c *compiler) sweptValue(f *File, st results.Setting) string {
	var axes []Axis
	if f.Sweep != nil {
		axes = f.Sweep.Axes
	}
	axes = append(axes, c.s.axes...)
	if len(axes) == 0 {
		return "the scenario sweeps nothing; a sweep: section gives the points a threshold may compare"
	}
	var paths []string
	for _, a := range axes {
		paths = append(paths, a.Path)
		if !results.NamesSweptField([]string{a.Path}, st.Field) {
			continue
		}
		for _, v := range a.Values {
			if results.SameSweepValue(v, st.Value) {
				return ""
			}
		}
		return fmt.Sprintf("%s takes %s", a.Path, strings.Join(a.Values, ", "))
	}
	return fmt.Sprintf("no swept field is %s; the sweep's fields: %s (name one by its path or its last key)", st.Field, validList(paths))
}

// meant is a did-you-mean for name among names, or "".
func meant(name string, names []string) string {
	if m, near := closest(name, names); near {
		return fmt.Sprintf(" (did you mean %q?)", m)
	}
	return ""
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
