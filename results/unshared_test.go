package results

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// feed records the same random mix of requests, attempts, calls and policy
// events into r: times anywhere in the run and beyond it (clamped), every
// outcome and attempt number.
func feed(r *Recorder, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	sh := r.Shard(0)
	d := r.Duration()
	at := func() time.Duration { return time.Duration(rng.Int64N(int64(d + d/10))) }
	for i := 0; i < 5000; i++ {
		t := at()
		switch rng.IntN(5) {
		case 0:
			sh.Started(t)
		case 1:
			sh.Attempt(Attempt{Sent: t, Latency: time.Duration(rng.Int64N(int64(2 * time.Second))), Number: rng.IntN(6), Outcome: Outcome(rng.IntN(int(NumOutcomes)))})
		case 2:
			sh.Request(Request{Start: t / 2, End: t, Succeeded: rng.IntN(2) == 0})
		case 3:
			r.Call(t)
		case 4:
			sh.Policy(t, PolicyEvent(rng.IntN(int(NumPolicyEvents))))
		}
	}
}

// An unshared recorder holds exactly what a shared one does, whatever is
// recorded, with and without intervals, and after a reset; its live
// counters for dashboards are the only thing left empty.
func TestUnsharedRecordsTheSame(t *testing.T) {
	for _, whole := range []bool{false, true} {
		for seed := uint64(1); seed <= 4; seed++ {
			shared := NewRecorder(7*time.Second+3*time.Millisecond, 1)
			plain := NewRecorder(7*time.Second+3*time.Millisecond, 1).Unshared()
			if whole {
				shared.WithoutIntervals()
				plain.WithoutIntervals()
			}
			feed(plain, seed+10) // then reset: nothing of it may remain
			plain.Reset()
			// Odd seeds end the run before the last records (SetEnd cuts
			// them off), even ones after: both ways the unshared columns
			// and totals must agree with the shared recorder's.
			end := 5 * time.Second
			if seed%2 == 0 {
				end = 7*time.Second + 3*time.Millisecond
			}
			for _, r := range []*Recorder{shared, plain} {
				feed(r, seed)
				r.SetEnd(end)
			}
			want, got := shared.Live(), plain.Live()
			want.ByAttempt = [NumOutcomes][AttemptGroups]int64{}
			want.Unnumbered = [NumOutcomes]int64{} // live pages only: an unshared recorder keeps no per-outcome totals
			want.Policy = [NumPolicyEvents]int64{}
			if got != want {
				t.Errorf("whole %v, seed %d: Live %+v, want %+v", whole, seed, got, want)
			}
			if got.Attempts == 0 || got.Requests == 0 {
				t.Fatalf("feed recorded nothing: %+v", got)
			}
			if !reflect.DeepEqual(plain.Timeline(Bucket), shared.Timeline(Bucket)) || !reflect.DeepEqual(plain.Timeline(time.Second), shared.Timeline(time.Second)) {
				t.Errorf("whole %v, seed %d: the timelines differ", whole, seed)
			}
			if plain.Calls() != shared.Calls() || plain.LastEnd() != shared.LastEnd() {
				t.Errorf("whole %v, seed %d: calls %d, last end %s; want %d, %s", whole, seed, plain.Calls(), plain.LastEnd(), shared.Calls(), shared.LastEnd())
			}
			pa, pr := plain.Histograms()
			sa, sr := shared.Histograms()
			if !pa.Equals(sa) || !pr.Equals(sr) {
				t.Errorf("whole %v, seed %d: the latency histograms differ", whole, seed)
			}
			if s, p := Summarize(Cohort{Strategy: "x", Rec: shared, OCC: true, OneShot: true}, Window{FirstStart: time.Second, LastEnd: 2 * time.Second}),
				Summarize(Cohort{Strategy: "x", Rec: plain, OCC: true, OneShot: true}, Window{FirstStart: time.Second, LastEnd: 2 * time.Second}); !reflect.DeepEqual(s, p) {
				t.Errorf("whole %v, seed %d: summaries differ:\n%+v\n%+v", whole, seed, p, s)
			}
		}
	}
}

// Recording allocates nothing per record: in an unshared recorder at all,
// in a shared one between the once-a-second hand-overs of its interval
// histograms.
func TestRecordingAllocatesNothing(t *testing.T) {
	for _, unshared := range []bool{false, true} {
		r := NewRecorder(time.Hour, 4)
		if unshared {
			r = NewRecorder(time.Hour, 1).WithoutIntervals().Unshared()
		}
		sh := r.Shard(0)
		var i int
		allocs := testing.AllocsPerRun(1000, func() {
			at := time.Duration(i) * time.Microsecond // within the first second
			sh.Started(at)
			sh.Attempt(Attempt{Sent: at, Latency: time.Millisecond, Number: 1 + i%3, Outcome: Outcome(i % 3)})
			sh.Request(Request{Start: at, End: at + time.Millisecond, Succeeded: true})
			sh.Policy(at, BreakerRejected)
			r.Call(at)
			i++
		})
		if allocs != 0 {
			t.Errorf("unshared %v: %v allocations per record, want 0", unshared, allocs)
		}
	}
}

// A recorder restored from a timeline (an unshared one) summarizes as the
// one that recorded it: its columns and its totals by outcome come back
// with its counts.
func TestRestoredSummarizesTheSame(t *testing.T) {
	rec := NewRecorder(7*time.Second, 1)
	feed(rec, 9)
	back, err := Restore(rec.Duration(), rec.Timeline(Bucket), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := Window{FirstStart: time.Second, LastEnd: 2 * time.Second}
	want, got := Summarize(Cohort{Strategy: "x", Rec: rec}, w), Summarize(Cohort{Strategy: "x", Rec: back}, w)
	if !reflect.DeepEqual(got.Outcomes, want.Outcomes) || got.HerdFactor != want.HerdFactor || got.FailedAfterFault != want.FailedAfterFault ||
		!reflect.DeepEqual(got.RecoveryS, want.RecoveryS) || got.PeakAttemptsPerS != want.PeakAttemptsPerS || got.Attempts != want.Attempts {
		t.Errorf("restored: outcomes %v, herd %v, failed after %d, recovery %v, peak %d, attempts %d\nwant %v, %v, %d, %v, %d, %d",
			got.Outcomes, got.HerdFactor, got.FailedAfterFault, got.RecoveryS, got.PeakAttemptsPerS, got.Attempts,
			want.Outcomes, want.HerdFactor, want.FailedAfterFault, want.RecoveryS, want.PeakAttemptsPerS, want.Attempts)
	}
	if want.Attempts == 0 || want.HerdFactor == 0 {
		t.Fatalf("feed recorded too little to compare: %+v", want)
	}
}
