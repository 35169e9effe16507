package results

import (
	"strings"
	"testing"
	"time"
)

// readingOf is a cohort's reading with the outage's headline figures and
// its herd factor at 10, 20, 50 and 100 ms.
func readingOf(failed, recovery float64, herd ...float64) Reading {
	r := Reading{Figures: Values{"attempts": 7600, "amplification": 1.5, "herd_factor": herd[0], "failed_after_fault": failed, "recovery_s": recovery}}
	copy(r.Herd[:], herd)
	return r
}

// faulted is a real run's summary with a fault and a self-check.
func faulted() *Summary {
	return &Summary{Faults: []FaultWindow{{Name: "crash", Kind: "outage", AtS: 4.5, ForS: 2.3}}, Harness: &Harness{Trustworthy: true}}
}

func TestDecideWithoutAModelFollowsTheLimits(t *testing.T) {
	if v := Decide(&Summary{}, nil, Remedy{}); v != nil || !v.Trusted() {
		t.Fatalf("a run without a self-check (virtual time): verdict %+v, want none, trusted", v)
	}
	v := Decide(&Summary{Harness: &Harness{Trustworthy: true, LimitMS: 10}}, nil, Remedy{})
	if v.Outcome != Holds || !v.Trusted() || !strings.Contains(v.Sentence, "no model of this run to compare with") {
		t.Errorf("a run without a model whose harness kept up: %+v, want holds, saying there is no model", v)
	}
	v = Decide(&Summary{Harness: &Harness{Warnings: []string{"no-jitter: sent late."}}}, nil, Remedy{SlowMotion: 4, Wall: time.Minute})
	want := "NOT TRUSTWORTHY: no-jitter: sent late; run it with --slow-motion 4 (about 4m0s)."
	if v.Outcome != NotTrustworthy || v.Trusted() || v.Sentence != want || v.SlowMotion != 4 {
		t.Errorf("a run without a model whose harness fell behind: %+v, want not_trustworthy saying %q", v, want)
	}
}

// The outcomes, from the figures of one run against the model's: the
// cases the outage on 2 cores gives.
func TestDecide(t *testing.T) {
	sim := readingOf(443, 3.91, 135.7, 133.4, 127.8, 122.9)
	fjSim := readingOf(0, 0, 2.7, 4.4, 9.6, 17.9)
	for _, c := range []struct {
		name       string
		real, fj   Reading
		late       *Reading
		want       Judgement
		resolution float64
		says       string
	}{
		{name: "exact", real: readingOf(430, 3.95, 120, 125, 126, 121), fj: readingOf(0, 0, 2.9, 4.6, 9.5, 17),
			want: Exact, resolution: 10, says: "Exact: every headline figure agrees with the simulator's for the same plan and seed, the waves at 10 ms."},
		{name: "holds at 50 ms", real: readingOf(365, 3.98, 35.4, 60, 115.7, 113.6), fj: readingOf(0, 0, 3.0, 4.7, 9.7, 15.2),
			want: Holds, resolution: 50,
			says: "Holds at 50 ms: every headline figure is within its band of the simulator's, but this harness smeared the waves at 10 ms (no-jitter's herd factor 35.4 against 135.7), so they are read at up to 50 ms (115.7 against 127.8 at 50 ms)."},
		// Each cohort's herd factor at its own finest resolution: no-jitter's
		// agrees at 50 ms alone, full jitter's at 10 ms and not at 50 or
		// 100 ms (13 against 9.6, 23 against 17.9): one resolution for
		// both held neither.
		{name: "each at its own", real: readingOf(365, 3.98, 35.4, 60, 115.7, 80), fj: readingOf(0, 0, 3.0, 4.7, 13, 23),
			want: Holds, resolution: 50, says: "so they are read at up to 50 ms (115.7 against 127.8 at 50 ms)"},
		{name: "failures after the fault left their band", real: readingOf(257, 3.98, 120, 125, 120, 121), fj: readingOf(0, 0, 3.0, 4.7, 9.7, 15.2),
			want: NotTrustworthy, resolution: 10, says: "NOT TRUSTWORTHY: no-jitter's failed after fault is 257 against the simulator's 443, outside its band; run it with --slow-motion 2"},
		// 30 failures against none: within half a percent of 7,600 attempts.
		{name: "a small count within its floor", real: readingOf(443, 3.91, 130, 130, 127, 122), fj: readingOf(30, 0.39, 2.8, 4.4, 9.6, 17.9),
			want: Exact, resolution: 10},
		{name: "a recovery that never came", real: readingOf(443, -1, 130, 130, 127, 122), fj: fjSim,
			want: NotTrustworthy, resolution: 10, says: "no-jitter's recovery is never against the simulator's 3.91s, outside its band"},
		{name: "waves smeared at every resolution", real: readingOf(430, 3.9, 15.9, 21.7, 32.1, 54.2), fj: fjSim,
			want: NotTrustworthy, resolution: 100, says: "NOT TRUSTWORTHY: no-jitter's herd factor even at 100 ms is 54.2 against the simulator's 122.9, outside its band; run it with --slow-motion 2"},
		// The model given this harness's lateness gives recovery 2.8 s,
		// outside the band; the real 3.3 s is within both bands: it
		// could be the harness's.
		{name: "could be", real: readingOf(443, 3.3, 130, 130, 127, 122), fj: fjSim, late: &Reading{Figures: Values{"recovery_s": 2.8, "failed_after_fault": 443, "attempts": 7600}, Herd: sim.Herd},
			want: NotTrustworthy, resolution: 10, says: "no-jitter's recovery is 3.30s, nearer this harness's lateness (2.80s in the model) than the simulator's 3.91s"},
		// Within both bands, but nearer the simulator's: the strategy's.
		{name: "nearer the model", real: readingOf(443, 3.5, 130, 130, 127, 122), fj: fjSim, late: &Reading{Figures: Values{"recovery_s": 2.8, "failed_after_fault": 443, "attempts": 7600}, Herd: sim.Herd},
			want: Exact, resolution: 10},
		// The model given the lateness moved the recovery, the real run
		// did not: the model is wrong about this run, the real figure
		// stands.
		{name: "the model moved it, the run did not", real: readingOf(443, 3.91, 130, 130, 127, 122), fj: fjSim, late: &Reading{Figures: Values{"recovery_s": 1.2, "failed_after_fault": 443, "attempts": 7600}, Herd: sim.Herd},
			want: Exact, resolution: 10},
	} {
		if c.real.Figures["recovery_s"] < 0 {
			delete(c.real.Figures, "recovery_s")
		}
		ev := []Evidence{{Cohort: "no-jitter", Real: c.real, Sim: sim, Late: c.late}, {Cohort: "full-jitter", Real: c.fj, Sim: fjSim}}
		v := Decide(faulted(), ev, Remedy{SlowMotion: 2, Wall: time.Minute, Slowable: true})
		if v.Outcome != c.want || v.ResolutionMS != c.resolution || !strings.Contains(v.Sentence, c.says) {
			t.Errorf("%s: %s at %g ms, %q; want %s at %g ms, saying %q", c.name, v.Outcome, v.ResolutionMS, v.Sentence, c.want, c.resolution, c.says)
		}
		if v.Trusted() != (c.want != NotTrustworthy) {
			t.Errorf("%s: trusted %v", c.name, v.Trusted())
		}
	}
}

// The figures that decided: every headline figure of every cohort, the
// herd factor at the resolution read and, read coarser, at 10 ms beside
// it (Finer).
func TestDecideFigures(t *testing.T) {
	sim := readingOf(443, 3.91, 135.7, 133.4, 127.8, 122.9)
	ev := []Evidence{{Cohort: "no-jitter", Real: readingOf(365, 3.98, 35.4, 60, 115.7, 113.6), Sim: sim}}
	v := Decide(faulted(), ev, Remedy{})
	var herd []string
	names := map[string]bool{}
	for _, f := range v.Figures {
		names[f.Name] = true
		if f.Name == "herd_factor" {
			herd = append(herd, strings.Join([]string{figureText(f.Name, *f.Real), figureText(f.Name, *f.Sim), map[bool]string{true: "within", false: "outside"}[f.Within], map[bool]string{true: "finer", false: "read"}[f.Finer]}, " "))
			if f.ResolutionMS != map[bool]float64{true: 10, false: 50}[f.Finer] {
				t.Errorf("herd factor %+v: resolution %g ms", f, f.ResolutionMS)
			}
		}
	}
	if got := strings.Join(herd, "; "); got != "35.4 135.7 outside finer; 115.7 127.8 within read" {
		t.Errorf("herd factors %q", got)
	}
	for _, n := range []string{"failed_after_fault", "recovery_s", "amplification"} {
		if !names[n] {
			t.Errorf("figures %+v: no %s", v.Figures, n)
		}
	}
}

// A plan without faults has no waves to judge: its herd factor, failures
// after the fault and recovery are not the verdict's, whatever they read.
func TestDecideWithoutFaultsJudgesNoWaves(t *testing.T) {
	sim := Reading{Figures: Values{"attempts": 1000, "amplification": 1.0, "herd_factor": 1.0, "failed_after_fault": 0, "recovery_s": 0}, Herd: HerdFactors{1, 1, 1, 1}}
	real := Reading{Figures: Values{"attempts": 1000, "amplification": 1.02, "herd_factor": 9, "failed_after_fault": 50, "recovery_s": 3}, Herd: HerdFactors{9, 9, 9, 9}}
	v := Decide(&Summary{Harness: &Harness{}}, []Evidence{{Cohort: "mix", Real: real, Sim: sim}}, Remedy{})
	if v.Outcome != Exact || v.ResolutionMS != 0 || len(v.Figures) != 1 || v.Figures[0].Name != "amplification" {
		t.Errorf("a request mix without faults: %+v, want exact on its amplification alone", v)
	}
	if v.Sentence != "Exact: every headline figure agrees with the simulator's for the same plan and seed." {
		t.Errorf("sentence %q", v.Sentence)
	}
}

// HerdFactorAt over 10 ms buckets is HerdFactor; over wider ones it is
// HerdFactor of the buckets summed: a wave 30 ms wide, three buckets in
// a row, is one bucket of 50 ms.
func TestHerdFactorAt(t *testing.T) {
	a := make([]int64, 300)
	for i := range a {
		a[i] = 1
	}
	for s := 0; s < 300; s += 100 {
		a[s+20], a[s+21], a[s+22] = 40, 40, 40 // a wave 30 ms wide every second
	}
	if got, want := HerdFactorAt(a, 0, Bucket), HerdFactor(a, 0); got != want {
		t.Errorf("at 10 ms: %v, want HerdFactor's %v", got, want)
	}
	wide := make([]int64, 60)
	for i := range wide {
		wide[i] = 5
	}
	for s := 0; s < 60; s += 20 {
		wide[s+4] = 122 // buckets 20, 21, 22 and 23, 24 of each second
	}
	if got, want := HerdFactorAt(a, 0, 50*time.Millisecond), dispersion(wide, 20); got != want || want <= 1 {
		t.Errorf("at 50 ms: %v, want the herd factor of the summed buckets, %v", got, want)
	}
	if HerdFactorAt(a, 0, 50*time.Millisecond) <= HerdFactorAt(a, 0, Bucket) {
		t.Errorf("a wave 30 ms wide stands higher over 50 ms buckets than over 10 ms ones: %v against %v", HerdFactorAt(a, 0, 50*time.Millisecond), HerdFactorAt(a, 0, Bucket))
	}
}
