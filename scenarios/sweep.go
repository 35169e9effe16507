package scenarios

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/results"
	"go.yaml.in/yaml/v3"
)

// A sweep runs a scenario at every combination of values of some of its
// fields (the cross product), each combination a point with its own plan,
// its repetitions and its gates. A swept field is named by its path as in
// the YAML: keys joined by dots, list items by index or, for the
// strategies and the chaos plan, by name: strategies[0].jitter,
// strategies[no-jitter].base, chaos[crash].for, workload.clients,
// target.concurrency. A point is the scenario's YAML with those values put
// in place, then read and checked as the file would be: a value means at a
// point exactly what it means in a file.

// Axis is one swept field: its path and the values it takes, as written.
type Axis struct {
	Path   string   // as written, e.g. "strategies[0].jitter"
	Values []string // as written: "0.05", "3s", "exponential(5ms)"
	// Origin says where the axis was given, for messages: "sweep" (the
	// file's sweep section), "--set" or "--clients".
	Origin string

	steps []pathStep
	// written is the key as the file's sweep section writes it ("clients"
	// for workload.clients), line its line there and lines each value's;
	// 0 on the command line.
	written string
	line    int
	lines   []int
}

// pathStep is one step of a field path: a mapping key, or a list item by
// index or by name.
type pathStep struct {
	key    string
	index  int
	name   string
	byName bool
	isItem bool
}

// errPath is wrapped by every problem with a field path's syntax.
var errPath = errors.New("not a field path")

// parsePath reads a field path: keys (letters, digits, '_') joined by
// dots, each optionally followed by list items, [0] or [name].
func parsePath(p string) ([]pathStep, error) {
	var steps []pathStep
	i := 0
	for i < len(p) {
		start := i
		for i < len(p) && (p[i] >= 'a' && p[i] <= 'z' || p[i] >= 'A' && p[i] <= 'Z' || p[i] >= '0' && p[i] <= '9' || p[i] == '_') {
			i++
		}
		if i == start {
			return nil, fmt.Errorf("%w: %q has no field name at column %d; write keys joined by dots, e.g. workload.clients or strategies[0].jitter", errPath, p, start+1)
		}
		steps = append(steps, pathStep{key: p[start:i]})
		for i < len(p) && p[i] == '[' {
			end := strings.IndexByte(p[i:], ']')
			if end < 0 {
				return nil, fmt.Errorf("%w: %q opens a [ it never closes", errPath, p)
			}
			sel := strings.TrimSpace(p[i+1 : i+end])
			if sel == "" {
				return nil, fmt.Errorf("%w: %q has an empty [], write an index or a name, e.g. strategies[0] or strategies[no-jitter]", errPath, p)
			}
			st := pathStep{isItem: true}
			if n, err := strconv.Atoi(sel); err == nil {
				if n < 0 {
					return nil, fmt.Errorf("%w: %q: index %d is negative; items count from 0", errPath, p, n)
				}
				st.index = n
			} else {
				st.name, st.byName = sel, true
			}
			steps = append(steps, st)
			i += end + 1
		}
		if i < len(p) {
			if p[i] != '.' || i == len(p)-1 {
				return nil, fmt.Errorf("%w: %q: unexpected %q at column %d; write keys joined by dots, e.g. workload.clients or strategies[0].jitter", errPath, p, p[i:i+1], i+1)
			}
			i++
		}
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("%w: the path is empty; name a field, e.g. workload.clients", errPath)
	}
	return steps, nil
}

// unsweepable are the top-level fields a sweep may not change, and why.
var unsweepable = map[string]string{
	"name":        "it names the results folder, one per sweep",
	"description": "it changes nothing that runs",
	"seed":        "one root seed serves every point, so that points differ only by what is swept; repeat each point with --runs instead",
	"runs":        "it is the repetitions of every point; give it once, with --runs",
	"sweep":       "a sweep cannot sweep itself",
}

// ParseSet reads a --set flag's value, PATH=V1,V2,...: one value sets
// the field at every point, several sweep it. Values are split at commas
// outside parentheses, so a distribution's "normal(10ms, 2ms)" is one.
func ParseSet(arg string) (Axis, error) {
	path, vals, ok := strings.Cut(arg, "=")
	path = strings.TrimSpace(path)
	if !ok || path == "" {
		return Axis{}, fmt.Errorf("%q: write PATH=VALUE or PATH=V1,V2,... e.g. --set workload.clients=100,200 or --set strategies[0].jitter=0.1", arg)
	}
	a := Axis{Path: path, Origin: "--set"}
	depth, start := 0, 0
	for i := 0; i <= len(vals); i++ {
		if i < len(vals) {
			switch vals[i] {
			case '(':
				depth++
				continue
			case ')':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		v := strings.TrimSpace(vals[start:i])
		if v == "" {
			return Axis{}, fmt.Errorf("--set %s: an empty value; write one value or several separated by commas, e.g. %s=1,2,3", arg, path)
		}
		a.Values = append(a.Values, v)
		start = i + 1
	}
	return a, nil
}

// SweepFile is the file's sweep section: swept fields, by path, each with
// the list of values it takes. sweep: {clients: [10, 20]}, as written
// before any field could be swept, is workload.clients.
type SweepFile struct {
	Axes []Axis
}

// UnmarshalYAML reads the mapping of paths to lists of values, in order.
func (s *SweepFile) UnmarshalYAML(n *yaml.Node) error {
	bad := func(line int, format string, args ...any) error {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: "+format, append([]any{line}, args...)...)}}
	}
	if n.Kind != yaml.MappingNode {
		return bad(n.Line, "a sweep is a mapping of fields to the values each takes, e.g. sweep: {workload.clients: [10, 100], strategies[0].jitter: [0, 0.5, 1]}")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		path := k.Value
		if path == "clients" {
			path = "workload.clients" // the sweep section's first form
		}
		if v.Kind != yaml.SequenceNode {
			return bad(v.Line, "sweep.%s must be a list of the values it takes, e.g. [10, 100, 1000]", k.Value)
		}
		a := Axis{Path: path, Origin: "sweep", written: k.Value, line: k.Line}
		for _, item := range v.Content {
			if item.Kind == yaml.AliasNode {
				item = item.Alias
			}
			if item.Kind != yaml.ScalarNode {
				return bad(item.Line, "sweep.%s lists a %s; each value is a single value (a number, a duration, a word)", k.Value, kindName(item.Kind))
			}
			a.Values = append(a.Values, item.Value)
			a.lines = append(a.lines, item.Line)
		}
		s.Axes = append(s.Axes, a)
	}
	return nil
}

func kindName(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "value"
}

// MarshalYAML writes the sweep as it is read: each path with its values
// in a list, as written.
func (s SweepFile) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, a := range s.Axes {
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, v := range a.Values {
			seq.Content = append(seq.Content, scalar(v))
		}
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: a.Path}, seq)
	}
	return m, nil
}

// scalar is a plain scalar node whose tag YAML resolves from its text, as
// it would in a file: 10 is a number, 3s and full are text.
func scalar(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	n.Tag = n.ShortTag() // the encoder quotes what needs it
	return n
}

// Points returns the cross product of axes: every combination of their
// values, the first axis varying slowest. No axes: one empty point.
func Points(axes []Axis) [][]results.Setting {
	points := [][]results.Setting{nil}
	for _, a := range axes {
		var next [][]results.Setting
		for _, p := range points {
			for _, v := range a.Values {
				q := append(append([]results.Setting(nil), p...), results.Setting{Field: a.Path, Value: v})
				next = append(next, q)
			}
		}
		points = next
	}
	return points
}

// pointCount is the number of points of axes, or MaxSweepPoints+1 when
// it is more (the product may overflow).
func pointCount(axes []Axis) int {
	n := 1
	for _, a := range axes {
		n *= max(1, len(a.Values))
		if n > MaxSweepPoints {
			return MaxSweepPoints + 1
		}
	}
	return n
}

// setter puts one value at a field path in a scenario's YAML tree.
type setter struct {
	root *yaml.Node
}

// set puts value at steps, creating the keys it lacks; line is the line to
// report problems of the value at (0: none, a flag's). Its errors are said
// after the path they concern (path is the path as given). A mapping or item
// that YAML aliases share (an anchor, or an alias of one) is copied first,
// so the value changes this place only.
func (s setter) set(steps []pathStep, path, value string, line int) error {
	n := s.root
	for i, st := range steps {
		last := i == len(steps)-1
		if st.isItem {
			if n.Kind != yaml.SequenceNode {
				return fmt.Errorf("%s is not a list", pathText(steps[:i]))
			}
			j, err := item(n, st, steps[:i])
			if err != nil {
				return err
			}
			if last {
				return fmt.Errorf("%s names a whole item of %s; set one of its fields, e.g. %s.name", path, pathText(steps[:i]), path)
			}
			n.Content[j] = detach(n.Content[j])
			n = n.Content[j]
			continue
		}
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is a single value, not a mapping of fields", pathText(steps[:i]))
		}
		k := -1
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == st.key {
				k = j
			}
		}
		if k < 0 {
			if !last && steps[i+1].isItem {
				return fmt.Errorf("the scenario has no %s to pick an item from", pathText(steps[:i+1]))
			}
			v := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: line}
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: st.key, Line: line}, v)
			k = len(n.Content) - 2
		}
		if last {
			old := unalias(n.Content[k+1])
			if old.Kind == yaml.MappingNode && len(old.Content) > 0 || old.Kind == yaml.SequenceNode {
				return fmt.Errorf("%s is a %s in the scenario; set one value at a time, e.g. a field inside it", path, kindName(old.Kind))
			}
			v := scalar(value)
			v.Line = line
			key := *n.Content[k]
			key.Line = line // problems with the value point where it was given
			n.Content[k], n.Content[k+1] = &key, v
			return nil
		}
		n.Content[k+1] = detach(n.Content[k+1])
		n = n.Content[k+1]
	}
	return nil
}

// detach returns a node to change in place of n without changing anything
// else: n itself, or, when aliases share it (an anchor, or an alias), a
// copy of what they share. The aliases keep the original.
func detach(n *yaml.Node) *yaml.Node {
	switch {
	case n.Kind == yaml.AliasNode:
		n = clone(n.Alias)
	case n.Anchor != "":
		n = clone(n)
	default:
		return n
	}
	n.Anchor = ""
	return n
}

// item finds the list item a step selects in sequence n.
func item(n *yaml.Node, st pathStep, at []pathStep) (int, error) {
	if !st.byName {
		if st.index >= len(n.Content) {
			return 0, fmt.Errorf("%s has %s, numbered from 0: there is no [%d]", pathText(at), spoken.Count(len(n.Content), "item", "items"), st.index)
		}
		return st.index, nil
	}
	var names []string
	found := -1
	for j, it := range n.Content {
		it = unalias(it)
		if it.Kind != yaml.MappingNode {
			continue
		}
		for k := 0; k+1 < len(it.Content); k += 2 {
			if it.Content[k].Value == "name" {
				name := it.Content[k+1].Value
				names = append(names, name)
				if name == st.name {
					if found >= 0 {
						return 0, fmt.Errorf("%s has two items named %q; pick one by index, e.g. %s[%d]", pathText(at), st.name, pathText(at), found)
					}
					found = j
				}
			}
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("%s has no item named %q; its names: %s", pathText(at), st.name, validList(names))
	}
	return found, nil
}

// unalias returns n, or a deep copy of what it aliases.
func unalias(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode {
		return clone(n.Alias)
	}
	return n
}

// clone deep-copies a YAML tree. Aliases keep pointing at their anchors'
// copies.
func clone(n *yaml.Node) *yaml.Node {
	copies := map[*yaml.Node]*yaml.Node{}
	var walk func(n *yaml.Node) *yaml.Node
	walk = func(n *yaml.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if c, ok := copies[n]; ok {
			return c
		}
		c := *n
		copies[n] = &c
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			c.Content[i] = walk(k)
		}
		c.Alias = walk(n.Alias)
		return &c
	}
	return walk(n)
}

// pathText writes steps as a path.
func pathText(steps []pathStep) string {
	var b strings.Builder
	for _, st := range steps {
		switch {
		case !st.isItem:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(st.key)
		case st.byName:
			fmt.Fprintf(&b, "[%s]", st.name)
		default:
			fmt.Fprintf(&b, "[%d]", st.index)
		}
	}
	return b.String()
}

// Expand compiles the scenario at every point of its sweep: the file's
// sweep, with o.Set over it (an axis of o.Set replaces the file's of the
// same field; one value sets the field at every point). Without a sweep it
// is Compile, one plan. Every point is checked before any plan is
// returned, and the problems of all of them come at once: a problem every
// point has is told once, one that only some have is told with the values
// that have it ("at strategies[0].jitter=1.5: ...").
func (s *Scenario) Expand(o Overrides) ([]*Plan, error) {
	e := &Error{File: s.Filename}
	axes, fixed := s.sweepAxes(o, e)
	if len(e.Problems) > 0 {
		e.Sort()
		return nil, e
	}
	points := Points(axes)
	plans := make([]*Plan, len(points))
	var found []occurrence
	for i, pt := range points {
		ps := &Scenario{Filename: s.Filename, Source: s.Source, root: clone(s.root), folder: s.folder, expanded: true, axes: axes, point: pt}
		if len(axes) == 0 {
			ps.point = nil
		}
		pe := &Error{File: s.Filename}
		set := setter{root: ps.root}
		for _, a := range fixed {
			_ = set.set(a.steps, a.Path, a.Values[0], a.valueLine(0)) // checked by sweepAxes
		}
		for j, v := range pt {
			a := axes[j]
			_ = set.set(a.steps, a.Path, v.Value, a.valueLine(slicesIndex(a.Values, v.Value)))
		}
		ps.decode(pe)
		o.Set = nil
		p, err := ps.Compile(o)
		var ce *Error
		if errors.As(err, &ce) {
			pe.Problems = append(pe.Problems, notCovered(ce.Problems, pe.Problems)...)
		} else if err != nil {
			return nil, err
		}
		if len(pe.Problems) > 0 {
			found = record(found, pe.Problems, i)
			continue
		}
		plans[i] = p
	}
	if len(found) > 0 {
		e.Problems = labelled(found, points)
		for i, p := range e.Problems {
			for _, a := range append(append([]Axis(nil), fixed...), axes...) {
				if a.Origin != "sweep" && p.Path == pathText(a.steps) {
					e.Problems[i].Msg = a.Origin + ": " + p.Msg // the value came from the command line
				}
			}
		}
		e.Sort()
		return nil, e
	}
	return plans, nil
}

func slicesIndex(vs []string, v string) int {
	for i, x := range vs {
		if x == v {
			return i
		}
	}
	return 0
}

// valueLine is the line of value i of a, 0 when given on the command line.
func (a Axis) valueLine(i int) int {
	if i < len(a.lines) {
		return a.lines[i]
	}
	return a.line
}

// sweepAxes returns the sweep's axes (two values or more each) and the
// fields o.Set fixes (one value each), and puts every problem with them
// into e: a path that does not read or names no field, a field a sweep may
// not change, a list with fewer than two values or the same value twice,
// too many points, --strategies leaving out a swept strategy.
func (s *Scenario) sweepAxes(o Overrides, e *Error) (axes, fixed []Axis) {
	var file []Axis
	if s.File.Sweep != nil {
		file = s.File.Sweep.Axes
	}
	fail := func(a Axis, path string, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if a.Origin != "sweep" {
			e.Problems = append(e.Problems, Problem{Msg: a.Origin + " " + a.Path + ": " + msg})
			return
		}
		e.Problems = append(e.Problems, Problem{Line: a.line, Path: path, Msg: msg})
	}
	seen := map[string]Axis{}
	check := func(a Axis) (Axis, bool) {
		where := "sweep." + a.written
		steps, err := parsePath(a.Path)
		if err != nil {
			fail(a, where, "%s", strings.TrimPrefix(err.Error(), errPath.Error()+": "))
			return a, false
		}
		a.steps = steps
		canon := pathText(steps)
		if why, ok := unsweepable[steps[0].key]; ok && len(steps) == 1 {
			fail(a, where, "%s cannot be swept or set: %s", steps[0].key, why)
			return a, false
		}
		if prev, dup := seen[canon]; dup && prev.Origin == a.Origin {
			fail(a, where, "names %s twice; give each field once, with all its values", canon)
			return a, false
		}
		if err := (setter{root: clone(s.root)}).set(steps, a.Path, a.Values[0], 0); err != nil {
			fail(a, where, "%v", err)
			return a, false
		}
		counted := map[string]int{}
		for i, v := range a.Values {
			if j, dup := counted[v]; dup {
				if a.Origin == "sweep" {
					e.Problems = append(e.Problems, Problem{Line: a.valueLine(i), Path: fmt.Sprintf("%s[%d]", where, i), Msg: fmt.Sprintf("%s is listed twice (also [%d]); give each value once", v, j)})
				} else {
					fail(a, where, "lists %s twice; give each value once", v)
				}
				return a, false
			}
			counted[v] = i
		}
		seen[canon] = a
		return a, true
	}
	var set []Axis
	for _, a := range o.Set {
		if len(a.Values) == 0 {
			fail(a, "", "no value; write PATH=VALUE or PATH=V1,V2,...")
			continue
		}
		if a, ok := check(a); ok {
			set = append(set, a)
		}
	}
	over := map[string]bool{}
	for _, a := range set {
		over[pathText(a.steps)] = true
	}
	if o.Clients > 0 {
		over["workload.clients"] = true
	}
	if o.Duration > 0 {
		over["duration"] = true
	}
	for _, a := range file {
		if len(a.Values) < 2 {
			e.Problems = append(e.Problems, Problem{Line: a.line, Path: "sweep." + a.written, Msg: fmt.Sprintf("%s; a sweep lists two or more, e.g. %s: [10, 100] (for one, set the field itself)", spoken.Count(len(a.Values), "value", "values"), a.written)})
			continue
		}
		a, ok := check(a)
		if !ok || over[pathText(a.steps)] {
			continue // a flag sets the field instead
		}
		axes = append(axes, a)
	}
	var setAxes []Axis
	fixed, setAxes = splitSet(set, file)
	axes = append(axes, setAxes...)
	overrideClashes(append(append([]Axis(nil), fixed...), axes...), o, fail)
	if n := pointCount(axes); n > MaxSweepPoints {
		e.Problems = append(e.Problems, tooManyPoints(axes))
	}
	if len(o.Strategies) > 0 {
		axes = s.byStrategyName(axes, o.Strategies, fail)
		fixed = s.byStrategyName(fixed, o.Strategies, fail)
	}
	return axes, fixed
}

// splitSet cuts the fields --set names into those it fixes (one value)
// and its axes, each placed on the command line, not where the file's
// sweep of the same field was.
func splitSet(set, file []Axis) (fixed, axes []Axis) {
	for _, a := range set {
		for _, b := range file {
			if b.steps != nil && pathText(b.steps) == pathText(a.steps) {
				a.line, a.lines = 0, nil
			}
		}
		if len(a.Values) == 1 {
			fixed = append(fixed, a)
		} else {
			axes = append(axes, a)
		}
	}
	return fixed, axes
}

// overrideClashes refuses an axis on a field an override sets too: the
// count of clients, the run's length.
func overrideClashes(axes []Axis, o Overrides, fail func(Axis, string, string, ...any)) {
	for _, a := range axes {
		switch pathText(a.steps) {
		case "workload.clients":
			if o.Clients > 0 {
				fail(a, "", "the count of clients is given twice, here and as Overrides.Clients; give it once")
			}
		case "duration":
			if o.Duration > 0 {
				fail(a, "", "--duration sets the run's length too; give it once")
			}
		}
	}
}

// tooManyPoints is the problem of a sweep over more than MaxSweepPoints.
func tooManyPoints(axes []Axis) Problem {
	sizes := make([]string, len(axes))
	for i, a := range axes {
		sizes[i] = strconv.Itoa(len(a.Values))
	}
	return Problem{Msg: fmt.Sprintf("the sweep has more than %d points (%s values, every combination); a sweep has at most %d: sweep fewer fields or values", MaxSweepPoints, strings.Join(sizes, " × "), MaxSweepPoints)}
}

// byStrategyName rewrites axes that pick a strategy by index to pick it by
// name, since --strategies (only) renumbers the cohorts that run, and
// refuses axes on a strategy it leaves out.
func (s *Scenario) byStrategyName(axes []Axis, only []string, fail func(Axis, string, string, ...any)) []Axis {
	out := axes[:0]
	for _, a := range axes {
		if len(a.steps) < 2 || a.steps[0].key != "strategies" || !a.steps[1].isItem {
			out = append(out, a)
			continue
		}
		name := a.steps[1].name
		if !a.steps[1].byName {
			if n, ok := s.rootKey("strategies"); ok && n.Kind == yaml.SequenceNode && a.steps[1].index < len(n.Content) {
				name = itemName(n.Content[a.steps[1].index])
			}
		}
		if !contains(only, name) {
			fail(a, "sweep."+a.written, "--strategies leaves out strategy %q, which this changes; pick it, or drop %s", name, a.Path)
			continue
		}
		a.steps = append([]pathStep(nil), a.steps...)
		a.steps[1] = pathStep{isItem: true, byName: true, name: name}
		a.Path = pathText(a.steps)
		out = append(out, a)
	}
	return out
}

// itemName returns a list item's name field, or "".
func itemName(n *yaml.Node) string {
	n = unalias(n)
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == "name" {
			return n.Content[k+1].Value
		}
	}
	return ""
}

// occurrence is one problem and the points (by index) that have it.
type occurrence struct {
	p  Problem
	at []int
}

// record adds point i's problems to found.
func record(found []occurrence, ps []Problem, i int) []occurrence {
next:
	for _, p := range ps {
		for j := range found {
			if found[j].p == p {
				found[j].at = append(found[j].at, i)
				continue next
			}
		}
		found = append(found, occurrence{p: p, at: []int{i}})
	}
	return found
}

// labelled returns the problems found over points: as they are when every
// point has them; otherwise each named by the values its points share
// when exactly the points with those values have it, or else by each of
// its points.
func labelled(found []occurrence, points [][]results.Setting) []Problem {
	var out []Problem
	for _, f := range found {
		if len(f.at) == len(points) {
			out = append(out, f.p)
			continue
		}
		shared := append([]results.Setting(nil), points[f.at[0]]...)
		for _, i := range f.at[1:] {
			kept := shared[:0]
			for _, st := range shared {
				if containsSetting(points[i], st) {
					kept = append(kept, st)
				}
			}
			shared = kept
		}
		matching := 0
		for _, pt := range points {
			all := true
			for _, st := range shared {
				all = all && containsSetting(pt, st)
			}
			if all {
				matching++
			}
		}
		if len(shared) > 0 && matching == len(f.at) {
			p := f.p
			p.Msg = "at " + results.PointLabel(shared) + ": " + p.Msg
			out = append(out, p)
			continue
		}
		for _, i := range f.at {
			p := f.p
			p.Msg = "at " + results.PointLabel(points[i]) + ": " + p.Msg
			out = append(out, p)
		}
	}
	return out
}

func containsSetting(pt []results.Setting, s results.Setting) bool {
	for _, x := range pt {
		if x == s {
			return true
		}
	}
	return false
}
