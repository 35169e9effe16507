package chaos

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
)

const s = time.Second

func TestActiveAtComposesOverlappingFaults(t *testing.T) {
	p, err := NewPlan([]Timed{
		{Name: "stall", At: 5 * s, For: 2 * s, Fault: Blip{Blackhole: true}},
		{Name: "crash", At: 6 * s, For: 3 * s, Fault: Outage{Mode: Reset}},
		{Name: "slow", At: 8 * s, For: 4 * s, Fault: Blip{Delay: dist.Const(100 * time.Millisecond)}},
		{Name: "errors", At: 10 * s, For: 1 * s, Fault: ErrorRate{Rate: 0.5, Status: 500}},
		{Name: "errors2", At: 10 * s, For: 1 * s, Fault: ErrorRate{Rate: 0.5, Status: 503}},
		{Name: "brown", At: 11 * s, For: 1 * s, Fault: Brownout{Capacity: 0.5}},
	}, 20*s)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		at        time.Duration
		outage    OutageMode
		blackhole bool
		delays    int
		errRate   float64
		capacity  float64
		recovered time.Duration
		names     string
	}{
		{0, NoOutage, false, 0, 0, 1, -1, ""},
		{5 * s, NoOutage, true, 0, 0, 1, -1, "stall"},
		{6 * s, Reset, true, 0, 0, 1, -1, "stall+crash"},
		{7 * s, Reset, false, 0, 0, 1, -1, "crash"},
		{8*s + 1, Reset, false, 1, 0, 1, -1, "crash+slow"},
		{9 * s, NoOutage, false, 1, 0, 1, 9 * s, "slow"},
		{10 * s, NoOutage, false, 1, 0.75, 1, 9 * s, "slow+errors+errors2"},
		{11*s + 500*time.Millisecond, NoOutage, false, 1, 0, 0.5, 9 * s, "slow+brown"},
		{time.Hour, NoOutage, false, 0, 0, 1, 9 * s, ""},
	}
	for _, c := range cases {
		e := p.ActiveAt(c.at)
		if e.Outage != c.outage || e.Blackhole != c.blackhole || len(e.Delays) != c.delays ||
			e.ErrorRate != c.errRate || e.Capacity != c.capacity || e.RecoveredAt != c.recovered || e.ActiveNames() != c.names {
			t.Errorf("at %v: %+v", c.at, *e)
		}
	}
	if e := p.ActiveAt(10 * s); e.ErrorStatus != 500 {
		t.Errorf("the first error rate's status wins: %d", e.ErrorStatus)
	}
	first, last, ok := p.Span()
	if !ok || first != 5*s || last != 12*s {
		t.Errorf("Span = %v, %v, %v", first, last, ok)
	}
	segs := p.Segments()
	for i := 1; i < len(segs); i++ {
		if segs[i].Start != segs[i-1].End {
			t.Errorf("segments are not contiguous at %d: %+v", i, segs)
		}
	}
}

func TestHarsherOutageWins(t *testing.T) {
	p, err := NewPlan([]Timed{
		{Name: "a", At: 0, For: 2 * s, Fault: Outage{Mode: Unavailable}},
		{Name: "b", At: s, For: 2 * s, Fault: Outage{Mode: Refuse}},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.ActiveAt(0).Outage != Unavailable || p.ActiveAt(s).Outage != Refuse || p.ActiveAt(2*s).Outage != Refuse {
		t.Error("overlapping outages")
	}
}

func TestNewPlanRejectsBadWindows(t *testing.T) {
	for _, f := range []Timed{
		{Name: "early", At: -s, For: s, Fault: Outage{}},
		{Name: "empty", At: s, For: 0, Fault: Outage{}},
		{Name: "late", At: 9 * s, For: 2 * s, Fault: Outage{}},
	} {
		if _, err := NewPlan([]Timed{f}, 10*s); !errors.Is(err, ErrWindow) {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
}

func TestRegistry(t *testing.T) {
	for _, k := range []string{"outage", "blip", "error-rate", "brownout"} {
		if _, ok := NewSpec(k); !ok {
			t.Errorf("kind %q is not registered", k)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a kind twice did not panic")
		}
	}()
	Register("outage", func() Spec { return &OutageSpec{} })
}

func TestSpecs(t *testing.T) {
	if f, errs := (&OutageSpec{}).Compile(); errs != nil || f != (Outage{Mode: Unavailable}) {
		t.Errorf("default outage: %v %v", f, errs)
	}
	if _, errs := (&BlipSpec{Mode: "blackhole", Delay: "5ms"}).Compile(); len(errs) != 1 || errs[0].Field != "delay" {
		t.Errorf("blackhole with a delay: %v", errs)
	}
	if _, errs := (&BlipSpec{}).Compile(); len(errs) != 1 || errs[0].Field != "delay" {
		t.Errorf("latency without delay: %v", errs)
	}
	if _, errs := (&ErrorRateSpec{Rate: 0, Status: 200}).Compile(); len(errs) != 2 {
		t.Errorf("error rate 0 with status 200: %v", errs)
	}
	if _, errs := (&BrownoutSpec{Capacity: 1}).Compile(); len(errs) != 1 {
		t.Errorf("brownout to full capacity: %v", errs)
	}
}

func BenchmarkActiveAt(b *testing.B) {
	var faults []Timed
	for i := 0; i < 20; i++ {
		faults = append(faults, Timed{Name: "f", At: time.Duration(i) * s, For: s / 2, Fault: Outage{Mode: Unavailable}})
	}
	p, _ := NewPlan(faults, 0)
	var n int
	for b.Loop() {
		if p.ActiveAt(time.Duration(n%20000)*time.Millisecond).Outage != NoOutage {
			n++
		}
		n++
	}
}

// Numbers that compare false with everything (NaN) and times that overflow
// are refused, not let through.
func TestSpecsRefuseNaNAndOverflow(t *testing.T) {
	nan := math.NaN()
	if _, errs := (&ErrorRateSpec{Rate: nan}).Compile(); len(errs) != 1 || errs[0].Field != "rate" {
		t.Errorf("error rate NaN: %v", errs)
	}
	if _, errs := (&BrownoutSpec{Capacity: nan}).Compile(); len(errs) != 1 {
		t.Errorf("brownout NaN: %v", errs)
	}
	if _, errs := (&PushbackSpec{Rate: &nan}).Compile(); len(errs) != 1 || errs[0].Field != "rate" {
		t.Errorf("pushback NaN: %v", errs)
	}
	for _, spec := range []Spec{&ErrorRateSpec{Rate: 0.5, RetryAfter: "2000000h"}, &PushbackSpec{RetryAfter: "25h"}, &OutageSpec{RetryAfter: "25h"}, &BlipSpec{Delay: "exponential(2000000h)"}} {
		if _, errs := spec.Compile(); len(errs) != 1 || !strings.Contains(errs[0].Msg, "more than a day") {
			t.Errorf("%T with a wait beyond a day: %v", spec, errs)
		}
	}
	huge := time.Duration(math.MaxInt64 - 1)
	for _, run := range []time.Duration{0, 10 * s} {
		if _, err := NewPlan([]Timed{{Name: "overflow", At: huge, For: huge, Fault: Outage{}}}, run); !errors.Is(err, ErrWindow) {
			t.Errorf("a window whose end overflows, run %v: %v", run, err)
		}
	}
}

// crash is a fault kind only this test knows: an outage by its effect.
type crash struct{}

func (crash) Apply(e *Effect) { e.Outage = max(e.Outage, Reset) }

// TestRecoveredAtFromEffects: the cold start begins where the latest
// outage ended, whatever kind of fault made the outage; checked against
// the definition (the latest end of a fault whose own effect is an outage,
// among those ended by t, when none is active at t) on random plans.
func TestRecoveredAtFromEffects(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	kinds := []Fault{crash{}, Outage{Mode: Unavailable}, Outage{Mode: Refuse}, Blip{Blackhole: true}, Brownout{Capacity: 0.5}, ErrorRate{Rate: 0.5, Status: 503}}
	for range 500 {
		var faults []Timed
		for range 1 + rng.IntN(6) {
			faults = append(faults, Timed{Name: "f", At: time.Duration(rng.IntN(20)) * s, For: time.Duration(1+rng.IntN(5)) * s, Fault: kinds[rng.IntN(len(kinds))]})
		}
		p, err := NewPlan(faults, 0)
		if err != nil {
			t.Fatal(err)
		}
		for at := time.Duration(0); at < 30*s; at += s / 2 {
			want := time.Duration(-1)
			down := false
			for _, f := range faults {
				if EffectOf(f.Fault).Outage == NoOutage {
					continue
				}
				if f.At <= at && at < f.End() {
					down = true
				}
				if f.End() <= at {
					want = max(want, f.End())
				}
			}
			if down {
				want = -1
			}
			if got := p.ActiveAt(at).RecoveredAt; got != want {
				t.Fatalf("faults %+v: RecoveredAt at %s = %s, want %s", faults, at, got, want)
			}
		}
	}
}

func TestEver(t *testing.T) {
	p, err := NewPlan([]Timed{{Name: "down", At: s, For: s, Fault: crash{}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Ever(func(e *Effect) bool { return e.Outage == Reset }) || p.Ever(func(e *Effect) bool { return e.Blackhole }) {
		t.Error("Ever does not see the plan's effects")
	}
}

// TestUntil: a plan cut at t is the plan before t, segment for segment,
// with the window open at t ended there (an outage's cold start counted
// from t) and a later fault gone.
func TestUntil(t *testing.T) {
	p, err := NewPlan([]Timed{
		{Name: "stall", At: 1 * s, For: 2 * s, Fault: Blip{Blackhole: true}},
		{Name: "crash", At: 2 * s, For: 3 * s, Fault: Outage{Mode: Refuse}},
		{Name: "later", At: 8 * s, For: 1 * s, Fault: Outage{Mode: Reset}},
	}, 10*s)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Until(4 * s)
	for at := time.Duration(0); at < 4*s; at += 100 * time.Millisecond {
		a, b := p.ActiveAt(at), q.ActiveAt(at)
		if a.Outage != b.Outage || a.Blackhole != b.Blackhole || strings.Join(a.Active, "+") != strings.Join(b.Active, "+") {
			t.Fatalf("at %s: %+v, want %+v", at, b, a)
		}
	}
	for _, at := range []time.Duration{4 * s, 5 * s, 8 * s, 9 * s} {
		if e := q.ActiveAt(at); e.Outage != NoOutage || len(e.Active) > 0 {
			t.Fatalf("at %s after the cut: %+v", at, e)
		}
	}
	if e := q.ActiveAt(6 * s); e.RecoveredAt != 4*s {
		t.Fatalf("recovered at %s, want 4s (the cut)", e.RecoveredAt)
	}
	if first, last, _ := q.Span(); first != 1*s || last != 4*s {
		t.Fatalf("span %s to %s", first, last)
	}
	if _, _, ok := p.Until(time.Second).Span(); ok {
		t.Fatal("cut at the first fault's start: faults remain")
	}
}
