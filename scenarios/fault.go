package scenarios

import (
	"errors"
	"fmt"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"go.yaml.in/yaml/v3"
)

// ParseFault reads one fault given by hand, e.g. to the control API of a
// standalone target or proxy: a YAML or JSON mapping with kind, for, the
// kind's parameters (as in a scenario's chaos list), and optionally name and
// at, which here is a delay from now (default 0: at once). It is checked as
// strictly as a scenario, and returns an *Error listing every problem.
func ParseFault(source string, data []byte) (chaos.Timed, error) {
	e := &Error{File: source}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e.Problems = append(e.Problems, syntaxProblem(err))
		return chaos.Timed{}, e
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		e.Problems = append(e.Problems, Problem{Msg: `a fault is a mapping with kind, for and the kind's parameters, e.g. {"kind": "outage", "mode": "503", "for": "5s"}`})
		return chaos.Timed{}, e
	}
	n := doc.Content[0]
	checkTags(n, nil, e)
	checkFault(n, nil, e)
	var f FaultFile
	if err := n.Decode(&f); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, m := range te.Errors {
				e.Problems = append(e.Problems, lineProblem(m))
			}
		} else {
			e.Problems = append(e.Problems, Problem{Msg: err.Error()})
		}
		return chaos.Timed{}, e
	}
	fail := func(k, format string, args ...any) {
		p := Problem{Path: k, Msg: fmt.Sprintf(format, args...)}
		if kn := nodeAt(n, []step{key(k)}); kn != nil {
			p.Line = kn.Line
		}
		e.Problems = append(e.Problems, p)
	}
	spec, ok := chaos.NewSpec(f.Kind)
	switch {
	case ok:
	case f.Kind == "":
		fail("kind", "missing; every fault needs a kind: %s", validList(chaos.Kinds()))
	default:
		if m, near := closest(f.Kind, chaos.Kinds()); near {
			fail("kind", "unknown fault kind %q (did you mean %q?); valid kinds: %s", f.Kind, m, validList(chaos.Kinds()))
		} else {
			fail("kind", "unknown fault kind %q; valid kinds: %s", f.Kind, validList(chaos.Kinds()))
		}
	}
	if f.Tier != "" {
		fail("tier", "a fault given by hand strikes the target or proxy it is sent to; remove tier")
	}
	t := chaos.Timed{Name: f.Name, Kind: f.Kind}
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
	if ok {
		if err := decodeParams(n, spec); err != nil {
			e.Problems = append(e.Problems, Problem{Msg: err.Error()})
		} else {
			fault, perrs := spec.Compile()
			for _, pe := range perrs {
				fail(pe.Field, "%s", pe.Msg)
			}
			t.Fault = fault
		}
	}
	if len(e.Problems) > 0 {
		e.sort()
		return chaos.Timed{}, e
	}
	if t.Name == "" {
		t.Name = t.Kind
	}
	return t, nil
}
