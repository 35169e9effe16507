package decode

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Fields returns a struct type's YAML keys and field types.
func Fields(t reflect.Type) ([]string, map[string]reflect.Type) {
	var names []string
	fields := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" && opts == "inline" && f.Type.Kind() == reflect.Struct {
			inner, innerFields := Fields(f.Type)
			names = append(names, inner...)
			for k, v := range innerFields {
				fields[k] = v
			}
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		names = append(names, name)
		fields[name] = f.Type
	}
	return names, fields
}

// Special checks the keys of a value of a type the walk does not read by
// its struct fields (a fault, whose keys depend on its kind, say), and
// reports whether it did: Keys then does not look inside.
type Special func(n *yaml.Node, t reflect.Type, path string, e *Error) bool

// Keys reports every mapping key under n that the target type t does not
// have, with the valid keys and a close match, and every fraction written
// for a field of whole numbers. special, if not nil, is asked first at
// every value.
func Keys(n *yaml.Node, t reflect.Type, path string, e *Error, special Special) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch {
	case t == faultFileType:
		faultKeys(n, path, e)
	case special != nil && special(n, t, path, e):
	case IsWhole(t.Kind()) && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float":
		e.Problems = append(e.Problems, Problem{Line: n.Line, Path: path, Msg: NotWhole(n.Value, t.Kind())})
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		names, fields := Fields(t)
		Mapping(n, names, path, e, func(k string, v *yaml.Node) {
			Keys(v, fields[k], Join(path, k), e, special)
		})
	case t.Kind() == reflect.Slice && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			Keys(item, t.Elem(), Index(path, i), e, special)
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; k != "<<" {
				Keys(n.Content[i+1], t.Elem(), Join(path, k), e, special)
			}
		}
	}
}

// IsWhole reports whether k is a kind of whole number.
func IsWhole(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uint64
}

// NotWhole explains why a number YAML read as a float does not fit a field
// of whole numbers of kind k: a fraction, or a number beyond the field's
// type (YAML reads 2^64 as a float).
func NotWhole(v string, k reflect.Kind) string {
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
		return fmt.Sprintf("%s is not a whole number; this field takes one, e.g. 10", v)
	case f == math.Trunc(f) && k >= reflect.Uint && k <= reflect.Uint64:
		if f < 0 {
			return fmt.Sprintf("%s is negative; this field takes a whole number from 0 to %d", v, uint64(math.MaxUint64))
		}
		return fmt.Sprintf("%s is too large; this field takes a whole number from 0 to %d", v, uint64(math.MaxUint64))
	case math.Abs(f) >= 1<<53:
		return fmt.Sprintf("%s is far too large; this field counts something, write a whole number such as 10", v)
	}
	return fmt.Sprintf("%s is not a whole number; this field counts something, write e.g. %d", v, int64(f))
}

// Mapping walks a mapping's keys (following << merges), reporting those
// not in names, with a close match, and calling known for the others.
func Mapping(n *yaml.Node, names []string, path string, e *Error, known func(k string, v *yaml.Node)) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" {
			continue // a YAML merge: the merged mapping is checked where it is defined
		}
		if !slices.Contains(names, k.Value) {
			msg := fmt.Sprintf("unknown field %q; valid fields here: %s", k.Value, ValidList(names))
			if c, ok := Closest(k.Value, names); ok {
				msg = fmt.Sprintf("unknown field %q (did you mean %q?); valid fields here: %s", k.Value, c, ValidList(names))
			}
			e.Problems = append(e.Problems, Problem{Line: k.Line, Path: Join(path, k.Value), Msg: msg})
			continue
		}
		known(k.Value, v)
	}
}
