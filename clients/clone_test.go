package clients

import (
	"reflect"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// drive moves a policy state through calls that change every kind's state.
func driveBudget(b Budget) {
	for i := range 20 {
		now := time.Duration(i) * 10 * time.Millisecond
		b.Started(now)
		b.Answered(now, i%3 == 0, 0)
		if _, ok := b.Retry(now, i%2 == 0); ok {
			b.Released(now)
		}
		b.Ended(now)
	}
}

// TestPolicyStatesCopy: every registered budget, breaker and throttle
// kind's state copies (clients.CloneState, what a simulator snapshot
// does): the copy equals the state, and changing the state afterwards
// leaves the copy as it was.
func TestPolicyStatesCopy(t *testing.T) {
	check := func(kind string, state any, copy any, drive func()) {
		t.Helper()
		if !reflect.DeepEqual(state, copy) {
			t.Errorf("%s: the copy differs from the state", kind)
		}
		before := reflect.ValueOf(copy).Elem().Interface()
		drive()
		if reflect.DeepEqual(state, copy) {
			t.Errorf("%s: driving the state left it as it was: the test drives nothing", kind)
		}
		if !reflect.DeepEqual(reflect.ValueOf(copy).Elem().Interface(), before) {
			t.Errorf("%s: driving the state changed its copy", kind)
		}
	}
	for _, k := range Budgets.Kinds() {
		spec, _ := Budgets.Spec(k)
		b := spec.New()
		driveBudget(b)
		check("budget "+k, b, CloneState(b), func() {
			for i := range 20 {
				b.Started(time.Second)
				b.Answered(time.Second+time.Duration(i), true, 0)
			}
		})
	}
	for _, k := range Breakers.Kinds() {
		spec, _ := Breakers.Spec(k)
		b := spec.New()
		c := CloneState(b)
		check("breaker "+k, b, c, func() {
			for i := range 50 {
				b.Record(time.Duration(i)*time.Millisecond, true)
			}
		})
	}
	for _, k := range Throttles.Kinds() {
		spec, _ := Throttles.Spec(k)
		th := spec.New()
		c := CloneState(th)
		check("throttle "+k, th, c, func() {
			for i := range 50 {
				th.Allow(time.Duration(i)*time.Millisecond, 0.5)
				th.Record(time.Duration(i)*time.Millisecond, false)
			}
		})
	}
}

// refState is a state holding a reference: it must say how to copy itself.
type refState struct{ seen []int }

var _ = refState{seen: nil}

func (*refState) Allow(time.Duration) bool              { return true }
func (*refState) Record(time.Duration, bool) Transition { return NoTransition }

func TestCloneStateRefusesReferences(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a state with a slice copied as a value")
		}
	}()
	CloneState[Breaker](&refState{})
}

// TestCloneClient: a copied client of a cohort with a shared budget and
// per-client breakers shares the copied cohort's budget, not the
// original's, and has a breaker of its own.
func TestCloneClient(t *testing.T) {
	spec, _ := Budgets.Spec("envoy")
	bspec, _ := Breakers.Spec("standard")
	s := &Strategy{Name: "x", MaxAttempts: 3, Backoff: Backoff{Shape: Constant, Base: time.Millisecond},
		Budget: &Policy[Budget]{Kind: "envoy", Scope: PerCohort, Spec: spec}, Breaker: &Policy[Breaker]{Kind: "standard", Scope: PerClient, Spec: bspec}}
	w := &Workload{Kind: Closed, Clients: 1}
	k := NewCohort(s)
	rec := results.NewRecorder(time.Second, 1).Unshared()
	src := k.NewClient(0, w, time.Second, nil, rec.Shard(0))
	to := k.Clone()
	var dst Client
	k.CloneClient(to, &dst, src, nil, rec.Shard(0))
	if dst.pol.budget != to.budget || dst.pol.budget == src.pol.budget {
		t.Error("the copy's budget is not the copied cohort's")
	}
	if dst.pol.breaker == src.pol.breaker || !reflect.DeepEqual(dst.pol.breaker, src.pol.breaker) {
		t.Error("the copy's breaker is not a copy of its own")
	}
}
