package results

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLagLimit(t *testing.T) {
	for _, c := range []struct {
		bases []time.Duration
		want  time.Duration
	}{
		{nil, 10 * time.Millisecond},                                                // no backoff: the 10 ms bucket
		{[]time.Duration{0}, 10 * time.Millisecond},                                 // retry at once: no limit of its own
		{[]time.Duration{time.Second}, 10 * time.Millisecond},                       // a tenth is 100 ms: the bucket is tighter
		{[]time.Duration{100 * time.Millisecond, 0}, 10 * time.Millisecond},         // the built-in outage
		{[]time.Duration{time.Second, 50 * time.Millisecond}, 5 * time.Millisecond}, // the smallest base decides
		{[]time.Duration{5 * time.Millisecond}, 2 * time.Millisecond},               // aws-contention: a tenth is 500 µs, the floor is 2 ms
		{[]time.Duration{30 * time.Millisecond}, 3 * time.Millisecond},              // a tenth
	} {
		if got := LagLimit(c.bases); got != c.want {
			t.Errorf("LagLimit(%v) = %s, want %s", c.bases, got, c.want)
		}
	}
}

func TestJudge(t *testing.T) {
	runs := []Run{
		{Strategy: "calm", SendLagMS: &Lag{P50: 0.1, P99: 0.9, Max: 30}, TargetDriftMS: &Lag{P50: 0.5, P99: 9}},
		{Strategy: "at-the-limit", SendLagMS: &Lag{P99: 2}, TargetDriftMS: &Lag{P50: 2, P99: 2}},
		{Strategy: "external"}, // no figures of its own (an external target, or no attempts)
	}
	h := &Harness{LimitMS: 2}
	Judge(h, runs)
	if !h.Trustworthy || len(h.Warnings) != 0 {
		t.Fatalf("send lag p99 and drift p50 within 2 ms (a send lag max, a drift p99 above are allowed): trustworthy %v, warnings %q", h.Trustworthy, h.Warnings)
	}
	runs[1].SendLagMS.P99 = 2.5
	runs[0].TargetDriftMS.P50 = 7
	Judge(h, runs)
	if h.Trustworthy || len(h.Warnings) != 2 {
		t.Fatalf("a send lag p99 and a drift p50 over the limit: trustworthy %v, warnings %q", h.Trustworthy, h.Warnings)
	}
	for i, want := range []string{
		"calm: the embedded target ended its modelled waits late, p50 7.0ms (limit 2.0ms)",
		"at-the-limit: attempts were sent late, p99 2.5ms after their scheduled time (limit 2.0ms)",
	} {
		if !strings.HasPrefix(h.Warnings[i], want) {
			t.Errorf("warning %d: %q, want it to start %q", i, h.Warnings[i], want)
		}
	}
}

// A real-time (shared) recorder keeps every attempt's send lag; a
// simulated (unshared) one keeps none; Reset forgets it.
func TestSendLagRecorded(t *testing.T) {
	rec := NewRecorder(10*time.Second, 4)
	for i := range 1000 {
		lag := 100 * time.Microsecond
		if i >= 990 {
			lag = 40 * time.Millisecond // the slowest 1%
		}
		rec.Shard(i).Attempt(Attempt{Sent: time.Duration(i) * time.Millisecond, Latency: time.Millisecond, Number: 1, Lag: lag})
	}
	h := rec.SendLag()
	if h.TotalCount() != 1000 {
		t.Fatalf("%d lags recorded, want 1000", h.TotalCount())
	}
	l := LagOf(h)
	if l.P50 != 0.1 || l.P99 != 0.1 || math.Abs(l.Max-40) > 0.4 {
		t.Errorf("lag %+v, want p50 and p99 0.1 ms (the 99th percentile is the last of the fast ones), max 40 ms", *l)
	}
	rec.Shard(0).Attempt(Attempt{Sent: time.Second, Number: 1, Lag: -time.Millisecond}) // a clock that stepped back: no lateness
	if got := rec.SendLag().TotalCount(); got != 1001 || rec.SendLag().Min() != 0 {
		t.Errorf("a negative lag: %d recorded, min %d µs; want it counted as 0", got, rec.SendLag().Min())
	}
	rec.Reset()
	if LagOf(rec.SendLag()) != nil {
		t.Error("Reset kept the send lag")
	}

	sim := NewRecorder(10*time.Second, 1).Unshared()
	sim.Shard(0).Attempt(Attempt{Sent: time.Second, Number: 1, Lag: time.Millisecond})
	if LagOf(sim.SendLag()) != nil {
		t.Error("an unshared (simulated) recorder recorded a send lag")
	}
}

func TestSelfCheckLine(t *testing.T) {
	if line := SelfCheckLine(&Summary{Mode: "sim"}); line != "" {
		t.Errorf("a simulated run has no self-check, got %q", line)
	}
	load := 3.25
	s := &Summary{Harness: &Harness{
		Trustworthy: true, LimitMS: 10,
		SendLagMS:     &Lag{P50: 0.35, P99: 4.25, Max: 12},
		TargetDriftMS: &Lag{P50: 0.1, P99: 0.8, Max: 3},
		CPU:           CPU{Cores: 2, Utilization: 0.414, LoadAvg1m: &load},
	}}
	want := "self-check: send lag p50 350µs, p99 4.2ms, max 12.0ms; target drift p50 100µs, p99 800µs (waves: limit 10.0ms on each cohort's p99, drift p50); CPU 41% of 2 cores, load average 3.2: the harness kept up."
	if got := SelfCheckLine(s); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// The line's figures are over every cohort; when one cohort alone was
	// late, the line says which, or its figures would seem to contradict it.
	s.Harness.Trustworthy = false
	s.Harness.Warnings = []string{"no-jitter: attempts were sent late, p99 20.0ms after their scheduled time (limit 10.0ms)"}
	want = "self-check: send lag p50 350µs, p99 4.2ms, max 12.0ms; target drift p50 100µs, p99 800µs (waves: limit 10.0ms on each cohort's p99, drift p50); CPU 41% of 2 cores, load average 3.2: NOT TRUSTWORTHY, the harness could not keep up (no-jitter: attempts were sent late, p99 20.0ms after their scheduled time (limit 10.0ms))."
	if got := SelfCheckLine(s); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}

	// A run with crashes says how far apart its clients learned of them; a
	// counts scenario is judged on medians.
	s.Harness.SpreadMS = &Lag{P50: 12, P99: 31.5, Max: 38}
	s.Harness.Figures, s.Harness.LimitMS, s.Harness.Warnings, s.Harness.Trustworthy = Counts, 5, nil, true
	want = "self-check: send lag p50 350µs, p99 4.2ms, max 12.0ms; spread after crashes p50 12.0ms, p99 31.5ms, max 38.0ms; target drift p50 100µs, p99 800µs (counts: limit 5.0ms on each cohort's p50, 10× on p99); CPU 41% of 2 cores, load average 3.2: the harness kept up."
	if got := SelfCheckLine(s); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// The limit follows what the headline rests on: each built-in's figures
// and timescales, and the rule's edges.
func TestLimit(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name string
		ts   Timescales
		want time.Duration
	}{
		{"outage (waves, base 100 ms, queue timeout 1 s)", Timescales{Waves, []time.Duration{100 * ms, 100 * ms}, time.Second, 0}, 10 * ms},
		{"the physics outage (waves, queue timeout 50 ms)", Timescales{Waves, []time.Duration{100 * ms}, 50 * ms, 0}, 5 * ms},
		{"waves, queue timeout 10 ms: the floor", Timescales{Waves, []time.Duration{100 * ms}, 10 * ms, 0}, 2 * ms},
		{"aws-contention (counts, base 5 ms, hop 10 ms)", Timescales{Counts, []time.Duration{0, 5 * ms, 5 * ms}, 0, 10 * ms}, 5 * ms},
		{"aws-contention as waves (the old rule)", Timescales{Waves, []time.Duration{0, 5 * ms}, 0, 10 * ms}, 2 * ms},
		{"layers (counts, base 10 ms, hop 1 ms: a 2 ms round trip)", Timescales{Counts, []time.Duration{10 * ms}, 10 * time.Second, ms}, 2 * ms},
		{"metastable (counts, base 100 ms, no hop)", Timescales{Counts, []time.Duration{100 * ms}, 10 * time.Second, 0}, 10 * ms},
		{"counts, hop 3 ms: a 6 ms round trip", Timescales{Counts, []time.Duration{100 * ms}, 0, 3 * ms}, 6 * ms},
		{"counts ignore the queue timeout", Timescales{Counts, []time.Duration{100 * ms}, 20 * ms, 0}, 10 * ms},
	} {
		if got := Limit(c.ts); got != c.want {
			t.Errorf("%s: Limit = %s, want %s", c.name, got, c.want)
		}
	}
}

// A counts scenario is judged on medians, and on a tail ten times as
// long: a tail of late attempts (the start of a one-shot workload, a GC
// pause) is not a reason to distrust a total until it is as late as the
// waits, typical lateness is. A waves scenario is judged on the tail, the
// spread after a crash included.
func TestJudgeByFigures(t *testing.T) {
	runs := []Run{{Strategy: "exponential", SendLagMS: &Lag{P50: 0.4, P99: 38, Max: 400}, TargetDriftMS: &Lag{P50: 0.6, P99: 31}}}
	h := &Harness{Figures: Counts, LimitMS: 5}
	Judge(h, runs)
	if !h.Trustworthy {
		t.Fatalf("counts, send lag p50 0.4 ms against 5 ms: %q", h.Warnings)
	}
	runs[0].SendLagMS.P99 = 59.4 // a tail longer than the waits: the lockstep broken
	Judge(h, runs)
	if want := "exponential: attempts were sent late, p99 59.4ms after their scheduled time (limit 50.0ms): counts and completion times are off"; h.Trustworthy || len(h.Warnings) != 1 || h.Warnings[0] != want {
		t.Errorf("counts, send lag p99 59.4 ms: %v %q, want %q", h.Trustworthy, h.Warnings, want)
	}
	runs[0].SendLagMS.P99 = 38
	runs[0].SendLagMS.P50 = 6
	Judge(h, runs)
	if want := "exponential: attempts were sent late, p50 6.0ms after their scheduled time (limit 5.0ms): counts and completion times are off"; h.Trustworthy || len(h.Warnings) != 1 || h.Warnings[0] != want {
		t.Errorf("counts, send lag p50 6 ms: %v %q, want %q", h.Trustworthy, h.Warnings, want)
	}
	h.Figures = Waves
	runs[0].SendLagMS = &Lag{P50: 0.3, P99: 1.6, Max: 3}
	runs[0].TargetDriftMS = &Lag{P50: 0.2, P99: 0.9}
	runs[0].SpreadMS = &Lag{P50: 14, P99: 31, Max: 38}
	runs[0].SpreadEvents = []Event{{AtS: 6, Attempts: 1000, Lag: *runs[0].SpreadMS}}
	Judge(h, runs)
	want := "exponential: the clients learned of the crash at 6.00s over p99 31.0ms (max 38.0ms) where the model has them learn at once (limit 5.0ms): its waves are wider than the model's, the herd factor and the failures after the fault are off"
	if h.Trustworthy || len(h.Warnings) != 1 || h.Warnings[0] != want {
		t.Errorf("waves, on time but spread 31 ms: %v %q, want %q", h.Trustworthy, h.Warnings, want)
	}
	runs[0].SpreadMS.P99 = 4.5
	if Judge(h, runs); !h.Trustworthy {
		t.Errorf("waves, spread p99 4.5 ms against 5 ms: %q", h.Warnings)
	}
}

// The spread: an attempt in flight across a crash counts, as the time
// from the crash to its end, toward that crash alone; one sent after it,
// or ended before it, does not. A recorder without edges keeps nothing.
func TestSpreadRecorded(t *testing.T) {
	ms := time.Millisecond
	rec := NewRecorder(10*time.Second, 4)
	rec.SetEdges([]time.Duration{2 * time.Second, 6 * time.Second})
	for i := range 100 {
		// Sent during the second before the crash at 6 s, ended i ms after it.
		rec.Shard(i).Attempt(Attempt{Sent: 5*time.Second + time.Duration(i)*ms, Latency: time.Second - time.Duration(i)*ms + time.Duration(i)*ms, Number: 1, Outcome: Reset})
	}
	rec.Shard(0).Attempt(Attempt{Sent: 6 * time.Second, Latency: 5 * ms, Number: 2})   // sent at the crash: after it
	rec.Shard(1).Attempt(Attempt{Sent: 5 * time.Second, Latency: 999 * ms, Number: 1}) // ended before it
	rec.Shard(2).Attempt(Attempt{Sent: 1900 * ms, Latency: 4200 * ms, Number: 1})      // across both: the first ended it
	rec.Shard(3).Attempt(Attempt{Sent: 1999 * ms, Latency: 1*ms + 7*ms, Number: 1})    // the first crash, 7 ms late
	sp := rec.Spread()
	if len(sp) != 2 || sp[0].At != 2*time.Second || sp[1].At != 6*time.Second {
		t.Fatalf("spread %+v", sp)
	}
	if n := sp[0].H.TotalCount(); n != 2 {
		t.Errorf("the crash at 2 s: %d attempts, want 2", n)
	}
	all, events := SpreadOf(sp)
	if len(events) != 2 || events[1].Attempts != 100 || events[1].AtS != 6 || events[0].Attempts != 2 {
		t.Fatalf("events %+v", events)
	}
	if e := events[1]; e.P50 < 49 || e.P50 > 50.5 || e.Max < 98.5 || e.Max > 100 {
		t.Errorf("the crash at 6 s: %+v, want p50 ~49 ms, max ~99 ms", e.Lag)
	}
	if all == nil || all.Max < 2199 {
		t.Errorf("over both crashes: %+v, want max 2.2 s (the attempt across both ended 2.2 s after the first)", all)
	}
	if none := NewRecorder(time.Second, 1); none.Spread() != nil {
		t.Error("a recorder without edges has a spread")
	}
	if l, ev := SpreadOf([]EdgeSpread{{At: time.Second, H: NewLagHistogram()}}); l != nil || len(ev) != 1 || ev[0].Attempts != 0 {
		t.Errorf("a crash with nothing in flight: %v %v", l, ev)
	}
}

// BenchmarkRecordAttemptSpread: recording an attempt on a recorder
// without crashes (no-edges), and on one that measures the spread of two,
// for an attempt that spans none (the cost every attempt pays) and one
// that spans a crash (each client's reply after one).
func BenchmarkRecordAttemptSpread(b *testing.B) {
	for _, c := range []struct {
		name          string
		edges, across bool
	}{{"no-edges", false, false}, {"none", true, false}, {"across", true, true}} {
		across := c.across
		b.Run(c.name, func(b *testing.B) {
			r := NewRecorder(time.Hour, 8)
			if c.edges {
				r.SetEdges([]time.Duration{20 * time.Minute, 40 * time.Minute})
			}
			sh := r.Shard(3)
			step := time.Second / 10000
			wrap := int(20 * time.Minute / step)
			lat := time.Duration(0)
			if across {
				lat = 20 * time.Minute
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				sh.Attempt(Attempt{Sent: time.Duration(i%wrap) * step, Latency: lat + time.Duration(i%5000)*time.Microsecond, Number: 1 + i%4, Outcome: Outcome(i % 3)})
			}
		})
	}
}

// A threshold on a self-check figure reads null where the run has none (a
// simulated run), rather than failing to read it.
func TestThresholdOnAbsentSelfCheck(t *testing.T) {
	s := &Summary{Runs: []Run{{Strategy: "sim"}, {Strategy: "real", SendLagMS: &Lag{P99: 3}}}}
	th := Threshold{Metric: "send_lag_ms.p99", Op: LessEq, Limit: 5, Expr: "send_lag_ms.p99 <= 5"}
	got := CheckThresholds(s, []Threshold{th}, nil)
	if len(got) != 2 || got[0].Value != nil || got[0].Pass || got[1].Value == nil || *got[1].Value != 3 || !got[1].Pass {
		t.Errorf("got %+v", got)
	}
	for _, name := range MetricNames() {
		if strings.HasPrefix(name, "sim.") {
			t.Errorf("MetricNames lists %s: the simulator's reference is not a figure of the run", name)
		}
	}
}

// The simulator's reference is a cohort's own figures, or with repetitions
// their means; recovery_s over the repetitions that recovered, missing if
// none did; it marshals in Run's order, a missing figure as null or, where
// runs[] leaves it out, absent.
func TestSimFigures(t *testing.T) {
	rec, calls := 1.5, int64(40)
	one := Run{Requests: 100, Succeeded: 99, Attempts: 130, Amplification: 1.3, HerdFactor: 12.25, FailedAfterFault: 7, RecoveryS: &rec, Calls: &calls}
	ref := SimFigures(one)
	if ref["requests"] != 100 || ref["attempts"] != 130 || ref["herd_factor"] != 12.25 || ref["failed_after_fault"] != 7 || ref["recovery_s"] != 1.5 || ref["calls"] != 40 {
		t.Errorf("one run: %v", ref)
	}
	if _, ok := ref.Get("completion_s"); ok {
		t.Errorf("one run: completion_s %v, want missing", ref["completion_s"])
	}
	b, err := json.Marshal(ref)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"requests":100,"succeeded":99,"failed":0,"unfinished":0,"success_ratio":null,"attempts":130,"amplification":1.3,"peak_attempts_per_s":0,"herd_factor":12.25,"failed_after_fault":7,"recovery_s":1.5,"calls":40,"transport_resends":null}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	var back Values
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, ref) {
		t.Errorf("read back %v (%v), want %v", back, err, ref)
	}
	a, c := 2.0, 4.0
	reps := []Run{one, {Requests: 200, Attempts: 330, HerdFactor: 2, RecoveryS: &a}, {Requests: 300, Attempts: 230, RecoveryS: &c}}
	reps[2].Calls = &calls
	reps[1].Calls = &calls
	ref = SimFigures(Aggregate(reps))
	if ref["requests"] != 200 || ref["attempts"] != 230 || ref["recovery_s"] != 2.5 || ref["calls"] != 40 {
		t.Errorf("three repetitions: %v, want means (requests 200, attempts 230, recovery 2.5 s)", ref)
	}
	for i := range reps {
		reps[i].RecoveryS = nil
	}
	if v, ok := SimFigures(Aggregate(reps)).Get("recovery_s"); ok {
		t.Errorf("no repetition recovered: recovery_s %v, want missing", v)
	}
}

// ModelMoved names each figure of ModelChecks that moved beyond its
// tolerance (relative and absolute) between the model's and another
// run's: what the verdict's bands call outside.
func TestModelMoved(t *testing.T) {
	sim := Values{"herd_factor": 61.7, "failed_after_fault": 1552, "recovery_s": 7.85}
	for _, c := range []struct {
		name string
		late Values
		want string // the figures moved; "" for none
	}{
		{"none", nil, ""},
		{"unmoved", Values{"herd_factor": 61.7, "failed_after_fault": 1552, "recovery_s": 7.85}, ""},
		{"within", Values{"herd_factor": 47, "failed_after_fault": 1250, "recovery_s": 6.0}, ""},
		{"recovery", Values{"herd_factor": 58.9, "failed_after_fault": 1448, "recovery_s": 3.21}, "recovery 3.21s instead of 7.85s"},
		{"three", Values{"herd_factor": 45, "failed_after_fault": 1164, "recovery_s": 3.22}, "herd factor 45.0 instead of 61.7, failed after fault 1164 instead of 1552, recovery 3.22s instead of 7.85s"},
		{"up", Values{"herd_factor": 80, "failed_after_fault": 1552, "recovery_s": 7.85}, "herd factor 80.0 instead of 61.7"},
		{"lost", Values{"herd_factor": 61.7, "failed_after_fault": 1552}, "recovery never instead of 7.85s"},
	} {
		if got := strings.Join(ModelMoved(sim, c.late), ", "); got != c.want {
			t.Errorf("%s: moved %q, want %q", c.name, got, c.want)
		}
	}
	// Small counts move by their absolute tolerance, not their ratio.
	if got := ModelMoved(Values{"failed_after_fault": 0}, Values{"failed_after_fault": 9}); len(got) > 0 {
		t.Errorf("0 against 9 failures after the fault (within 10): moved %q", got)
	}
}

// LateVerdict: the three rows read together say what moved the real
// figures from the simulator's.
func TestLateVerdict(t *testing.T) {
	sim := Values{"herd_factor": 135.7, "failed_after_fault": 443, "recovery_s": 3.91}
	for _, c := range []struct {
		name    string
		herd    float64
		failed  int64
		late    Values
		want    string // the verdict's start, "" for none
		figures string // what it names, if anything
	}{
		{"no second opinion", 43.5, 393, nil, "", ""},
		{"all agree", 130, 440, Values{"herd_factor": 126, "failed_after_fault": 428, "recovery_s": 3.99}, "", ""},
		{"the harness", 43.5, 393, Values{"herd_factor": 40, "failed_after_fault": 380, "recovery_s": 3.95}, "by this harness's lateness", ""},
		{"more than the harness", 20, 200, Values{"herd_factor": 80, "failed_after_fault": 430, "recovery_s": 3.95}, "by more than this harness's lateness", "herd factor 20.0 instead of 80.0, failed after fault 200 instead of 430"},
		{"between", 43.5, 393, Values{"herd_factor": 25.8, "failed_after_fault": 347, "recovery_s": 4.03}, "by this harness's lateness, or less of it", ""},
		{"not the harness", 43.5, 393, Values{"herd_factor": 130, "failed_after_fault": 440, "recovery_s": 3.9}, "not by this harness's lateness", "herd factor 43.5 instead of 135.7"},
	} {
		rec := 3.95
		r := Run{Strategy: "no-jitter", HerdFactor: c.herd, FailedAfterFault: c.failed, RecoveryS: &rec, Sim: sim, SimLate: c.late}
		got := LateVerdict(r)
		if !strings.HasPrefix(got, c.want) || (c.want == "") != (got == "") || !strings.Contains(got, c.figures) {
			t.Errorf("%s: %q, want it to start %q and name %q", c.name, got, c.want, c.figures)
		}
	}
}
