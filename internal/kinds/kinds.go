package kinds

import (
	"fmt"
	"sort"
)

// Registry holds the kinds of one extension point.
type Registry[S any] struct {
	what  string // "fault kind", "budget kind": names the registry in panics
	kinds map[string]entry[S]
}

type entry[S any] struct {
	summary string
	newSpec func() S
}

// New returns an empty registry; what names its kinds in panics, e.g.
// "fault kind".
func New[S any](what string) *Registry[S] {
	return &Registry[S]{what: what, kinds: map[string]entry[S]{}}
}

// Register adds a kind: summary says in a few words what it is (for
// messages and lists; may be empty) and newSpec returns a fresh Spec,
// filled with the kind's defaults. It panics if kind is empty or already
// registered.
func (r *Registry[S]) Register(kind, summary string, newSpec func() S) {
	if kind == "" || newSpec == nil {
		panic(fmt.Sprintf("kinds: a %s needs a name and a constructor", r.what))
	}
	if _, dup := r.kinds[kind]; dup {
		panic(fmt.Sprintf("kinds: %s registered twice: %s", r.what, kind))
	}
	r.kinds[kind] = entry[S]{summary: summary, newSpec: newSpec}
}

// Spec returns a fresh Spec for kind, and false if kind is not registered.
func (r *Registry[S]) Spec(kind string) (S, bool) {
	e, ok := r.kinds[kind]
	if !ok {
		var zero S
		return zero, false
	}
	return e.newSpec(), true
}

// Summary returns what kind is, as registered.
func (r *Registry[S]) Summary(kind string) string { return r.kinds[kind].summary }

// Kinds returns the registered kinds, sorted.
func (r *Registry[S]) Kinds() []string {
	out := make([]string, 0, len(r.kinds))
	for k := range r.kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParamError is a problem with one parameter of a kind's Spec.
type ParamError struct {
	Field string // the YAML key, e.g. "rate"
	Msg   string
}

func (e *ParamError) Error() string { return e.Field + ": " + e.Msg }
