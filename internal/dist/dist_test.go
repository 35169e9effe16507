package dist

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	ms := time.Millisecond
	good := map[string]Dist{
		"10ms":                 Const(10 * ms),
		"0":                    Const(0),
		"constant(1s)":         Const(time.Second),
		"uniform(5ms, 15ms)":   {Kind: Uniform, A: 5 * ms, B: 15 * ms},
		" exponential(100ms) ": {Kind: Exponential, A: 100 * ms},
		"normal(10ms,2ms)":     {Kind: Normal, A: 10 * ms, B: 2 * ms},
	}
	for in, want := range good {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
		back, err := Parse(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q via %q: %v, %v", in, got.String(), back, err)
		}
	}
	for _, in := range []string{"", "fast", "-5ms", "uniform(5ms)", "uniform(15ms, 5ms)", "gaussian(1ms)", "normal(1ms, 2ms", "exponential(x)", "exponential(2000000h)", "uniform(0s, 25h)", "24h0m0.000000001s"} {
		if _, err := Parse(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", in, err)
		}
	}
}

func TestSampleMoments(t *testing.T) {
	const n = 100000
	r := rand.New(rand.NewPCG(7, 7))
	ms := float64(time.Millisecond)
	cases := []struct {
		d        Dist
		mean, sd float64 // in ms
		lo, hi   time.Duration
	}{
		{Const(3 * time.Millisecond), 3, 0, 3 * time.Millisecond, 3 * time.Millisecond},
		{Dist{Kind: Uniform, A: 10 * time.Millisecond, B: 20 * time.Millisecond}, 15, 10 / math.Sqrt(12), 10 * time.Millisecond, 20 * time.Millisecond},
		{Dist{Kind: Exponential, A: 50 * time.Millisecond}, 50, 50, 0, -1},
		{Dist{Kind: Normal, A: 10 * time.Millisecond, B: 2 * time.Millisecond}, 10, 2, 0, -1},
	}
	for _, c := range cases {
		var sum, sq float64
		for i := 0; i < n; i++ {
			v := c.d.Sample(r)
			if v < c.lo || (c.hi >= 0 && v > c.hi) {
				t.Fatalf("%v: sample %v outside [%v, %v]", c.d, v, c.lo, c.hi)
			}
			x := float64(v) / ms
			sum += x
			sq += x * x
		}
		mean := sum / n
		sd := math.Sqrt(sq/n - mean*mean)
		if math.Abs(mean-c.mean) > 0.01*c.mean+1e-9 || math.Abs(sd-c.sd) > 0.02*c.sd+1e-6 {
			t.Errorf("%v: mean %.3f sd %.3f, want %.3f and %.3f", c.d, mean, sd, c.mean, c.sd)
		}
		if c.d.Mean() != time.Duration(c.mean*ms) {
			t.Errorf("%v: Mean() = %v", c.d, c.d.Mean())
		}
	}
}

// A draw never overflows, even at the largest parameters and in the tails
// where the standard library's draws reach +Inf.
func TestSampleIsBounded(t *testing.T) {
	if got := clamp(math.Inf(1)); got != maxSample {
		t.Errorf("clamp(+Inf) = %v, want %v", got, maxSample)
	}
	if got := clamp(math.NaN()); got != maxSample {
		t.Errorf("clamp(NaN) = %v, want %v", got, maxSample)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []Dist{{Kind: Exponential, A: MaxDuration}, {Kind: Normal, A: MaxDuration, B: MaxDuration}} {
		for i := 0; i < 100000; i++ {
			if v := d.Sample(r); v < 0 || v > maxSample {
				t.Fatalf("%v: sample %v outside [0, %v]", d, v, maxSample)
			}
		}
	}
}

// TestHeavyTails: a lognormal's and a Pareto's draws have the quantiles
// their formulas give (median A·e^(σ·z), minimum A and tail A·p^(-1/α)),
// within 5% over 200,000 draws of a fixed seed; they read back as
// written; a shape out of range is refused with what to write.
func TestHeavyTails(t *testing.T) {
	quantile := func(d Dist, q float64) float64 {
		r := rand.New(rand.NewPCG(7, 9))
		xs := make([]float64, 200000)
		for i := range xs {
			xs[i] = float64(d.Sample(r))
		}
		slices.Sort(xs)
		return xs[int(q*float64(len(xs)))]
	}
	ln, err := Parse("lognormal(2ms, 1.5)")
	if err != nil || ln != (Dist{Kind: LogNormal, A: 2 * time.Millisecond, Shape: 1.5}) || ln.String() != "lognormal(2ms, 1.5)" {
		t.Fatalf("lognormal: %v %v %q", ln, err, ln.String())
	}
	pa, err := Parse("pareto(1ms, 1.2)")
	if err != nil || pa != (Dist{Kind: Pareto, A: time.Millisecond, Shape: 1.2}) || pa.String() != "pareto(1ms, 1.2)" {
		t.Fatalf("pareto: %v %v %q", pa, err, pa.String())
	}
	for _, c := range []struct {
		d    Dist
		q    float64
		want float64
	}{
		{ln, 0.5, 2e6},
		{ln, 0.99, 2e6 * math.Exp(1.5*2.3263)},
		{pa, 0.5, 1e6 * math.Pow(0.5, -1/1.2)},
		{pa, 0.99, 1e6 * math.Pow(0.01, -1/1.2)},
	} {
		if got := quantile(c.d, c.q); math.Abs(got-c.want) > 0.05*c.want {
			t.Errorf("%s: quantile %v is %.0f ns, want %.0f", c.d, c.q, got, c.want)
		}
	}
	if m := pa.Mean(); m != 6*time.Millisecond {
		t.Errorf("pareto(1ms, 1.2) mean %v, want 6ms", m)
	}
	if pa.Max() != -1 || ln.Max() != -1 {
		t.Error("a heavy tail has a bound")
	}
	for _, bad := range []string{"lognormal(2ms)", "lognormal(2ms, 0)", "pareto(1ms, -1)", "pareto(1ms, x)", "pareto(1ms, 21)", "lognormal(-2ms, 1)", "pareto(1ms, 1, 2)"} {
		if _, err := Parse(bad); err == nil || !errors.Is(err, ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want an ErrSyntax", bad, err)
		}
	}
}
