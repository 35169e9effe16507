package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/herdbench/herdbench/internal/safefile"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios/decode"
	"go.yaml.in/yaml/v3"
)

// Scenario is a parsed scenario file: well-formed YAML with known fields of
// the right types. Compile checks what the values mean.
type Scenario struct {
	Filename string
	Source   []byte
	File     File
	root     *yaml.Node
	// folder is where the files it names are read from, under safefile's
	// rule: the folder of its file, or the built-in scenarios' embedded
	// files.
	folder safefile.Folder

	// A point of a sweep (Expand): the sweep as run, and this point's
	// values, which its root holds.
	expanded bool
	axes     []Axis
	point    []results.Setting
}

// Parse reads a scenario. On any problem it returns an *Error listing all of
// them, each with its line.
func Parse(filename string, data []byte) (*Scenario, error) {
	s, e := parse(filename, data)
	if len(e.Problems) > 0 {
		return nil, e
	}
	return s, nil
}

// parse reads a scenario as far as it can: s is nil only when the file is
// not a YAML mapping at all; otherwise it holds every field that decoded,
// even when e has problems, so Check can go on to what the values mean.
func parse(filename string, data []byte) (*Scenario, *Error) {
	s := &Scenario{Filename: filename, Source: data, folder: safefile.In(filepath.Dir(filename))}
	e := &Error{File: filename}
	if p, ok := textProblem(data); !ok {
		e.Problems = append(e.Problems, p)
		return nil, e
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			e.Problems = append(e.Problems, Problem{Msg: "the file is empty; a scenario needs at least name and strategies (see herdbench list, and the built-in scenarios)"})
		} else {
			e.Problems = append(e.Problems, decode.SyntaxProblem(err, data))
		}
		return nil, e
	}
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case errors.Is(err, io.EOF):
	case err != nil:
		e.Problems = append(e.Problems, decode.SyntaxProblem(err, data))
		return nil, e
	default:
		// yaml would read the first document and drop the rest unseen.
		line := more.Line
		if len(more.Content) > 0 {
			line = more.Content[0].Line
		}
		e.Problems = append(e.Problems, Problem{Line: line, Msg: "a second YAML document (after a --- line); a scenario file holds one: remove the --- line, or put each scenario in its own file"})
		return nil, e
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		line := 0
		if len(doc.Content) > 0 {
			line = doc.Content[0].Line
		}
		e.Problems = append(e.Problems, Problem{Line: line, Msg: "a scenario is a mapping of fields (name, duration, target, chaos, workload, strategies, ...)"})
		return nil, e
	}
	s.root = doc.Content[0]
	decode.Tags(s.root, "", e)
	s.decode(e)
	e.Sort()
	return s, e
}

// decode reads s.root into s.File: unknown keys, then types, each problem
// into e.
func (s *Scenario) decode(e *Error) {
	decode.Keys(s.root, reflect.TypeOf(File{}), "", e, notByFields)
	if err := s.root.Decode(&s.File); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			e.Problems = append(e.Problems, Problem{Msg: err.Error()})
		} else {
			for _, m := range te.Errors {
				p := decode.LineProblem(m)
				p.Path = pathAtLine(s.root, p.Line)
				p.Msg = friendlyType(p.Msg)
				e.Problems = append(e.Problems, p)
			}
		}
	}
}

// notCovered returns the problems of ps that no problem of done covers.
func notCovered(ps, done []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if !coveredBy(p, done) {
			out = append(out, p)
		}
	}
	return out
}

// coveredBy reports whether p is about a field (or a part of one) that one
// of done already reports.
func coveredBy(p Problem, done []Problem) bool {
	for _, d := range done {
		if d.Path == "" {
			continue
		}
		if p.Path == d.Path || strings.HasPrefix(p.Path, d.Path+".") || strings.HasPrefix(p.Path, d.Path+"[") {
			return true
		}
	}
	return false
}

var typeRE = regexp.MustCompile("^cannot unmarshal !!(\\w+) (?:`(.*)` )?into (\\S+)$")

// friendlyType rewrites the YAML library's "cannot unmarshal !!str `x` into
// int" as what a scenario's author needs: what was written and what the
// field takes.
func friendlyType(msg string) string {
	m := typeRE.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	got := map[string]string{"str": "text", "int": "a whole number", "float": "a number", "bool": "true or false", "seq": "a list", "map": "a mapping of fields", "null": "empty"}[m[1]]
	want := "a value of type " + m[3]
	switch {
	case strings.HasPrefix(m[3], "[]"):
		want = "a list"
	case strings.HasPrefix(m[3], "int") || strings.HasPrefix(m[3], "uint"):
		want = "a whole number"
	case strings.HasPrefix(m[3], "float"):
		want = "a number"
	case m[3] == "bool":
		want = "true or false"
	case m[3] == "string":
		want = "a single value (text, a number or a duration such as 250ms)"
	case strings.Contains(m[3], "."):
		want = "a mapping of fields"
	}
	if got == "" {
		got = "!!" + m[1]
	}
	if m[1] == "int" && want == "a whole number" {
		// A whole number that does not fit: negative for an unsigned
		// field, or beyond the type's range.
		if strings.HasPrefix(m[3], "uint") && strings.HasPrefix(m[2], "-") {
			return fmt.Sprintf("%s is negative; this field takes a whole number from 0 to %d", m[2], uint64(math.MaxUint64))
		}
		if strings.HasPrefix(m[3], "uint") {
			return fmt.Sprintf("%s is too large; this field takes a whole number from 0 to %d", m[2], uint64(math.MaxUint64))
		}
		return fmt.Sprintf("%s is far too large; this field counts something, write a whole number such as 10", m[2])
	}
	if m[2] != "" {
		return fmt.Sprintf("%q is %s, but this field takes %s", m[2], got, want)
	}
	return fmt.Sprintf("this is %s, but this field takes %s", got, want)
}

// textProblem checks that data is a scenario's kind of text before YAML
// reads it: at most MaxFileBytes of UTF-8 without control characters. The
// YAML library reports these without a line ("control characters are not
// allowed"); here the first one is found with its line and column, and a
// binary file or another encoding is named as such.
func textProblem(data []byte) (Problem, bool) {
	if len(data) > MaxFileBytes {
		return Problem{Msg: fmt.Sprintf("the file is more than %d bytes; a scenario is a short YAML text file (is this the right file?)", MaxFileBytes)}, false
	}
	for _, bom := range []struct {
		prefix, name string
	}{{"\x00\x00\xfe\xff", "UTF-32"}, {"\xff\xfe\x00\x00", "UTF-32"}, {"\xfe\xff", "UTF-16"}, {"\xff\xfe", "UTF-16"}} {
		if bytes.HasPrefix(data, []byte(bom.prefix)) {
			return Problem{Line: 1, Msg: fmt.Sprintf("the file is %s text; save it as UTF-8 (a scenario is YAML text in UTF-8)", bom.name)}, false
		}
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return Problem{Line: 1 + bytes.Count(data[:i], []byte("\n")), Msg: "a NUL byte: this looks like a binary file, not a scenario (YAML text)"}, false
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return Problem{Line: line, Msg: fmt.Sprintf("column %d: byte 0x%02X is not UTF-8 text; a scenario is YAML text in UTF-8: save the file as UTF-8 (or is it not a scenario?)", col, data[i])}, false
		case r == '\n':
			line, col = line+1, 0
		case r == '\t' || r == '\r' || r == 0xFEFF && i == 0:
		case unicode.IsControl(r) && r != 0x85:
			return Problem{Line: line, Msg: fmt.Sprintf("column %d: the control character %U; YAML text holds none (a stray byte from a copy and paste? or not a scenario file?)", col, r)}, false
		}
		i += size
		col++
	}
	return Problem{}, true
}

// step is one element of a field path: a key or an index.
type step struct {
	key   string
	index int
}

func key(k string) step { return step{key: k} }
func index(i int) step  { return step{index: i, key: ""} }
func pathOf(p []step) string {
	var b strings.Builder
	for _, s := range p {
		if s.key == "" {
			fmt.Fprintf(&b, "[%d]", s.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

func with(p []step, s step) []step { return append(append([]step(nil), p...), s) }

var (
	policyFileType = reflect.TypeOf(PolicyFile{})
	sweepFileType  = reflect.TypeOf(SweepFile{})
	limitType      = reflect.TypeOf(Limit(0))
)

// notByFields is, for decode.Keys, the types whose keys are not their
// struct fields: a policy's parameters are checked by Compile, which knows
// the kind (it may come from a preset); a sweep's keys are field paths,
// checked by Expand; a limit is a number or "none".
func notByFields(_ *yaml.Node, t reflect.Type, _ string, _ *Error) bool {
	return t == policyFileType || t == sweepFileType || t == limitType
}

func contains(s []string, v string) bool { return slices.Contains(s, v) }

// nodeAt returns the key node (or the item node) at path, or nil.
func nodeAt(root *yaml.Node, path []step) *yaml.Node {
	n, at := root, root
	for _, s := range path {
		if n == nil {
			return nil
		}
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		if s.key == "" {
			if n.Kind != yaml.SequenceNode || s.index >= len(n.Content) {
				return at
			}
			n = n.Content[s.index]
			at = n
			continue
		}
		if n.Kind != yaml.MappingNode {
			return at
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == s.key {
				at, next = n.Content[i], n.Content[i+1]
			}
		}
		if next == nil {
			return at
		}
		n = next
	}
	return at
}

// lineOf returns the line of the field at path, or of its closest existing
// parent.
func (s *Scenario) lineOf(path []step) int {
	if n := nodeAt(s.root, path); n != nil {
		return n.Line
	}
	return 0
}

// pathAtLine returns the path of the deepest key on line, or "".
func pathAtLine(root *yaml.Node, line int) string {
	var found []step
	var walk func(n *yaml.Node, path []step)
	walk = func(n *yaml.Node, path []step) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := with(path, key(k.Value))
				if k.Line == line || v.Line == line {
					found = p
				}
				walk(v, p)
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				walk(item, with(path, index(i)))
			}
		}
	}
	walk(root, nil)
	return pathOf(found)
}
