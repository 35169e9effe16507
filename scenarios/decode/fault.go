package decode

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"go.yaml.in/yaml/v3"
)

// FaultFile is one fault as written: the common fields, and the kind's own
// parameters kept as YAML until the kind is known.
type FaultFile struct {
	Name   string
	Kind   string
	At     string
	For    string
	Tier   string    // the tier it strikes, in a chain of tiers; "" for the bottom one
	Params yaml.Node // the whole mapping, decoded into the kind's Spec
}

var faultFileType = reflect.TypeOf(FaultFile{})

// FaultCommon are the fields every fault kind has.
var FaultCommon = []string{"name", "kind", "at", "for", "tier"}

// UnmarshalYAML reads the common fields and keeps the mapping for the
// kind's parameters (two-phase decoding).
func (f *FaultFile) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: a fault must be a mapping with kind, at, for and the kind's parameters", n.Line)}}
	}
	f.Params = *n
	return ReadCommon(n, map[string]*string{"name": &f.Name, "kind": &f.Kind, "at": &f.At, "for": &f.For, "tier": &f.Tier})
}

// MarshalYAML writes the fault back as it was written.
func (f FaultFile) MarshalYAML() (any, error) { return &f.Params, nil }

// ReadCommon reads the fields every kind has (a fault's name, kind, at and
// for; a policy's kind and scope) from mapping n into dst, by key: the
// first phase of decoding a kind; the rest waits for the kind's Spec.
func ReadCommon(n *yaml.Node, dst map[string]*string) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		p, ok := dst[k]
		if !ok {
			continue
		}
		if v.Kind != yaml.ScalarNode {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s must be a single value", v.Line, k)}}
		}
		*p = v.Value
	}
	return nil
}

// faultKeys checks a fault's keys against its kind's parameters.
func faultKeys(n *yaml.Node, path string, e *Error) {
	if n.Kind != yaml.MappingNode {
		return // reported by FaultFile.UnmarshalYAML
	}
	kind := ""
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "kind" {
			kind = n.Content[i+1].Value
		}
	}
	spec, ok := chaos.NewSpec(kind)
	if !ok {
		return // Fault reports the unknown or missing kind with the valid ones
	}
	params, fields := Fields(reflect.TypeOf(spec).Elem())
	names := append(append([]string(nil), FaultCommon...), params...)
	Mapping(n, names, path, e, func(k string, v *yaml.Node) {
		if t, ok := fields[k]; ok {
			Keys(v, t, Join(path, k), e, nil)
		}
	})
}

// decodeParams decodes a fault's mapping, minus the common fields, into spec.
func decodeParams(n *yaml.Node, spec chaos.Spec) error {
	rest := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !slices.Contains(FaultCommon, n.Content[i].Value) {
			rest.Content = append(rest.Content, n.Content[i], n.Content[i+1])
		}
	}
	if err := rest.Decode(spec); err != nil {
		return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "))
	}
	return nil
}

// FaultRules are what differs between a fault of a scenario's chaos list
// and one given by hand.
type FaultRules struct {
	// Hand is set for a fault given by hand to a standalone target or proxy
	// (/control/inject): at is a delay from now, 0 when left out, and tier
	// is refused (it strikes where it is sent).
	Hand bool
	// Duration reads a scenario fault's at and for by the scenario's rules
	// (units, limits), reporting its own problems into the same list; ok is
	// false when it reported one. Unused by hand.
	Duration func(v, path string) (d time.Duration, ok bool)
	// Run is the scenario's length: a fault must end within it. DurationFlag
	// says the length came from --duration, which then is what cuts it.
	Run          time.Duration
	DurationFlag bool
}

// Fault decodes one fault, f as read at path ("" for a fault on its own):
// its kind, when it starts and how long it lasts, and its kind's
// parameters, compiled. It reports every problem into e and returns ok
// false if there was one.
func Fault(f *FaultFile, path string, r FaultRules, e *Error) (t chaos.Timed, ok bool) {
	n := &f.Params
	before := len(e.Problems)
	fail := func(k, format string, args ...any) {
		p := Problem{Path: Join(path, k), Msg: fmt.Sprintf(format, args...)}
		if !r.Hand { // a missing field of a scenario's fault: the fault's line
			p.Line = n.Line
		}
		if kn := keyNode(n, k); kn != nil {
			p.Line = kn.Line
		}
		e.Problems = append(e.Problems, p)
	}
	spec, known := chaos.NewSpec(f.Kind)
	switch {
	case known:
	case f.Kind == "":
		fail("kind", "missing; every fault needs a kind: %s", ValidList(chaos.Kinds()))
	default:
		if m, near := Closest(f.Kind, chaos.Kinds()); near {
			fail("kind", "unknown fault kind %q (did you mean %q?); valid kinds: %s", f.Kind, m, ValidList(chaos.Kinds()))
		} else {
			fail("kind", "unknown fault kind %q; valid kinds: %s", f.Kind, ValidList(chaos.Kinds()))
		}
	}
	t = chaos.Timed{Name: f.Name, Kind: f.Kind}
	if r.Hand {
		handWindow(f, &t, fail)
	} else if known {
		scenarioWindow(f, &t, r, fail)
	}
	if known {
		if err := decodeParams(n, spec); err != nil {
			if r.Hand {
				e.Problems = append(e.Problems, Problem{Msg: err.Error()})
			} else {
				e.Problems = append(e.Problems, Problem{Path: path, Line: n.Line, Msg: err.Error()})
			}
			return chaos.Timed{}, false
		}
		fault, perrs := spec.Compile()
		for _, pe := range perrs {
			fail(pe.Field, "%s", pe.Msg)
		}
		t.Fault = fault
	}
	if t.Name == "" {
		t.Name = t.Kind
	}
	return t, len(e.Problems) == before
}

// handWindow reads a hand-given fault's at (a delay from now) and for, and
// refuses a tier.
func handWindow(f *FaultFile, t *chaos.Timed, fail func(k, format string, args ...any)) {
	if f.Tier != "" {
		fail("tier", "a fault given by hand strikes the target or proxy it is sent to; remove tier")
	}
	if f.At != "" {
		d, err := time.ParseDuration(f.At)
		if err != nil || d < 0 {
			fail("at", "%q is not a delay; write how long from now the fault starts, e.g. at: 2s, or leave it out to start at once", f.At)
		}
		t.At = d
	}
	if f.For == "" {
		fail("for", "missing; write how long the fault lasts, e.g. for: 5s")
	} else if d, err := time.ParseDuration(f.For); err != nil || d <= 0 {
		fail("for", "%q is not a length of time; write how long the fault lasts, e.g. for: 5s", f.For)
	} else {
		t.For = d
	}
}

// scenarioWindow reads a scenario fault's at and for, both required, and
// checks that the fault ends within the run.
func scenarioWindow(f *FaultFile, t *chaos.Timed, r FaultRules, fail func(k, format string, args ...any)) {
	if f.At == "" {
		fail("at", "missing; write when the fault starts, relative to the run's start, e.g. at: 10s")
	}
	if f.For == "" {
		fail("for", "missing; write how long the fault lasts, e.g. for: 3s")
	}
	start, _ := r.Duration(f.At, "at")
	length, forOK := r.Duration(f.For, "for")
	if f.For != "" && length == 0 && forOK {
		fail("for", "the fault lasts 0s; write how long it lasts, e.g. for: 3s")
	}
	// start and length are at most a day each, so start+length cannot
	// overflow; the test is written so that it could not anyway.
	if run := r.Run; run > 0 && (start >= run || length > run-start) {
		fix := "shorten it or lengthen duration"
		if r.DurationFlag {
			fix = fmt.Sprintf("--duration %s cuts it; give a --duration of at least %s", run, start+length)
		}
		if start >= run {
			fail("at", "the fault starts at %s, at or after the end of the run at %s; %s", start, run, fix)
		} else {
			fail("for", "the fault runs from %s to %s, past the end of the run at %s; %s", start, start+length, run, fix)
		}
	}
	t.At, t.For = start, length
}

// keyNode returns the key node k of mapping n, or nil.
func keyNode(n *yaml.Node, k string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	var found *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			found = n.Content[i]
		}
	}
	return found
}

// ParseFault reads one fault given by hand, e.g. to the control API of a
// standalone target or proxy: a YAML or JSON mapping with kind, for, the
// kind's parameters (as in a scenario's chaos list), and optionally name and
// at, which here is a delay from now (default 0: at once). It is checked as
// strictly as a scenario, by the same decoder, and returns an *Error
// listing every problem.
func ParseFault(source string, data []byte) (chaos.Timed, error) {
	e := &Error{File: source}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e.Problems = append(e.Problems, SyntaxProblem(err, data))
		return chaos.Timed{}, e
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		e.Problems = append(e.Problems, Problem{Msg: `a fault is a mapping with kind, for and the kind's parameters, e.g. {"kind": "outage", "mode": "503", "for": "5s"}`})
		return chaos.Timed{}, e
	}
	n := doc.Content[0]
	Tags(n, "", e)
	faultKeys(n, "", e)
	var f FaultFile
	if err := n.Decode(&f); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, m := range te.Errors {
				e.Problems = append(e.Problems, LineProblem(m))
			}
		} else {
			e.Problems = append(e.Problems, Problem{Msg: err.Error()})
		}
		return chaos.Timed{}, e
	}
	t, _ := Fault(&f, "", FaultRules{Hand: true}, e)
	if len(e.Problems) > 0 {
		e.Sort()
		return chaos.Timed{}, e
	}
	return t, nil
}
