package engine

import (
	"bytes"
	"context"
	"math"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// plans compiles a scenario (a built-in name or inline YAML) once per
// client count (0: the scenario's own).
func plans(t testing.TB, name, yaml string, o scenarios.Overrides, counts ...int) []*scenarios.Plan {
	t.Helper()
	var data []byte
	if yaml == "" {
		var err error
		op, err := scenarios.Open(name, scenarios.Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		name, data = op.Filename, op.Source
	} else {
		data = []byte(yaml)
	}
	sc, err := scenarios.Parse(name, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) == 0 {
		counts = []int{0}
	}
	var out []*scenarios.Plan
	for _, n := range counts {
		o.Clients = n
		p, err := sc.Compile(o)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func execute(t testing.TB, ps []*scenarios.Plan, o Options) []Point {
	t.Helper()
	points, err := Execute(context.Background(), ps, o)
	if err != nil {
		t.Fatal(err)
	}
	return points
}

func stat(t testing.TB, p Point, strategy, metric string) results.Stat {
	t.Helper()
	for _, r := range p.Output.Summary.Runs {
		if r.Strategy == strategy {
			if st, ok := r.Stats[metric]; ok {
				return st
			}
			t.Fatalf("%s has no %s", strategy, metric)
		}
	}
	t.Fatalf("no cohort %s", strategy)
	return results.Stat{}
}

// TestSimDeterministic: two simulated runs of one scenario with one seed
// (repetitions spread over workers) write the same summary.json, byte for
// byte, but for the start time and version.
func TestSimDeterministic(t *testing.T) {
	ps := plans(t, "outage", "", scenarios.Overrides{Duration: 10 * time.Second}, 100)
	var prev []byte
	for i, workers := range []int{2, 1} {
		points := execute(t, ps, Options{Version: "v" + string(rune('0'+i)), Mode: Mode{Sim: true, Runs: 3, Workers: workers, Timelines: true}})
		s := *points[0].Output.Summary
		if s.Mode != "sim" || s.Repetitions != 3 || len(s.Seeds) != 3 || s.Seeds[0] != ps[0].Seed {
			t.Fatalf("mode %q, repetitions %d, seeds %v", s.Mode, s.Repetitions, s.Seeds)
		}
		s.Started, s.Version = time.Time{}, ""
		b, err := folder.EncodeSummary(&s)
		if err != nil {
			t.Fatal(err)
		}
		tl, err := folder.EncodeTimeline([]string{"x"}, []results.Timeline{points[0].Output.Cohorts[0].Rec.Timeline(results.Bucket)})
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, tl...)
		if prev != nil && !bytes.Equal(prev, b) {
			t.Fatal("two simulated runs with one seed differ")
		}
		prev = b
	}
}

// reference holds the figures of AWS's backoff simulator (the experiment
// behind "Exponential Backoff And Jitter", run unmodified, 100 runs per
// point): mean calls and mean completion time in seconds.
var reference = map[int]map[string][2]float64{
	10:  {"exponential": {50.7, 3.433}, "full": {39.2, 0.468}, "equal": {42.6, 0.718}, "decorrelated": {37.6, 0.439}, "none": {50.7, 0.378}},
	50:  {"exponential": {623.0, 36.239}, "full": {332.6, 2.885}, "equal": {347.9, 4.304}, "decorrelated": {375.7, 2.218}, "none": {691.5, 1.142}},
	100: {"exponential": {1856.0, 63.146}, "full": {794.8, 4.878}, "equal": {811.5, 6.563}, "decorrelated": {999.1, 4.669}, "none": {2423.6, 2.025}},
}

// TestAWSReference reproduces AWS's experiment in virtual time: at N = 10
// (100 runs), 50 (50 runs) and 100 (20 runs, to keep the suite fast) every
// strategy's mean calls is within 3% and mean completion time within 10%
// of the reference; at N = 100 the retry waves (peak writes per 10 ms
// after the first second) are within 25% of the reference's 31.9
// (exponential) and 3.9 (full).
func TestAWSReference(t *testing.T) {
	for _, n := range []int{10, 50, 100} {
		runs := map[int]int{10: 100, 50: 50, 100: 20}[n]
		point := execute(t, plans(t, "aws-contention", "", scenarios.Overrides{}, n), Options{Mode: Mode{Sim: true, Runs: runs}})[0]
		for strategy, ref := range reference[n] {
			calls, completion := stat(t, point, strategy, "calls"), stat(t, point, strategy, "completion_s")
			if math.Abs(calls.Mean/ref[0]-1) > 0.03 {
				t.Errorf("N=%d %s: mean calls %.1f, reference %.1f (±3%%)", n, strategy, calls.Mean, ref[0])
			}
			if math.Abs(completion.Mean/ref[1]-1) > 0.10 {
				t.Errorf("N=%d %s: mean completion %.3fs, reference %.3fs (±10%%)", n, strategy, completion.Mean, ref[1])
			}
		}
		if n == 100 {
			for strategy, ref := range map[string]float64{"exponential": 31.9, "full": 3.9} {
				if peak := stat(t, point, strategy, "peak_calls_per_10ms"); math.Abs(peak.Mean/ref-1) > 0.25 {
					t.Errorf("N=100 %s: mean wave peak %.1f writes per 10 ms, reference %.1f (±25%%)", strategy, peak.Mean, ref)
				}
			}
		}
	}
}

// TestSweepOrder: a sweep returns one point per client count, in order,
// each cohort with its repetitions' stats.
func TestSweepOrder(t *testing.T) {
	points := execute(t, plans(t, "aws-contention", "", scenarios.Overrides{Strategies: []string{"full", "none"}}, 5, 3), Options{Mode: Mode{Sim: true, Runs: 4}})
	if len(points) != 2 || points[0].Output.Summary.Clients != 5 || points[1].Output.Summary.Clients != 3 {
		t.Fatalf("%d points", len(points))
	}
	for _, p := range points {
		s := p.Output.Summary
		if len(s.Runs) != 2 || s.Runs[0].Strategy != "full" || s.Runs[1].Strategy != "none" || p.Output.Cohorts != nil {
			t.Fatalf("%+v", s.Runs)
		}
		if st := s.Runs[0].Stats["succeeded"]; st.N != 4 || st.Mean != float64(s.Clients) || st.SD != 0 {
			t.Fatalf("succeeded %+v", st)
		}
	}
}

// An interrupted simulated sweep keeps the points that finished, whole,
// and the one it cut, marked partial; the points it never began are left
// out. OnDone counts every cohort run that ended.
func TestInterruptedSweepKeepsFinishedPoints(t *testing.T) {
	ps := plans(t, "aws-contention", "", scenarios.Overrides{Strategies: []string{"full", "none"}}, 2, 3, 4, 5)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var ended []int
	o := Options{Mode: Mode{Sim: true, Workers: 1}, Watch: Watch{OnDone: func(done, total int) {
		if total != 8 {
			t.Errorf("OnDone total %d, want 4 points × 2 cohorts", total)
		}
		ended = append(ended, done)
	}}}
	o.beforeTask = func(point, cohort, rep int) {
		if point == 2 && cohort == 0 {
			cancel() // this cohort run still runs; nothing after it
		}
	}
	points, err := Execute(ctx, ps, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(points) != 3 {
		t.Fatalf("%d points, want the 2 finished and the 1 cut", len(points))
	}
	for i, p := range points[:2] {
		if s := p.Output.Summary; s.Partial || len(s.Runs) != 2 || s.Clients != 2+i {
			t.Errorf("finished point %d: partial %v, %d runs, %d clients", i, s.Partial, len(s.Runs), s.Clients)
		}
	}
	if s := points[2].Output.Summary; !s.Partial || len(s.Runs) != 1 {
		t.Errorf("the point cut short: partial %v, %d runs", s.Partial, len(s.Runs))
	}
	if len(ended) != 5 || ended[4] != 5 {
		t.Errorf("OnDone saw %v, want 1 to 5", ended)
	}
}
