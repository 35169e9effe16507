package sim_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
)

// cohortRun is one cohort of a built-in, ready to simulate: its cohort
// and fresh recorders.
type cohortRun struct {
	p     *scenarios.Plan
	co    *sim.Cohort
	rec   *results.Recorder
	below []*results.Recorder
}

func newCohortRun(p *scenarios.Plan, strategy string, seed uint64) cohortRun {
	co := cohortOf(p, strategy, seed)
	c := cohortRun{p: p, co: co, rec: results.NewRecorder(p.Duration, 1).Unshared()}
	for _, t := range p.Tiers {
		co.Tiers = append(co.Tiers, sim.Tier{Target: t.Target, Chaos: t.Chaos})
	}
	for range max(0, len(p.Tiers)-1) {
		c.below = append(c.below, results.NewRecorder(p.Duration, 1).Unshared())
	}
	if c.below != nil {
		co.Below = c.below
	}
	return c
}

// fingerprint is everything a cohort run's results folder would hold of
// it, as bytes: the result, the figures, the 10 ms timeline and the
// latency histogram log of rec (and of each tier's recorder below).
func fingerprint(t *testing.T, p *scenarios.Plan, strategy string, res sim.Result, rec *results.Recorder, below []*results.Recorder) []byte {
	t.Helper()
	var w results.Window
	if p.Chaos != nil {
		if first, last, ok := p.Chaos.Span(); ok {
			w = results.Window{FirstStart: first, LastEnd: last}
		}
	}
	var out bytes.Buffer
	for i, r := range append([]*results.Recorder{rec}, below...) {
		run := results.Summarize(results.Cohort{Strategy: strategy, Rec: r, OCC: p.Target.Kind == 1, OneShot: p.Workload.Kind == 1}, w)
		b, err := json.Marshal([]any{i, run})
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		tl, err := folder.EncodeTimeline([]string{strategy}, []results.Timeline{r.Timeline(results.Bucket)})
		if err != nil {
			t.Fatal(err)
		}
		out.Write(tl)
		hl, err := folder.EncodeHistogramLog(strategy, time.Unix(0, 0), r.Intervals())
		if err != nil {
			t.Fatal(err)
		}
		out.Write(hl)
	}
	b, _ := json.Marshal(res)
	out.Write(b)
	return out.Bytes()
}

// TestSnapshotContinuesTheRun: on every built-in scenario with faults
// (the single target over HTTP, an OCC row, gRPC channels, a chain of
// tiers), a snapshot taken before, during and after the faults, continued
// with nothing varied, ends exactly as the run that was never paused,
// byte for byte; so does the paused run itself, and a snapshot continued
// twice gives the same bytes twice.
func TestSnapshotContinuesTheRun(t *testing.T) {
	cases := []struct{ scenario, strategy string }{
		{"outage", "no-jitter"},
		{"metastable", "naive"},
		{"metastable", "jitter+budget+breaker"},
		{"grpc-outage", "grpc-go+throttling"},
		{"layers", "every-tier+budget"},
		{"aws-contention", "exponential"},
	}
	for _, c := range cases {
		t.Run(c.scenario+"/"+c.strategy, func(t *testing.T) {
			o := scenarios.Overrides{}
			if c.scenario == "aws-contention" {
				o.Clients = 50
			}
			p := loadPlan(t, c.scenario, o)
			whole := newCohortRun(p, c.strategy, 7)
			want := fingerprint(t, p, c.strategy, sim.New().Run(whole.co, whole.rec), whole.rec, whole.below)

			paused := newCohortRun(p, c.strategy, 7)
			var snaps []*sim.Snapshot
			at := pauses(p)
			res := sim.New().RunPaused(paused.co, paused.rec, at, func(s *sim.Snapshot) { snaps = append(snaps, s) })
			if got := fingerprint(t, p, c.strategy, res, paused.rec, paused.below); !bytes.Equal(got, want) {
				t.Fatal("the paused run differs from the run never paused")
			}
			if len(snaps) != len(at) {
				t.Fatalf("%d snapshots at %v", len(snaps), at)
			}
			for _, sn := range snaps {
				for range 2 {
					res, rec, below := sn.Continue(sim.Variation{})
					if got := fingerprint(t, p, c.strategy, res, rec, below); !bytes.Equal(got, want) {
						t.Fatalf("the continuation of the snapshot at %s differs from the run", sn.At)
					}
				}
			}
		})
	}
}

// pauses are instants before, during and after p's faults (the middle of
// the run without any).
func pauses(p *scenarios.Plan) []time.Duration {
	if p.Chaos != nil {
		if first, last, ok := p.Chaos.Span(); ok {
			return []time.Duration{first / 2, first, (first + last) / 2, last, last + (p.Duration-last)/3}
		}
	}
	return []time.Duration{p.Duration / 3, p.Duration / 2}
}

// TestContinuationVaries: a continuation with a fresh seed draws other
// numbers than the run (its figures after the snapshot differ) but the
// same for the same seed; one without the faults (Calm) from the start
// of the blip sees no timeout after it, as a run without the blip would,
// and recovers where the run does not.
func TestContinuationVaries(t *testing.T) {
	p := loadPlan(t, "metastable", scenarios.Overrides{})
	first, last, _ := p.Chaos.Span()
	r := newCohortRun(p, "naive", 7)
	var snaps []*sim.Snapshot
	base := sim.New().RunPaused(r.co, r.rec, []time.Duration{first + time.Second, last}, func(s *sim.Snapshot) { snaps = append(snaps, s) })
	runOf := func(rec *results.Recorder, w results.Window) results.Run {
		return results.Summarize(results.Cohort{Strategy: "naive", Rec: rec}, w)
	}
	whole := runOf(r.rec, results.Window{FirstStart: first, LastEnd: last})
	if whole.RecoveryS != nil {
		t.Fatalf("naive recovers in %v s at seed 7; the test needs a collapse", *whole.RecoveryS)
	}

	sn := snaps[1]
	fresh := func(seed uint64) []byte {
		res, rec, _ := sn.Continue(sim.Variation{Seed: seed})
		b, _ := json.Marshal([]any{res, runOf(rec, results.Window{FirstStart: first, LastEnd: last})})
		return b
	}
	a, b, c := fresh(11), fresh(11), fresh(12)
	if !bytes.Equal(a, b) {
		t.Error("two continuations with seed 11 differ")
	}
	if bytes.Equal(a, c) {
		t.Error("continuations with seeds 11 and 12 are the same")
	}
	same, _ := json.Marshal([]any{base, whole})
	if bytes.Equal(a, same) {
		t.Error("a continuation with a fresh seed is the run itself")
	}

	calm := snaps[0]
	res, rec, _ := calm.Continue(sim.Variation{Calm: true, Seed: 11})
	cut := runOf(rec, results.Window{FirstStart: first, LastEnd: calm.At})
	if cut.RecoveryS == nil {
		t.Fatalf("the blip cut 1 s in: naive still never recovers (%+v)", res)
	}
	tl := rec.Timeline(results.Bucket)
	for i, row := range tl.Rows {
		at := time.Duration(i) * results.Bucket
		if at >= calm.At+2*time.Second && row[results.Series(results.Timeout)] > 0 {
			t.Fatalf("a timeout sent at %s, 2 s after the blip was cut", at)
		}
	}
}

// TestSnapshotIsItsOwn: continuations of one snapshot run on goroutines
// of their own at once (run the test with -race), each with its own
// result.
func TestSnapshotIsItsOwn(t *testing.T) {
	p := loadPlan(t, "outage", scenarios.Overrides{Clients: 100})
	r := newCohortRun(p, "full-jitter", 3)
	var sn *sim.Snapshot
	sim.New().RunPaused(r.co, r.rec, []time.Duration{4 * time.Second}, func(s *sim.Snapshot) { sn = s })
	out := make([]string, 4)
	done := make(chan int)
	for i := range out {
		go func() {
			res, _, _ := sn.Continue(sim.Variation{Seed: uint64(1 + i%2)})
			out[i] = fmt.Sprint(res.Events, res.Target)
			done <- i
		}()
	}
	for range out {
		<-done
	}
	if out[0] != out[2] || out[1] != out[3] || out[0] == out[1] {
		t.Fatalf("continuations: %q", out)
	}
}

// TestOnRequest: Cohort.OnRequest is told of every request the recorder
// records as ended, and what it is told leaves the records as they are.
func TestOnRequest(t *testing.T) {
	p := loadPlan(t, "metastable", scenarios.Overrides{})
	plain := newCohortRun(p, "naive", 7)
	want := fingerprint(t, p, "naive", sim.New().Run(plain.co, plain.rec), plain.rec, nil)
	tapped := newCohortRun(p, "naive", 7)
	var ok, failed int64
	tapped.co.OnRequest = func(q results.Request) {
		if q.Succeeded {
			ok++
		} else {
			failed++
		}
	}
	res := sim.New().Run(tapped.co, tapped.rec)
	if got := fingerprint(t, p, "naive", res, tapped.rec, nil); !bytes.Equal(got, want) {
		t.Fatal("tapping the requests changed the records")
	}
	live := tapped.rec.Live()
	if ok != live.Succeeded || failed != live.Failed || ok == 0 || failed == 0 {
		t.Fatalf("told of %d succeeded and %d failed; the recorder has %d and %d", ok, failed, live.Succeeded, live.Failed)
	}
}
