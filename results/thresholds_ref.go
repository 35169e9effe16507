package results

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// parseFigure reads a figure: ref or mean(ref), ref being
// ["tiers[" tier "]."] metric ["[" selector "]"].
func parseFigure(t string) (*Ref, bool, error) {
	mean := false
	if inner, ok := strings.CutPrefix(t, "mean("); ok {
		inner, closed := strings.CutSuffix(inner, ")")
		if !closed || strings.TrimSpace(inner) == "" {
			return nil, false, fmt.Errorf("write mean(metric), e.g. mean(amplification) <= 1.5")
		}
		t, mean = strings.TrimSpace(inner), true
	}
	ref := &Ref{Text: t}
	name := t
	if rest, ok := strings.CutPrefix(name, "tiers["); ok {
		end := strings.Index(rest, "].")
		if end <= 0 {
			return nil, false, fmt.Errorf("%q: write a tier's figure as tiers[NAME].metric, e.g. tiers[service].amplification", t)
		}
		ref.Tier, name = strings.TrimSpace(rest[:end]), rest[end+2:]
	}
	if i := strings.IndexByte(name, '['); i >= 0 || strings.HasSuffix(name, "]") {
		if i < 0 || !strings.HasSuffix(name, "]") {
			return nil, false, fmt.Errorf("%q: write a cohort's figure as metric[cohort], e.g. herd_factor[full-jitter]", t)
		}
		if err := ref.parseSelector(name[i+1 : len(name)-1]); err != nil {
			return nil, false, fmt.Errorf("%q: %s", t, err)
		}
		name = strings.TrimSpace(name[:i])
	}
	ref.Metric = name
	if after, ok := strings.CutPrefix(name, "latency."); ok {
		ref.Metric, ref.alias = "latency_ms."+after, true
	}
	m, ok := LookupMetric(ref.Metric)
	if !ok {
		return nil, false, &UnknownMetricError{Metric: name}
	}
	if ref.Tier != "" && m.Shows&(InTiers|InTiersFirst) == 0 {
		return nil, false, fmt.Errorf("%q: %s is a cohort's figure, not a tier's; a tier has %s", t, name, strings.Join(tierMetricNames(), ", "))
	}
	return ref, mean, nil
}

// tierMetricNames returns the metrics a tier of a chain has.
func tierMetricNames() []string {
	var out []string
	for _, m := range metricTable() {
		if m.Shows&(InTiers|InTiersFirst) != 0 {
			out = append(out, m.Name)
		}
	}
	return out
}

// parseSelector reads what is between a figure's brackets: a cohort and
// sweep settings, comma-separated; a cohort name may be quoted.
func (r *Ref) parseSelector(sel string) error {
	for sel = strings.TrimSpace(sel); sel != ""; {
		var item string
		if strings.HasPrefix(sel, `"`) {
			end := strings.IndexByte(sel[1:], '"')
			if end < 0 {
				return fmt.Errorf("a quoted cohort has no closing quote")
			}
			item, sel = sel[:end+2], strings.TrimSpace(sel[end+2:])
		} else if i := strings.IndexByte(sel, ','); i >= 0 {
			item, sel = sel[:i], sel[i:]
		} else {
			item, sel = sel, ""
		}
		if rest, ok := strings.CutPrefix(sel, ","); ok {
			sel = strings.TrimSpace(rest)
			if sel == "" {
				return fmt.Errorf("nothing after the last comma")
			}
		} else if sel != "" {
			return fmt.Errorf("write the cohort and the sweep's fields apart, with commas: [cohort, field=value]")
		}
		if err := r.addItem(strings.TrimSpace(item)); err != nil {
			return err
		}
	}
	if r.Cohort == "" && len(r.Point) == 0 {
		return fmt.Errorf("empty brackets; name a cohort, e.g. herd_factor[full-jitter]")
	}
	return nil
}

// addItem adds one item of a selector: a cohort or a field=value.
func (r *Ref) addItem(item string) error {
	cohort := ""
	if unq, err := strconv.Unquote(item); err == nil && strings.HasPrefix(item, `"`) {
		cohort = unq
	} else if field, value, ok := strings.Cut(item, "="); ok {
		field, value = strings.TrimSpace(field), strings.TrimSpace(value)
		if field == "" || value == "" {
			return fmt.Errorf("%q: a point of the sweep is field=value, e.g. jitter=0.05", item)
		}
		for _, s := range r.Point {
			if s.Field == field {
				return fmt.Errorf("%s is set twice", field)
			}
		}
		r.Point = append(r.Point, Setting{Field: field, Value: value})
		return nil
	} else {
		cohort = item
	}
	switch {
	case cohort == "":
		return fmt.Errorf("an empty cohort name")
	case r.Cohort != "":
		return fmt.Errorf("two cohorts, %q and %q; a figure is one cohort's", r.Cohort, cohort)
	}
	r.Cohort = cohort
	return nil
}

// checkLimit refuses limits no figure can meet or fail: every metric is 0 or
// more, and a ratio is at most 1.
func checkLimit(m Metric, written string, limit float64) error {
	switch {
	case limit < 0:
		return fmt.Errorf("%s is never negative; a limit of %s would make the threshold always pass or always fail", m.Name, written)
	case m.Unit == Ratio && limit > 1:
		if strings.HasSuffix(written, "%") {
			return fmt.Errorf("%s is a ratio, at most 100%%; write a limit from 0%% to 100%%", m.Name)
		}
		return fmt.Errorf("%s is a ratio from 0 to 1; write %g%% or %g", m.Name, limit, limit/100)
	}
	return nil
}

// parseLimit reads a threshold's value in the unit of metric m.
func parseLimit(m Metric, v string, needUnit bool) (float64, error) {
	if num, ok := strings.CutSuffix(v, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		switch {
		case m.Unit != Ratio:
			return 0, fmt.Errorf("%q: a percentage is for ratio metrics such as success_ratio; write a number", v)
		case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			return 0, fmt.Errorf("%q is not a percentage; write a number from 0%% to 100%%, e.g. 99%%", v)
		}
		return f / 100, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		if needUnit {
			return 0, fmt.Errorf("%q has no unit; write a duration such as 2s or 250ms (or use latency_ms.… with a number of milliseconds)", v)
		}
		return f, nil
	}
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a number or a duration", v)
	case m.Unit == Millis:
		return float64(d) / float64(time.Millisecond), nil
	case m.Unit == Seconds:
		return d.Seconds(), nil
	}
	return 0, fmt.Errorf("%q is a duration, but %s is not a time; write a plain number", v, m.Name)
}

// MetricNames returns every metric a threshold can name, sorted.
func MetricNames() []string {
	var out []string
	for _, m := range metricTable() {
		out = append(out, m.Name)
	}
	sort.Strings(out)
	return out
}

// MetricHelp describes the metric names compactly, for error messages.
func MetricHelp() string {
	var plain []string
	groups := map[string][]string{}
	var order []string
	for _, n := range MetricNames() {
		i := strings.LastIndexByte(n, '.')
		if i < 0 {
			plain = append(plain, n)
			continue
		}
		g := n[:i]
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], n[i+1:])
	}
	for _, g := range order {
		plain = append(plain, g+".{"+strings.Join(groups[g], ",")+"}")
	}
	return strings.Join(plain, ", ") + " (latency.… takes a duration: latency.request.p99 < 2s)"
}
