package clients

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

const ms = time.Millisecond

// The AWS experiment's constants: base 5 ms, cap 2000 ms.
var aws = Backoff{Base: 5 * ms, Cap: 2000 * ms}

func TestCeilingIsCappedExponential(t *testing.T) {
	want := []time.Duration{5, 10, 20, 40, 80, 160, 320, 640, 1280, 2000, 2000}
	for n, w := range want {
		if got := aws.Ceiling(n); got != w*ms {
			t.Errorf("Ceiling(%d) = %v, want %v", n, got, w*ms)
		}
	}
	if got := aws.Ceiling(5000); got != 2000*ms {
		t.Errorf("Ceiling(5000) = %v, want the cap (no overflow)", got)
	}
	b := Backoff{Base: 100 * ms, Cap: time.Hour, Multiplier: 1.5}
	if got := b.Ceiling(2); got != 225*ms {
		t.Errorf("multiplier 1.5: Ceiling(2) = %v, want 225ms", got)
	}
}

func TestNextFormulas(t *testing.T) {
	with := func(s Shape) Backoff { b := aws; b.Shape = s; return b }
	cases := []struct {
		name string
		b    Backoff
		n    int
		prev time.Duration
		u    float64
		want time.Duration
	}{
		{"none", with(None), 3, 0, 0.7, 0},
		{"constant", with(Constant), 9, 0, 0.7, 5 * ms},
		{"exponential n=1", with(Exponential), 1, 0, 0.7, 10 * ms},
		{"exponential n=4", with(Exponential), 4, 0, 0.0, 80 * ms},
		{"exponential capped", with(Exponential), 12, 0, 0.5, 2000 * ms},
		{"full u=0", with(Full), 3, 0, 0, 0},
		{"full u=0.5", with(Full), 3, 0, 0.5, 20 * ms},
		{"full u=0.25 capped", with(Full), 20, 0, 0.25, 500 * ms},
		{"equal u=0", with(Equal), 3, 0, 0, 20 * ms},
		{"equal u=0.5", with(Equal), 3, 0, 0.5, 30 * ms},
		{"equal u→1", with(Equal), 10, 0, 0.999, 1999 * ms},
		{"decorrelated first, u=0", with(Decorrelated), 1, 0, 0, 5 * ms},
		{"decorrelated first, u=0.5", with(Decorrelated), 1, 0, 0.5, 10 * ms},
		{"decorrelated from prev, u=0.5", with(Decorrelated), 7, 100 * ms, 0.5, 152500 * time.Microsecond},
		{"decorrelated ignores n", with(Decorrelated), 1, 100 * ms, 0.5, 152500 * time.Microsecond},
		{"decorrelated capped", with(Decorrelated), 2, 1900 * ms, 0.9, 2000 * ms},
	}
	for _, c := range cases {
		if got := c.b.Next(c.n, c.prev, c.u); got != c.want {
			t.Errorf("%s: Next(%d, %v, %v) = %v, want %v", c.name, c.n, c.prev, c.u, got, c.want)
		}
	}
}

// Property: for every shape and draw, waits are never negative and never
// above the cap (constant aside, which is base).
func TestNextStaysWithinZeroAndCap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for s := None; s <= Decorrelated; s++ {
		b := Backoff{Shape: s, Base: time.Duration(1+r.IntN(1000)) * ms}
		b.Cap = b.Base * time.Duration(1+r.IntN(100))
		var prev time.Duration
		for i := 0; i < 20000; i++ {
			n := 1 + r.IntN(80)
			w := b.Next(n, prev, r.Float64())
			if w < 0 || w > b.Cap {
				t.Fatalf("%v: Next(%d, %v) = %v outside [0, %v]", s, n, prev, w, b.Cap)
			}
			if s == Decorrelated && w < min(b.Base, b.Cap) {
				t.Fatalf("decorrelated wait %v below base %v", w, b.Base)
			}
			prev = w
		}
	}
}

// Full jitter is uniform on [0, v]: over 10^5 draws from a fixed seed the
// maximum stays at or below v, the mean is v/2 and each decile holds a tenth.
func TestFullJitterIsUniform(t *testing.T) {
	b := Backoff{Shape: Full, Base: 100 * ms, Cap: 10 * time.Second}
	const n, draws = 4, 100000
	v := b.Ceiling(n)
	r := rand.New(rand.NewPCG(42, 0))
	var sum float64
	var deciles [10]int
	for i := 0; i < draws; i++ {
		w := b.Next(n, 0, r.Float64())
		if w > v {
			t.Fatalf("draw %v above the ceiling %v", w, v)
		}
		sum += float64(w)
		deciles[min(9, int(10*float64(w)/float64(v)))]++
	}
	mean := sum / draws / float64(v)
	// The standard error of the mean of U(0,1) over 10^5 draws is 0.0009.
	if math.Abs(mean-0.5) > 0.005 {
		t.Errorf("mean = %.4f v, want 0.5 v", mean)
	}
	for i, c := range deciles {
		if math.Abs(float64(c)-draws/10) > 500 { // about 5 standard deviations
			t.Errorf("decile %d holds %d draws, want about %d", i, c, draws/10)
		}
	}
}

func TestParseShape(t *testing.T) {
	for _, name := range ShapeNames() {
		s, ok := ParseShape(name)
		if !ok || s.String() != name {
			t.Errorf("ParseShape(%q) = %v, %v", name, s, ok)
		}
	}
	if _, ok := ParseShape("jittery"); ok {
		t.Error("ParseShape accepted an unknown name")
	}
}

func BenchmarkNextFull(b *testing.B) {
	bo := Backoff{Shape: Full, Base: 100 * ms, Cap: 10 * time.Second}
	r := rand.New(rand.NewPCG(1, 1))
	var d time.Duration
	for i := 0; b.Loop(); i++ {
		d += bo.Next(1+i%12, d, r.Float64())
	}
}
