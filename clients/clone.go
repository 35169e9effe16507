package clients

import (
	"fmt"
	"math/rand/v2"
	"reflect"

	"github.com/herdbench/herdbench/results"
)

// Copying a run's state: the simulator's snapshots (package sim) continue
// a run from a copy of every client and of the state a cohort shares. A
// policy's state (a Budget, Breaker or Throttle a Spec's New made) is
// copied as a value when it is a pointer to a struct of plain values
// (numbers, booleans, strings, arrays and structs of them: every kind
// herdbench ships); a kind whose state holds references (a slice, a map, a
// pointer) implements Cloner instead, and TestPolicyStatesCopy checks
// every registered kind is one or the other.

// Cloner is a policy state that copies itself: what a kind whose state
// holds references implements, so that a copy shares nothing with it.
type Cloner[P any] interface {
	Clone() P
}

// CloneState returns an independent copy of a policy's state s: its
// Clone, or a copy of the struct it points to. It panics when s can be
// neither (its kind must implement Cloner).
func CloneState[P any](s P) P {
	if c, ok := any(s).(Cloner[P]); ok {
		return c.Clone()
	}
	v := reflect.ValueOf(s)
	if !v.IsValid() {
		return s // no state
	}
	if v.Kind() != reflect.Pointer || v.IsNil() || !plain(v.Type().Elem()) {
		panic(fmt.Sprintf("clients: the policy state %T holds references; give it a Clone method (clients.Cloner) so a simulator snapshot can copy it", s))
	}
	n := reflect.New(v.Type().Elem())
	n.Elem().Set(v.Elem())
	return n.Interface().(P)
}

// plain reports whether a value of t holds no reference: copying it copies
// all of it.
func plain(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return plain(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !plain(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}

// Clone returns a copy of the state k's clients share, for clients copied
// with CloneClient: the cohort-scope policies' states copied, behind a lock
// of its own.
func (k *Cohort) Clone() *Cohort {
	c := &Cohort{strategy: k.strategy}
	if b, ok := k.budget.(lockedBudget); ok {
		c.budget = lockedBudget{&c.mu, CloneState(b.b)}
	}
	if b, ok := k.breaker.(lockedBreaker); ok {
		c.breaker = lockedBreaker{&c.mu, CloneState(b.b)}
	}
	if t, ok := k.throttle.(lockedThrottle); ok {
		c.throttle = lockedThrottle{&c.mu, CloneState(t.t)}
	}
	return c
}

// CloneClient makes *dst a copy of src, a client of k, as a client of to
// (k's Clone): the same request and backoff state, its own copy of its
// per-client policies' state, to's shared state where src had k's, drawing
// from rng (a copy of src's stream, or a fresh one) and recording into
// sink. src is left as it was.
func (k *Cohort) CloneClient(to *Cohort, dst, src *Client, rng *rand.Rand, sink results.Sink) {
	*dst = *src
	dst.rng, dst.sink = rng, sink
	p := src.pol
	if p == nil {
		return
	}
	q := &policies{held: p.held}
	q.events, _ = sink.(results.PolicySink)
	switch {
	case p.budget == nil:
	case p.budget == k.budget:
		q.budget = to.budget
	default:
		q.budget = CloneState(p.budget)
	}
	switch {
	case p.breaker == nil:
	case p.breaker == k.breaker:
		q.breaker = to.breaker
	default:
		q.breaker = CloneState(p.breaker)
	}
	switch {
	case p.throttle == nil:
	case p.throttle == k.throttle:
		q.throttle = to.throttle
	default:
		q.throttle = CloneState(p.throttle)
	}
	dst.pol = q
}
