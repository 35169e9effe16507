package kinds

import (
	"slices"
	"testing"
)

type spec struct{ n int }

func TestRegistry(t *testing.T) {
	r := New[*spec]("test kind")
	r.Register("b", "the second", func() *spec { return &spec{n: 2} })
	r.Register("a", "", func() *spec { return &spec{n: 1} })
	if got := r.Kinds(); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Kinds() = %v, want sorted [a b]", got)
	}
	s1, ok := r.Spec("b")
	s2, _ := r.Spec("b")
	if !ok || s1.n != 2 || s1 == s2 {
		t.Errorf("Spec(b) = %v, %v; want a fresh spec with its defaults each time", s1, ok)
	}
	if _, ok := r.Spec("c"); ok {
		t.Error("Spec of an unregistered kind")
	}
	if r.Summary("b") != "the second" {
		t.Errorf("Summary(b) = %q", r.Summary("b"))
	}
	for _, kind := range []string{"a", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering %q did not panic", kind)
				}
			}()
			r.Register(kind, "", func() *spec { return &spec{} })
		}()
	}
}
