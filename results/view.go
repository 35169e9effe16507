package results

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
)

// Shows is where a figure shows besides its place in runs[] of
// summary.json: a set of the flags below, in a metric's entry of the
// table (Metric.Shows). runs[].tiers[] and runs[].sim are views of a Run
// that these flags choose the figures of; the terminal's comparison table
// (Metric.Table) and the sweep charts (Metric.Sweep) have places of their
// own.
type Shows uint16

// Where a figure shows.
const (
	// InTiers: in runs[].tiers[], the tier's own figure (computed the
	// same way from the records of the calls into the tier).
	InTiers Shows = 1 << iota
	// InTiersFirst: in runs[].tiers[], written right after the tier's
	// name, before the InTiers ones: what reached the tier.
	InTiersFirst
	// InSim: in runs[].sim, the simulator's reference for a real run.
	InSim
)

// runView is which of a Run's figures its JSON holds.
type runView uint8

const (
	viewRun  runView = iota // runs[]: every field
	viewTier                // runs[].tiers[]: the tier's name and its InTiersFirst, InTiers figures
)

// runField is one field of Run as summary.json writes it.
type runField struct {
	index     int
	key       string
	omitEmpty bool
}

// runFields returns the fields of Run that view v writes, in order: for
// runs[], Run's own order; for a tier, its name, then the fields holding
// an InTiersFirst figure, then those holding an InTiers one.
var runFields = sync.OnceValue(func() [2][]runField {
	t := reflect.TypeOf(Run{})
	var all []runField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		all = append(all, runField{index: i, key: name, omitEmpty: slices.Contains(strings.Split(opts, ","), "omitempty")})
	}
	shows := func(key string, s Shows) bool {
		for _, m := range metricTable() {
			if (m.Name == key || strings.HasPrefix(m.Name, key+".")) && m.Shows&s != 0 {
				return true
			}
		}
		return false
	}
	var out [2][]runField
	out[viewRun] = all
	for _, f := range all {
		if f.key == "tier" {
			out[viewTier] = append(out[viewTier], f)
		}
	}
	for _, s := range []Shows{InTiersFirst, InTiers} {
		for _, f := range all {
			if shows(f.key, s) && (s == InTiersFirst || !shows(f.key, InTiersFirst)) {
				out[viewTier] = append(out[viewTier], f)
			}
		}
	}
	return out
})

// MarshalJSON writes r as one entry of runs[] in summary.json; a figure
// r's recording cannot tell (Unmeasured) is missing, written as null.
func (r Run) MarshalJSON() ([]byte, error) { return r.appendJSON(nil, viewRun) }

// appendJSON appends r as view v writes it.
func (r *Run) appendJSON(b []byte, v runView) ([]byte, error) {
	rv := reflect.ValueOf(r).Elem()
	b = append(b, '{')
	n := 0
	for _, f := range runFields()[v] {
		fv := rv.Field(f.index)
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		b = appendKey(b, n, f.key)
		n++
		var err error
		if f.key == "tiers" && !r.IsUnmeasured(f.key) {
			b = append(b, '[')
			for i := range r.Tiers {
				if i > 0 {
					b = append(b, ',')
				}
				if b, err = r.Tiers[i].appendJSON(b, viewTier); err != nil {
					return nil, err
				}
			}
			b = append(b, ']')
			continue
		}
		if b, err = r.appendValue(b, fv, f.key); err != nil {
			return nil, err
		}
	}
	for _, m := range computedMetrics() {
		if v == viewTier && m.Shows&InTiers == 0 {
			continue
		}
		x, ok := m.Value(r)
		if !ok && m.Omit {
			continue
		}
		b = appendKey(b, n, m.Name)
		n++
		var err error
		if b, err = appendFigure(b, x, ok); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads an entry of runs[] (or of its tiers[]): Run's
// fields, and the figures of the metrics the table computes.
func (r *Run) UnmarshalJSON(data []byte) error {
	type plain Run
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	if len(computedMetrics()) == 0 {
		return nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	for _, m := range computedMetrics() {
		var v *float64
		if raw, ok := all[m.Name]; ok {
			if err := json.Unmarshal(raw, &v); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
		}
		if v != nil {
			m.at.set(r, *v, true)
		}
	}
	return nil
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	timeType      = reflect.TypeFor[time.Time]()
)

// appendValue appends the value v at the dotted path: null when r has no
// such figure (a missing value), an object field by field when it is a
// plain struct (latency_ms, whose parts can be missing), else as
// encoding/json writes it.
func (r *Run) appendValue(b []byte, v reflect.Value, path string) ([]byte, error) {
	if r.IsUnmeasured(path) {
		return append(b, "null"...), nil
	}
	s := v
	if s.Kind() == reflect.Pointer && !s.IsNil() {
		s = s.Elem()
	}
	if s.Kind() != reflect.Struct || s.Type() == timeType || s.Type().Implements(marshalerType) || reflect.PointerTo(s.Type()).Implements(marshalerType) {
		j, err := json.Marshal(v.Interface())
		return append(b, j...), err
	}
	b = append(b, '{')
	n := 0
	for i := 0; i < s.NumField(); i++ {
		sf := s.Type().Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" || strings.Contains(","+opts+",", ",omitempty,") && isEmptyValue(s.Field(i)) {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		b = appendKey(b, n, name)
		n++
		var err error
		if b, err = r.appendValue(b, s.Field(i), path+"."+name); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

func appendString(b []byte, s string) ([]byte, error) {
	j, err := json.Marshal(s)
	return append(b, j...), err
}

// appendKey appends an object member's key and its colon, after a comma
// when n members come before it.
func appendKey(b []byte, n int, key string) []byte {
	if n > 0 {
		b = append(b, ',')
	}
	b, _ = appendString(b, key)
	return append(b, ':')
}

// appendFigure appends figure x, or null when it is missing (!ok).
func appendFigure(b []byte, x float64, ok bool) ([]byte, error) {
	if !ok {
		return append(b, "null"...), nil
	}
	j, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// isEmptyValue is encoding/json's rule for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// Values is a view of a Run: the value of each metric the view shows, by
// name; a metric the Run has no value for is missing. runs[].sim is one:
// the InSim figures of the simulator's Run for the same plan and seed
// (SimFigures).
type Values map[string]float64

// Get returns the figure named name; ok is false when it is missing.
func (f Values) Get(name string) (v float64, ok bool) {
	v, ok = f[name]
	return v, ok
}

// simMetrics are the InSim metrics, in the order of Run's fields.
var simMetrics = sync.OnceValue(func() []Metric {
	var out []Metric
	for _, m := range metricTable() {
		if m.Shows&InSim != 0 {
			out = append(out, m)
		}
	}
	// Run's fields first, in its order; then the computed ones, in the
	// table's, as runs[] writes them.
	slices.SortStableFunc(out, func(a, b Metric) int {
		if a.at.computed || b.at.computed {
			return cmpBool(a.at.computed, b.at.computed)
		}
		return slices.Compare(a.at.index, b.at.index)
	})
	return out
})

// SimFigures returns the reference figures of a simulated cohort's Run
// (runs[].sim of the real run): each InSim metric's value, or its mean
// over the repetitions when r has Stats (over those that have a value:
// recovery_s over the repetitions that recovered), rounded to 3 decimals.
func SimFigures(r Run) Values {
	f := Values{}
	for _, m := range simMetrics() {
		v, ok := m.Value(&r)
		if st, has := r.Stats[m.Name]; has {
			v, ok = st.Mean, st.N > 0
		}
		if ok {
			f[m.Name] = math.Round(v*1000) / 1000
		}
	}
	return f
}

// MarshalJSON writes the InSim figures in the order of Run's fields, a
// missing one as null, or left out where runs[] leaves it out (calls for
// a target that is not an OCC row).
func (f Values) MarshalJSON() ([]byte, error) {
	omit := map[string]bool{}
	for _, rf := range runFields()[viewRun] {
		omit[rf.key] = rf.omitEmpty
	}
	for _, m := range computedMetrics() {
		omit[m.Name] = m.Omit
	}
	b := []byte{'{'}
	n := 0
	for _, m := range simMetrics() {
		v, ok := f[m.Name]
		if !ok && omit[m.Name] {
			continue
		}
		b = appendKey(b, n, m.Name)
		n++
		var err error
		if b, err = appendFigure(b, v, ok); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads figures written by MarshalJSON; a null one is
// missing.
func (f *Values) UnmarshalJSON(data []byte) error {
	var m map[string]*float64
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	*f = Values{}
	for k, v := range m {
		if v != nil {
			(*f)[k] = *v
		}
	}
	return nil
}

// SweepLines returns the names of the metrics a sweep's report draws
// against a swept field (Metric.Sweep.Line), in their order.
func SweepLines() []string { return sweepCharts(func(c Chart) int { return c.Line }) }

// SweepHeats returns the names of the metrics a sweep's report draws as
// heat maps over two swept fields (Metric.Sweep.Heat), in their order.
func SweepHeats() []string { return sweepCharts(func(c Chart) int { return c.Heat }) }

func sweepCharts(place func(Chart) int) []string {
	var ms []Metric
	for _, m := range metricTable() {
		if place(m.Sweep) > 0 {
			ms = append(ms, m)
		}
	}
	slices.SortFunc(ms, func(a, b Metric) int { return place(a.Sweep) - place(b.Sweep) })
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}
