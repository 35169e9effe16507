package clients

import (
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
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

// The jitter share F with fixed draws: wait = t·(1−F) + u·t·F, with
// t = v(n) = min(cap, base·2^n).
func TestNextJitterShare(t *testing.T) {
	jit := func(f float64) Backoff { b := aws; b.Shape, b.Jitter = Exponential, f; return b }
	cases := []struct {
		f    float64
		n    int
		u    float64
		want time.Duration
	}{
		{0, 4, 0.7, 80 * ms},                                    // no jitter: t, whatever the draw
		{0.05, 4, 0, 76 * ms},                                   // the fixed 95%
		{0.05, 4, 0.5, 78 * ms},                                 // 76 + 0.5·4
		{0.1, 3, 0.25, 37 * ms},                                 // t = 40: 36 + 0.25·4
		{0.2, 4, 0.5, 72 * ms},                                  // 64 + 0.5·16
		{0.2, 20, 0.75, 1900 * ms},                              // capped t = 2000: 1600 + 0.75·400
		{0.5, 3, 0.5, 30 * ms},                                  // equal jitter's 20 + 0.5·20
		{1, 3, 0.25, 10 * ms},                                   // full jitter's 0.25·40
		{1, 3, 0, 0},                                            // full jitter may retry at once
		{0.3, 1, 0.999, 9997 * time.Microsecond},                // t = 10: 7 + 0.999·3
		{0.5, 12, 0.1, 1100 * ms},                               // 1000 + 0.1·1000
		{0.75, 2, 0.5, 12500 * time.Microsecond},                // t = 20: 5 + 0.5·15
		{0.05, 9, 0.2, 1920 * ms},                               // t = 2000 (2560 capped): 1900 + 0.2·100
		{1, 5000, 0.5, 1000 * ms},                               // no overflow: t is the cap
		{0.2, 1, 1 - 1.0/(1<<53), 10 * ms},                      // the largest draw reaches t, never more
		{0.2, 2, 0.5 + 1.0/(1<<20), 18000003 * time.Nanosecond}, // 16 + 0.5000009·4
	}
	for _, c := range cases {
		if got := jit(c.f).Next(c.n, 0, c.u); got != c.want {
			t.Errorf("jitter %v: Next(%d, 0, %v) = %v, want %v", c.f, c.n, c.u, got, c.want)
		}
	}
}

// The named jitters are aliases of the jitter share: full is F = 1, equal
// F = 0.5, exponential F = 0. Over 10^6 draws each gives, draw for draw,
// what the share gives and what its own formula (kept here as it was
// written before the share existed) gives, so no scenario's waits move.
func TestNamedJittersAreTheShareDrawForDraw(t *testing.T) {
	formula := map[Shape]func(v time.Duration, u float64) time.Duration{
		Exponential: func(v time.Duration, u float64) time.Duration { return v },
		Full:        func(v time.Duration, u float64) time.Duration { return time.Duration(u * float64(v)) },
		Equal: func(v time.Duration, u float64) time.Duration {
			f := float64(v)
			return time.Duration(f/2 + u*f/2)
		},
	}
	share := map[Shape]float64{Exponential: 0, Full: 1, Equal: 0.5}
	r := rand.New(rand.NewPCG(13, 1))
	for i := 0; i < 1_000_000; i++ {
		b := Backoff{Base: time.Duration(1+r.IntN(5000)) * time.Millisecond / 10, Multiplier: []float64{0, 1.5, 2, 3}[r.IntN(4)]}
		b.Cap = b.Base * time.Duration(1+r.IntN(1000))
		n, u := 1+r.IntN(40), r.Float64()
		for s, f := range share {
			named, general := b, b
			named.Shape = s
			general.Shape, general.Jitter = Exponential, f
			want := formula[s](b.Ceiling(n), u)
			if got := named.Next(n, 0, u); got != want {
				t.Fatalf("%v %+v: Next(%d, 0, %v) = %v, its own formula %v", s, b, n, u, got, want)
			}
			if got := general.Next(n, 0, u); got != want {
				t.Fatalf("jitter %v %+v: Next(%d, 0, %v) = %v, %v's formula %v", f, b, n, u, got, s, want)
			}
		}
	}
}

// Property: with a jitter share F the wait lies in [t·(1−F), t]: the
// smaller F, the narrower the band every client's wait falls in.
func TestJitterShareStaysInItsBand(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for i := 0; i < 200_000; i++ {
		b := Backoff{Shape: Exponential, Base: time.Duration(1+r.IntN(1000)) * ms, Jitter: r.Float64()}
		if i%10 == 0 {
			b.Jitter = float64(r.IntN(2)) // the ends, 0 and 1
		}
		b.Cap = b.Base * time.Duration(1+r.IntN(100))
		n := 1 + r.IntN(60)
		v := b.Ceiling(n)
		lo := time.Duration(float64(v) * (1 - b.Jitter))
		if w := b.Next(n, 0, r.Float64()); w < lo-1 || w > v {
			t.Fatalf("jitter %v, t %v: wait %v outside [%v, %v]", b.Jitter, v, w, lo, v)
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

// TestShapeRegistry: every shape is a registered kind: its name parses
// back to it, it has a summary, and the zero Shape is None (a zero
// Backoff retries at once); a second kind of one name panics.
func TestShapeRegistry(t *testing.T) {
	if None != 0 || (Backoff{}).Next(3, time.Second, 0.5) != 0 {
		t.Errorf("None = %d; the zero Backoff waits %s; want 0 and 0s", None, (Backoff{}).Next(3, time.Second, 0.5))
	}
	names := ShapeNames()
	if len(names) < 8 || !slices.IsSorted(names) {
		t.Errorf("ShapeNames() = %v, want the eight built-in shapes or more, sorted", names)
	}
	for _, name := range names {
		s, ok := ParseShape(name)
		if !ok || s.String() != name || ShapeSummary(s) == "" {
			t.Errorf("%s: ParseShape = %v, %v; summary %q", name, s, ok, ShapeSummary(s))
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a second shape named full did not panic")
		}
	}()
	RegisterShape(ShapeKind{Name: "full", Next: func(Backoff, int, time.Duration, float64) time.Duration { return 0 }})
}

// TestShapesAreDocumented: docs/policies.md's table of backoff shapes has
// a row for every registered shape and none for a shape that does not
// exist.
func TestShapesAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n### Backoff shapes\n")
	if !ok {
		t.Fatal("docs/policies.md has no ### Backoff shapes section")
	}
	section, _, _ = strings.Cut(section, "\n#")
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([\\w-]+)` \\|").FindAllStringSubmatch(section, -1) {
		rows = append(rows, m[1])
	}
	slices.Sort(rows)
	if names := ShapeNames(); !slices.Equal(rows, names) {
		t.Errorf("docs/policies.md's backoff shapes %v; the registered shapes are %v", rows, names)
	}
}
