package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// selfCheckScenario has a 20 ms backoff base: its figures tolerate 2 ms of
// lateness (results.LagLimit).
const selfCheckScenario = `
name: self-check
duration: 1s
seed: 9
target: {concurrency: 4, queue: 20, queue_timeout: 500ms, service_time: 2ms}
chaos: [{kind: outage, at: 300ms, for: 200ms}]
workload: {kind: closed, clients: 20, think: exponential(30ms)}
strategies:
  - {name: exp, backoff: exponential, base: 20ms, cap: 200ms, max_attempts: 4, timeout: 500ms}
  - {name: full, backoff: full, base: 20ms, cap: 200ms, max_attempts: 4, timeout: 500ms}
`

// executeInBubble runs plans with Execute through the real HTTP server and
// swarm over an in-memory network, in a synctest bubble (virtual time).
func executeInBubble(t *testing.T, ps []*scenarios.Plan, o Options) []Point {
	t.Helper()
	var points []Point
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		o.Listen, o.Dial = n.Listen, n.Dial
		var err error
		if points, err = Execute(context.Background(), ps, o); err != nil {
			t.Fatal(err)
		}
	})
	return points
}

// A harness that is late on purpose is caught: every client pauses 5 ms
// between waking and sending (what a busy machine's scheduler does), in
// virtual time, so every attempt goes out exactly 5 ms late. The same run
// without the pause is on time to the nanosecond. Without a model to
// compare with, the limits decide the verdict: not trustworthy. With one,
// the consequences do: these figures do not hang on 5 ms, so the verdict
// stands where the simulator's figures are, and the self-check's
// warnings still say how late the harness was.
func TestLateHarnessIsFlagged(t *testing.T) {
	p := scenariotest.Plan(t, selfCheckScenario, scenarios.Overrides{})
	on := executeInBubble(t, []*scenarios.Plan{p}, Options{})[0].Output.Summary
	h := on.Harness
	if h == nil || !h.Trustworthy || len(h.Warnings) != 0 || h.LimitMS != 2 {
		t.Fatalf("on time: harness %+v, want trustworthy with a 2 ms limit", h)
	}
	if v := on.Verdict; v == nil || v.Outcome != results.Exact {
		t.Errorf("on time: verdict %+v, want exact", v)
	}
	pause := func() { time.Sleep(5 * time.Millisecond) }
	modelled := executeInBubble(t, []*scenarios.Plan{p}, Options{BeforeSend: pause})[0].Output.Summary
	if v, h := modelled.Verdict, modelled.Harness; v == nil || !v.Trusted() || len(v.Figures) == 0 || !h.Trustworthy || len(h.Warnings) != 2 {
		t.Errorf("5 ms late, with the model: verdict %+v, harness %+v; want the figures judged and trusted, the lateness still warned of", v, h)
	}
	for _, r := range on.Runs {
		if r.SendLagMS == nil || r.SendLagMS.Max != 0 || r.TargetDriftMS == nil || r.TargetDriftMS.Max != 0 {
			t.Errorf("%s on time: send lag %+v, target drift %+v; want both 0", r.Strategy, r.SendLagMS, r.TargetDriftMS)
		}
	}

	late := executeInBubble(t, []*scenarios.Plan{p}, Options{BeforeSend: pause, Mode: Mode{NoSimReference: true}})[0].Output.Summary
	h = late.Harness
	if h == nil || h.Trustworthy || len(h.Warnings) != 2 {
		t.Fatalf("5 ms late: harness %+v, want untrustworthy with one warning per cohort", h)
	}
	if v := late.Verdict; v == nil || v.Outcome != results.NotTrustworthy || !strings.HasPrefix(v.Sentence, "NOT TRUSTWORTHY: exp: attempts were sent late") {
		t.Errorf("5 ms late, without a model: verdict %+v, want not trustworthy by the limits", v)
	}
	// The lag histograms keep 2 significant figures: 5 ms reads as up to
	// 1% more.
	five := func(v float64) bool { return v >= 5 && v <= 5.05 }
	for i, r := range late.Runs {
		if l := r.SendLagMS; l == nil || !five(l.P50) || !five(l.P99) || !five(l.Max) {
			t.Errorf("%s 5 ms late: send lag %+v, want 5 ms throughout", r.Strategy, l)
		}
		if want := r.Strategy + ": attempts were sent late, p99 5.0ms after their scheduled time (limit 2.0ms)"; len(h.Warnings) > i && !strings.HasPrefix(h.Warnings[i], want) {
			t.Errorf("warning %q, want it to start %q", h.Warnings[i], want)
		}
	}
	if l := h.SendLagMS; l == nil || !five(l.P99) {
		t.Errorf("every cohort's send lag together: %+v, want p99 5 ms", l)
	}
}

// The same on real sockets: CPU hogs in the test's own process keep the
// client goroutines from running when their timers fire, so the harness
// is late, and says so. More load from elsewhere only makes it later.
func TestCPUHogMakesTheHarnessLate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real engine")
	}
	p := scenariotest.Plan(t, selfCheckScenario, scenarios.Overrides{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var spins atomic.Int64
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				for range 100_000 { // no call: preempted only by the runtime, every 10 ms
					spins.Add(1)
				}
			}
		}()
	}
	points, err := Execute(context.Background(), []*scenarios.Plan{p}, Options{Mode: Mode{NoSimReference: true}})
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	s := points[0].Output.Summary
	h := s.Harness
	if h == nil {
		t.Fatal("a real run without a self-check")
	}
	t.Logf("with %d hogs: send lag %+v, spread %+v, target drift %+v, CPU %+v", 4*runtime.GOMAXPROCS(0), h.SendLagMS, h.SpreadMS, h.TargetDriftMS, h.CPU)
	if h.Trustworthy || len(h.Warnings) == 0 {
		t.Errorf("with CPU hogs beside it the harness says it kept up: %+v", h)
	}
	if h.CPU.Cores != runtime.GOMAXPROCS(0) || h.CPU.UserS <= 0 || h.CPU.WallS < 1 || h.CPU.Utilization <= 0 {
		t.Errorf("CPU %+v: want the process's use over the run", h.CPU)
	}
}

// In virtual time there is no harness to be late: no self-check.
func TestNoSelfCheckInVirtualTime(t *testing.T) {
	s := execute(t, []*scenarios.Plan{scenariotest.Plan(t, selfCheckScenario, scenarios.Overrides{})}, Options{Mode: Mode{Sim: true}})[0].Output.Summary
	if s.Harness != nil {
		t.Errorf("a simulated run has a self-check: %+v", *s.Harness)
	}
	for _, r := range s.Runs {
		if r.SendLagMS != nil || r.TargetDriftMS != nil || r.Sim != nil {
			t.Errorf("%s: simulated run with send lag %v, drift %v, sim reference %v", r.Strategy, r.SendLagMS, r.TargetDriftMS, r.Sim)
		}
	}
}

// A real run carries, beside each cohort, the simulator's figures for the
// same plan and seeds: exactly what a simulated run of it says.
func TestRealRunCarriesTheSimulatorsFigures(t *testing.T) {
	ps := []*scenarios.Plan{scenariotest.Plan(t, selfCheckScenario, scenarios.Overrides{})}
	sim := execute(t, ps, Options{Mode: Mode{Sim: true, Runs: 2}})[0].Output.Summary
	real := executeInBubble(t, ps, Options{Mode: Mode{Runs: 2}})[0].Output.Summary
	for i, r := range real.Runs {
		want := results.SimFigures(sim.Runs[i])
		if !reflect.DeepEqual(r.Sim, want) {
			t.Errorf("%s: sim reference %+v, want %+v", r.Strategy, r.Sim, want)
		}
	}
	without := executeInBubble(t, ps, Options{Mode: Mode{NoSimReference: true}})[0].Output.Summary
	for _, r := range without.Runs {
		if r.Sim != nil {
			t.Errorf("%s: a sim reference with NoSimReference", r.Strategy)
		}
	}
}

// Cohorts run apart run one after the other, each from its own t = 0, and
// give the figures they give together: in virtual time the cohorts of a
// run never touch each other anyway.
func TestCohortsApart(t *testing.T) {
	ps := []*scenarios.Plan{scenariotest.Plan(t, selfCheckScenario, scenarios.Overrides{})}
	var starts []time.Time
	var names []string
	apart := executeInBubble(t, ps, Options{Mode: Mode{Cohorts: Apart, Timelines: true}, Watch: Watch{OnRun: func(_, _ int, r *Run) {
		starts = append(starts, r.Origin)
		names = append(names, r.Plan.Strategies[0].Name)
	}}})[0].Output
	together := executeInBubble(t, ps, Options{Mode: Mode{Timelines: true}})[0].Output
	if len(names) != 2 || names[0] != "exp" || names[1] != "full" || starts[1].Sub(starts[0]) < time.Second {
		t.Fatalf("cohort runs %v starting %v: want exp, then full after exp's 1 s", names, starts)
	}
	s := apart.Summary
	if !s.CohortsApart || together.Summary.CohortsApart || len(s.Runs) != 2 || len(apart.Cohorts) != 2 {
		t.Fatalf("apart: cohorts_apart %v (together: %v), %d runs, %d recorders", s.CohortsApart, together.Summary.CohortsApart, len(s.Runs), len(apart.Cohorts))
	}
	for i, r := range s.Runs {
		tr := together.Summary.Runs[i]
		if r.Strategy != tr.Strategy || r.Requests != tr.Requests || r.Attempts != tr.Attempts || r.HerdFactor != tr.HerdFactor || r.FailedAfterFault != tr.FailedAfterFault {
			t.Errorf("%s apart: %d requests, %d attempts, herd %.3f, %d failed after the fault; together: %d, %d, %.3f, %d",
				r.Strategy, r.Requests, r.Attempts, r.HerdFactor, r.FailedAfterFault, tr.Requests, tr.Attempts, tr.HerdFactor, tr.FailedAfterFault)
		}
		if r.SendLagMS == nil || r.Sim == nil {
			t.Errorf("%s apart: send lag %v, sim reference %v", r.Strategy, r.SendLagMS, r.Sim)
		}
	}
	if s.Harness == nil || s.Harness.LimitMS != 2 || s.Harness.CPU.WallS < 2 {
		t.Errorf("apart: harness %+v, want the whole plan's 2 ms limit and both cohorts' wall time", s.Harness)
	}
	// Each cohort says when its own t = 0 was, and so does its .hlog.
	for i, r := range s.Runs {
		if r.Started == nil || !r.Started.Equal(starts[i].UTC().Truncate(time.Millisecond)) || together.Summary.Runs[i].Started != nil {
			t.Errorf("%s: started %v, want %v (and none together)", r.Strategy, r.Started, starts[i])
		}
	}
	dir := t.TempDir()
	if err := folder.Write(dir, apart); err != nil {
		t.Fatal(err)
	}
	hlog, err := os.ReadFile(filepath.Join(dir, "full.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("#[StartTime: %.3f", float64(s.Runs[1].Started.UnixMilli())/1000); !strings.Contains(string(hlog), want) {
		t.Errorf("full.hlog does not start at full's own t = 0 (%s):\n%.300s", want, hlog)
	}
}

func TestApartByDefault(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	outage := plans(t, "outage", "", scenarios.Overrides{})[0]         // 4 closed-loop cohorts
	metastable := plans(t, "metastable", "", scenarios.Overrides{})[0] // 5 open-loop cohorts
	two := plans(t, "outage", "", scenarios.Overrides{Strategies: []string{"no-jitter", "full-jitter"}})[0]
	layers := plans(t, "layers", "", scenarios.Overrides{})[0] // 3 open-loop cohorts, each calling a chain
	if !ApartByDefault(outage) || ApartByDefault(metastable) || ApartByDefault(two) || !ApartByDefault(layers) {
		t.Errorf("2 cores: outage %v, metastable %v, outage with 2 cohorts %v, layers %v; want true, false, false, true",
			ApartByDefault(outage), ApartByDefault(metastable), ApartByDefault(two), ApartByDefault(layers))
	}
	runtime.GOMAXPROCS(8)
	if ApartByDefault(outage) || ApartByDefault(layers) {
		t.Error("8 cores: outage's 4 cohorts and layers' 3 should run together")
	}
}

// Each built-in's limit follows its headline (results.Limit): the
// figures it rests on and its timescales, as docs/results.md lists them.
func TestBuiltinLimits(t *testing.T) {
	ms := time.Millisecond
	for name, want := range map[string]struct {
		figures results.Figures
		limit   time.Duration
	}{
		"outage":         {results.Waves, 10 * ms},
		"jitter-range":   {results.Waves, 10 * ms},
		"metastable":     {results.Counts, 10 * ms},
		"long-lived":     {results.Counts, 10 * ms},
		"aws-contention": {results.Counts, 5 * ms},
		"layers":         {results.Counts, 2 * ms},
	} {
		ts := timescales(plans(t, name, "", scenarios.Overrides{})[0])
		if ts.Figures != want.figures || results.Limit(ts) != want.limit {
			t.Errorf("%s: %s, limit %s; want %s, %s", name, ts.Figures, results.Limit(ts), want.figures, want.limit)
		}
	}
	physics := timescales(physicsPlan(t, true))
	if physics.Figures != results.Waves || results.Limit(physics) != 5*ms {
		t.Errorf("the physics outage: %s, limit %s; want waves, 5 ms (a tenth of its 50 ms queue timeout)", physics.Figures, results.Limit(physics))
	}
}

// crashEdges: the instants an outage mode that crashes begins, a stall's
// end included only when a crash begins with it.
func TestCrashEdges(t *testing.T) {
	p := physicsPlan(t, true)
	if got := crashEdges(p.Chaos); len(got) != 1 || got[0] != 6*time.Second {
		t.Errorf("the physics outage: %v, want [6s] (the stall's start and the outage's end synchronize nobody)", got)
	}
	out := plans(t, "outage", "", scenarios.Overrides{})[0]
	if got := crashEdges(out.Chaos); len(got) != 1 || got[0] != 4500*time.Millisecond {
		t.Errorf("outage: %v, want [4.5s]", got)
	}
	if got := crashEdges(plans(t, "aws-contention", "", scenarios.Overrides{})[0].Chaos); got != nil {
		t.Errorf("aws-contention has no fault: %v", got)
	}
}
