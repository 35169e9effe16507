package results

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestHerdFactorExact(t *testing.T) {
	// One window, every bucket the same: variance 0.
	flat := make([]int64, WindowBuckets)
	for i := range flat {
		flat[i] = 4
	}
	if got := HerdFactor(flat, 0); got != 0 {
		t.Errorf("flat: %v, want 0", got)
	}
	// One window, all 100 attempts in one bucket: mean 1, variance
	// (99^2 + 99*1^2)/100 = 99, dispersion 99.
	spike := make([]int64, WindowBuckets)
	spike[37] = 100
	if got := HerdFactor(spike, 0); math.Abs(got-99) > 1e-9 {
		t.Errorf("spike: %v, want 99", got)
	}
	// Two windows weighted by attempts: flat (400 attempts, 0) then the
	// spike (100 attempts, 99): (0*400 + 99*100) / 500.
	both := append(append([]int64(nil), flat...), spike...)
	if got, want := HerdFactor(both, 0), 99.0*100/500; math.Abs(got-want) > 1e-9 {
		t.Errorf("weighted: %v, want %v", got, want)
	}
	// from skips earlier buckets; a trailing partial window is ignored.
	if got := HerdFactor(append(both, 50, 0, 0), WindowBuckets); math.Abs(got-99) > 1e-9 {
		t.Errorf("from the second window: %v, want 99", got)
	}
	if got := HerdFactor(make([]int64, 300), 0); got != 0 {
		t.Errorf("no attempts: %v, want 0", got)
	}
}

// Independent arrivals give a herd factor near 1; the same attempts in
// synchronized waves give one far above.
func TestHerdFactorPoissonVersusWaves(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const buckets = 20 * WindowBuckets
	poisson := make([]int64, buckets)
	waves := make([]int64, buckets)
	for i := 0; i < 40000; i++ {
		poisson[r.IntN(buckets)]++
		waves[(r.IntN(buckets)/50)*50]++ // every attempt lands on a 500 ms tick
	}
	p, w := HerdFactor(poisson, 0), HerdFactor(waves, 0)
	if math.Abs(p-1) > 0.1 {
		t.Errorf("Poisson arrivals: herd factor %.3f, want about 1", p)
	}
	if w < 50 {
		t.Errorf("waves: herd factor %.1f, want far above 1", w)
	}
}

func TestRecovery(t *testing.T) {
	const n = 5 * WindowBuckets
	mk := func(fail func(b int) bool) (ok, all []int64) {
		ok, all = make([]int64, n), make([]int64, n)
		for b := 0; b < n; b++ {
			all[b] = 10
			if !fail(b) {
				ok[b] = 10
			}
		}
		return ok, all
	}
	cases := []struct {
		name   string
		fail   func(b int) bool
		from   int
		want   time.Duration
		wantOK bool
	}{
		{"healthy from the start", func(int) bool { return false }, 100, 0, true},
		// Every attempt in buckets [100, 150) fails. A window holding k of
		// those buckets succeeds (100-k)%, below 95% when k > 5: the last
		// such window starts at bucket 144, so recovery starts at 145.
		{"fails for 500 ms", func(b int) bool { return b >= 100 && b < 150 }, 100, 450 * time.Millisecond, true},
		// A relapse in buckets [300, 310): the last bad window starts at 304.
		{"relapse later", func(b int) bool { return b >= 300 && b < 310 }, 100, 2050 * time.Millisecond, true},
		// One failed bucket is only 1% of a window: not a relapse.
		{"one failed bucket", func(b int) bool { return b == 300 }, 100, 0, true},
		{"still failing at the end", func(b int) bool { return b >= 480 }, 100, 0, false},
	}
	for _, c := range cases {
		ok, all := mk(c.fail)
		got, gotOK := Recovery(ok, all, c.from)
		if got != c.want || gotOK != c.wantOK {
			t.Errorf("%s: Recovery = %v, %v; want %v, %v", c.name, got, gotOK, c.want, c.wantOK)
		}
	}
	// 5% failures are exactly at the threshold: recovered.
	ok, all := make([]int64, n), make([]int64, n)
	for b := range all {
		all[b], ok[b] = 20, 19
	}
	if d, rec := Recovery(ok, all, 0); !rec || d != 0 {
		t.Errorf("95%% success: %v, %v; want recovered at once", d, rec)
	}
	// Empty windows do not count against recovery.
	if d, rec := Recovery(make([]int64, n), make([]int64, n), 50); !rec || d != 0 {
		t.Errorf("no attempts: %v, %v", d, rec)
	}
}

func TestFailedFromBucketAt(t *testing.T) {
	ok := []int64{1, 2, 3, 0, 5}
	all := []int64{2, 2, 5, 4, 5}
	if got := FailedFrom(ok, all, 2); got != 6 {
		t.Errorf("FailedFrom = %d, want 6", got)
	}
	if BucketAt(0) != 0 || BucketAt(10*time.Millisecond) != 1 || BucketAt(11*time.Millisecond) != 2 {
		t.Error("BucketAt rounds up to the first bucket at or after t")
	}
}

// The comparison table's columns and the sweep's charts have one place
// each.
func TestTablePlacesAreUnique(t *testing.T) {
	table, line, heat := map[int]string{}, map[int]string{}, map[int]string{}
	for _, m := range metricTable() {
		for _, p := range []struct {
			seen  map[int]string
			place int
		}{{table, tablePlace(m)}, {line, m.Sweep.Line}, {heat, m.Sweep.Heat}} {
			if p.place == 0 {
				continue
			}
			if other, ok := p.seen[p.place]; ok {
				t.Errorf("%s and %s share place %d", other, m.Name, p.place)
			}
			p.seen[p.place] = m.Name
		}
	}
	if len(SweepLines()) != len(line) || len(SweepHeats()) != len(heat) {
		t.Errorf("lines %v, heats %v", SweepLines(), SweepHeats())
	}
}

func tablePlace(m Metric) int {
	if m.Table == nil {
		return 0
	}
	return m.Table.At
}
