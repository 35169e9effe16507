package recording

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
)

// TestCohortsFirstComeThenOther: the first keys get cohorts of their own,
// later ones go to "other", which names its busiest keys; names are safe.
func TestCohortsFirstComeThenOther(t *testing.T) {
	c := cohorts{max: 2}
	for _, k := range []string{"a", "b", "c", "d", "c", "a", "c"} {
		c.index(k)
	}
	if c.index("a") != 0 || c.index("b") != 1 || c.index("zz") != c.otherIndex() {
		t.Errorf("indexes: a %d, b %d, zz %d", c.index("a"), c.index("b"), c.index("zz"))
	}
	top := c.busiestOther(2)
	if len(top) != 2 || top[0] != (results.KeyCount{Key: "c", Attempts: 3}) || top[1].Key != "d" && top[1].Key != "zz" {
		t.Errorf("busiest of other: %+v", top)
	}
	long := strings.Repeat("é", 40)
	for key, want := range map[string]string{
		"curl/8.5.0":         "curl/8.5.0",
		"a\x00b\nc":          "a?b?c",
		"other":              "other (key)",
		long:                 strings.Repeat("é", 32) + "…",
		string([]byte{0xff}): "?",
	} {
		if got := label(key); got != want {
			t.Errorf("label(%q) = %q, want %q", key, got, want)
		}
	}
	if _, err := ParseCohortBy("header:"); err == nil {
		t.Error("header: without a name accepted")
	}
	for in, want := range map[string]string{"": "all", "all": "all", "User-Agent": "user-agent", "source-ip": "source-ip", "header:x-client": "header:X-Client"} {
		c, err := ParseCohortBy(in)
		if err != nil || c.String() != want {
			t.Errorf("ParseCohortBy(%q) = %v, %v; want %s", in, c, err, want)
		}
	}
}

// TestMisraGriesNeverOvercounts: with more keys than counters, each count
// is at most the truth and a key sent more than N/(k+1) is kept.
func TestMisraGriesNeverOvercounts(t *testing.T) {
	var m misraGries
	truth := map[string]int64{}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		k := fmt.Sprintf("k%d", rng.IntN(3000))
		if i%4 == 0 {
			k = "heavy"
		}
		m.add(k)
		truth[k]++
	}
	for k, v := range m.counts {
		if v > truth[k] {
			t.Errorf("%s counted %d, sent %d", k, v, truth[k])
		}
	}
	if top := m.top(1); len(top) != 1 || top[0].Key != "heavy" {
		t.Errorf("the busiest key: %+v", top)
	}
}

// obs is an observation of a POST from a client with user agent ua and
// headers h, arriving at t0+at and answered after took.
func obs(t0 time.Time, at, took time.Duration, ua string, a target.Answer, h ...string) target.Observation {
	r := httptest.NewRequest(http.MethodPost, "http://proxy/", nil)
	r.Header.Set("User-Agent", ua)
	for i := 0; i+1 < len(h); i += 2 {
		r.Header.Set(h[i], h[i+1])
	}
	return target.Observation{Request: r, Arrived: t0.Add(at), Ended: t0.Add(at + took), Answer: a}
}

// TestRecordingFigures: two clients through one server, one retrying in
// synchronized waves and one spread out: the recording's cohorts, their
// herd factors, attempt numbers and amplification (from amz-sdk-request),
// the figures it cannot tell (null), outcomes as the clients saw them,
// the fault windows, and where the figures come from.
func TestRecordingFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		aws, _ := ParseAttemptHeader(AWSHeader)
		by, _ := ParseCohortBy("user-agent")
		fault := chaos.Timed{Name: "down", Kind: "outage", At: time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}
		r := New(Options{By: "proxy", Address: "127.0.0.1:8090", Upstream: "http://up", Scenario: "g", CohortBy: by, Attempts: aws,
			Faults: func(from, to time.Time) []chaos.Timed { return []chaos.Timed{fault} }})
		r.PlanStarted(t0)
		rng := rand.New(rand.NewPCG(3, 4))
		// Each client makes one request a second, from 0 to 4 s; during the
		// outage (1-2 s) every attempt fails and is retried: the waves
		// client 100 ms later, all at once; the spread client at random.
		for sec := range 4 {
			for i := range 50 {
				at := time.Duration(sec)*time.Second + time.Duration(i)*20*time.Millisecond
				failed := sec == 1
				a := target.AnswerOK
				if failed {
					a = target.Answer5xx
				}
				r.Observe(obs(t0, at, 5*time.Millisecond, "spread/1", a, "amz-sdk-request", "attempt=1; max=2"))
				r.Observe(obs(t0, at, 5*time.Millisecond, "waves/1", a, "amz-sdk-request", "attempt=1; max=2"))
				if failed {
					r.Observe(obs(t0, at+time.Duration(rng.IntN(900))*time.Millisecond, 5*time.Millisecond, "spread/1", target.AnswerOK, "amz-sdk-request", "attempt=2; max=2"))
					r.Observe(obs(t0, time.Duration(sec+1)*time.Second+500*time.Millisecond, 5*time.Millisecond, "waves/1", target.Answer5xx, "amz-sdk-request", "attempt=2; max=2"))
				}
			}
		}
		r.Observe(obs(t0, 3*time.Second, time.Second, "spread/1", target.AnswerAborted)) // no header: counted apart
		time.Sleep(4 * time.Second)
		seg, err := r.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s := seg.Output.Summary
		if len(s.Runs) != 2 || s.Runs[0].Strategy != "spread/1" || s.Runs[1].Strategy != "waves/1" {
			t.Fatalf("cohorts %+v", s.Runs)
		}
		spread, waves := s.Runs[0], s.Runs[1]
		if waves.HerdFactor < 5*spread.HerdFactor || waves.HerdFactor < 5 {
			t.Errorf("herd factor: waves %.2f, spread %.2f; want the waves' far above", waves.HerdFactor, spread.HerdFactor)
		}
		if waves.Attempts != 250 || waves.Requests != 200 || waves.Amplification != 1.25 || waves.Failed != 50 || waves.Succeeded != 150 {
			t.Errorf("waves: attempts %d, requests %d, amplification %g, failed %d, succeeded %d; want 250, 200, 1.25, 50, 150", waves.Attempts, waves.Requests, waves.Amplification, waves.Failed, waves.Succeeded)
		}
		if waves.FailedAfterFault != 50 || waves.Outcomes["http_5xx"] != 100 || waves.LatencyMS.Attempt.P50 < 4.99 || waves.LatencyMS.Attempt.P50 > 5.01 {
			t.Errorf("waves: failed after fault %d, 5xx %d, p50 %g", waves.FailedAfterFault, waves.Outcomes["http_5xx"], waves.LatencyMS.Attempt.P50)
		}
		if slices.Contains(waves.Unmeasured, "requests") || slices.Contains(waves.Unmeasured, "failed") || !slices.Contains(waves.Unmeasured, "latency_ms.request") {
			t.Errorf("waves unmeasured %v: with amz-sdk-request, requests and failed are measured, request latency never", waves.Unmeasured)
		}
		if slices.Contains(spread.Unmeasured, "requests") || spread.Requests != 200 || spread.Attempts != 250 || spread.Outcomes["timeout"] != 0 {
			t.Errorf("spread: unmeasured %v, requests %d, attempts %d, outcomes %v; its one attempt without a header is counted apart, its figures are its numbered attempts'", spread.Unmeasured, spread.Requests, spread.Attempts, spread.Outcomes)
		}
		rec := s.Recorded
		if rec == nil || rec.By != "proxy" || rec.CohortBy != "user-agent" || rec.AttemptHeader != "Amz-Sdk-Request" || rec.AttemptsUnnumbered != 1 || rec.Segment != 1 ||
			!slices.Equal(rec.UnnumberedApart, []results.KeyCount{{Key: "spread/1", Attempts: 1}}) {
			t.Errorf("recorded %+v", rec)
		}
		if len(s.Faults) != 1 || s.Faults[0].AtS != 1 || s.DurationS != 4 || s.Mode != "recorded" {
			t.Errorf("faults %+v, duration %g, mode %s", s.Faults, s.DurationS, s.Mode)
		}
		if !strings.Contains(results.ProvenanceLine(s), "Recorded by the proxy at 127.0.0.1:8090 (upstream http://up), server-side times") {
			t.Errorf("provenance: %s", results.ProvenanceLine(s))
		}
	})
}

// TestRecordingRefuseNote: a refuse outage keeps its attempts from the
// server, and the recording says so; a 503 outage does not.
func TestRecordingRefuseNote(t *testing.T) {
	for _, mode := range []chaos.OutageMode{chaos.Unavailable, chaos.Refuse} {
		synctest.Test(t, func(t *testing.T) {
			fault := chaos.Timed{Kind: "outage", At: time.Second, For: time.Second, Fault: chaos.Outage{Mode: mode}}
			r := New(Options{Faults: func(from, to time.Time) []chaos.Timed { return []chaos.Timed{fault} }})
			t0 := time.Now()
			r.PlanStarted(t0)
			r.Observe(obs(t0, 0, time.Millisecond, "x", target.AnswerOK))
			time.Sleep(3 * time.Second)
			seg, err := r.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			noted := slices.ContainsFunc(seg.Output.Summary.Recorded.Notes, func(n string) bool { return strings.Contains(n, "refuse outage") })
			if noted != (mode == chaos.Refuse) {
				t.Errorf("outage %v: notes %q", mode, seg.Output.Summary.Recorded.Notes)
			}
		})
	}
}

// TestRecordingWindows: a recording longer than its window is given to
// Done one window at a time, each a results folder of its own with its
// place on the plan's clock; a restart of the plan ends the recording; an
// answer that comes after its segment ended still counts there.
func TestRecordingWindows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var done []*results.Summary
		r := New(Options{Window: 10 * time.Second, Done: func(s Segment) {
			mu.Lock()
			defer mu.Unlock()
			done = append(done, s.Output.Summary)
		}})
		t0 := time.Now()
		r.Observe(obs(t0, 0, time.Millisecond, "x", target.AnswerOK)) // before the plan: in nothing
		r.PlanStarted(t0)
		for at := time.Duration(0); at < 25*time.Second; at += 100 * time.Millisecond {
			time.Sleep(time.Until(t0.Add(at)))
			if at == 9900*time.Millisecond {
				go func() { // answered at 10.5 s, after its window ended
					time.Sleep(600 * time.Millisecond)
					r.Observe(obs(t0, at, 600*time.Millisecond, "x", target.AnswerOK))
				}()
				continue
			}
			r.Observe(obs(t0, at, time.Millisecond, "x", target.AnswerOK))
		}
		time.Sleep(time.Until(t0.Add(25 * time.Second)))
		r.PlanStarted(time.Now()) // a restart: the third window ends at 25 s
		r.Wait()
		r.Observe(obs(t0, 24*time.Second, 6*time.Second, "x", target.AnswerOK)) // answered after the third was written
		mu.Lock()
		defer mu.Unlock()
		if len(done) != 3 || r.Unstarted() != 1 || r.Late() != 1 {
			t.Fatalf("%d segments written, %d attempts before the plan, %d answers too late; want 3, 1 and 1", len(done), r.Unstarted(), r.Late())
		}
		for i, want := range []struct {
			offset, duration float64
			attempts         int64
		}{{0, 10, 100}, {10, 10, 100}, {20, 5, 50}} {
			s := done[i]
			if s.Recorded.Segment != i+1 || s.Recorded.PlanOffsetS != want.offset || s.DurationS != want.duration || s.Runs[0].Attempts != want.attempts {
				t.Errorf("segment %d: number %d, offset %g, duration %g, attempts %d; want %v", i, s.Recorded.Segment, s.Recorded.PlanOffsetS, s.DurationS, s.Runs[0].Attempts, want)
			}
		}
	})
}

var dayLength = 24 * 3600

// TestDayLongRecordingMemoryIsBounded advances a simulated day of traffic
// (20 attempts a second from three clients) through a recording with a
// 10-minute window: it is written in 144 windows, and the memory it holds
// stays that of a window or two, from the second hour to the last.
func TestDayLongRecordingMemoryIsBounded(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a simulated day, 1.7 million attempts, and a measure of the heap: without -race and -short (.ci/run runs it so)")
	}
	synctest.Test(t, func(t *testing.T) {
		var segments int
		var mu sync.Mutex
		by, _ := ParseCohortBy("user-agent")
		r := New(Options{CohortBy: by, Window: 10 * time.Minute, Done: func(s Segment) {
			mu.Lock()
			defer mu.Unlock()
			segments++
			if s.Output.Summary.Runs[0].Attempts == 0 {
				t.Errorf("segment %d is empty", s.Output.Summary.Recorded.Segment)
			}
		}})
		t0 := time.Now()
		r.PlanStarted(t0)
		heap := func() uint64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		var early, peak uint64
		uas := []string{"a", "b", "c"}
		req := [3]target.Observation{}
		for i := range req {
			req[i] = obs(t0, 0, 0, uas[i], target.AnswerOK)
		}
		for sec := range dayLength {
			if sec%10 == 0 { // the clock moves on 10 s at a time: the bubble's sleeps cost more than the records
				time.Sleep(time.Until(t0.Add(time.Duration(sec) * time.Second)))
			}
			for i := range 20 {
				o := req[i%3]
				o.Arrived = t0.Add(time.Duration(sec)*time.Second + time.Duration(i)*50*time.Millisecond)
				o.Ended = o.Arrived.Add(3 * time.Millisecond)
				r.Observe(o)
			}
			switch {
			case sec == 2*3600:
				early = heap()
			case sec > 2*3600 && sec%3600 == 1800:
				peak = max(peak, heap())
			}
		}
		time.Sleep(10 * time.Minute)
		r.PlanStarted(time.Now())
		r.Wait()
		// One window: three cohorts' recorders of 10 minutes, 60,000
		// buckets of 22 counts each: 30 MiB; two while one is being
		// written, and each second's latencies.
		const window = uint64(3 * 60000 * int(results.NumSeries) * 8)
		if segments != 144 || peak > 3*window || peak > early+16<<20 {
			t.Errorf("%d segments; heap %d MiB in the second hour, at most %d MiB later (a window is %d MiB)", segments, early>>20, peak>>20, window>>20)
		}
		t.Logf("%d segments; heap %d MiB in the second hour, at most %d MiB later (a window is %d MiB)", segments, early>>20, peak>>20, window>>20)
	})
}

// TestRecordedRatio: a recording's success_ratio is a run's when it knows
// the failures (amz-sdk-request's max); without, the successes over the
// requests seen to start, capped at 100% when first tries never arrived.
func TestRecordedRatio(t *testing.T) {
	for _, c := range []struct {
		name                        string
		requests, succeeded, failed int64
		failedKnown, numbered       bool
		want                        string
		capped                      bool
	}{
		{"failures known", 100, 60, 20, true, true, "75.0%", false},
		{"failures known, first tries refused", 50, 80, 10, true, true, "88.9%", false},
		{"failures unknown", 100, 60, 0, false, true, "60.0%", false},
		{"failures unknown, first tries refused", 50, 80, 0, false, true, "100.0%", true},
		{"failures unknown, all seen succeeded", 50, 50, 0, false, true, "100.0%", false},
		{"nothing", 0, 0, 0, false, true, "–", false},
		{"no attempt numbers", 0, 80, 0, false, false, "?", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := results.Run{Requests: c.requests, Succeeded: c.succeeded, Failed: c.failed, SuccessRatio: results.SuccessRatioOf(c.succeeded, c.failed)}
			if !c.numbered {
				r.Unmeasured = []string{"requests", "success_ratio"}
			}
			capped := recordedRatio(&r, c.failedKnown)
			got := "–"
			switch {
			case r.IsUnmeasured("success_ratio"):
				got = "?"
			case r.SuccessRatio != nil:
				got = fmt.Sprintf("%.1f%%", 100**r.SuccessRatio)
			}
			if got != c.want || capped != c.capped {
				t.Errorf("success_ratio %s (capped %v), want %s (capped %v)", got, capped, c.want, c.capped)
			}
			if r.SuccessRatio != nil && *r.SuccessRatio > 1 {
				t.Errorf("success_ratio %g passes 100%%", *r.SuccessRatio)
			}
		})
	}
}

// TestRecordingCapsSuccess: retries that succeed whose first tries never
// arrived (refused) would make more successes than requests; the
// recording writes 100% and says why in recorded.notes.
func TestRecordingCapsSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h, _ := ParseAttemptHeader("X-Attempt")
		r := New(Options{Attempts: h})
		t0 := time.Now()
		r.PlanStarted(t0)
		for i := range 10 {
			at := time.Duration(i) * 10 * time.Millisecond
			if i < 4 {
				r.Observe(obs(t0, at, time.Millisecond, "c", target.AnswerOK, "X-Attempt", "1"))
			}
			r.Observe(obs(t0, at+500*time.Millisecond, time.Millisecond, "c", target.AnswerOK, "X-Attempt", "2"))
		}
		time.Sleep(2 * time.Second)
		seg, err := r.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		s := seg.Output.Summary
		run := s.Runs[0]
		if run.Requests != 4 || run.Succeeded != 14 || run.SuccessRatio == nil || *run.SuccessRatio != 1 || !run.IsUnmeasured("unfinished") {
			t.Errorf("requests %d, succeeded %d, success_ratio %v, unmeasured %v; want 4, 14, 1 and unfinished unmeasured", run.Requests, run.Succeeded, run.SuccessRatio, run.Unmeasured)
		}
		if !slices.ContainsFunc(s.Recorded.Notes, func(n string) bool { return strings.Contains(n, "capped at 100%") && strings.Contains(n, "for all:") }) {
			t.Errorf("notes %q: no word of the cap", s.Recorded.Notes)
		}
	})
}

// TestUnmeasurable: the figures a recording writes as null (always, or
// without attempt numbers), matched as a threshold names them: a
// percentile below its figure, not a name that merely starts alike.
func TestUnmeasurable(t *testing.T) {
	for _, c := range []struct {
		metric   string
		numbered bool
		want     bool
	}{
		{"latency_ms.request.p99", true, true},
		{"latency_ms.attempt.p99", false, false},
		{"wasted_work", true, true},
		{"amplification", false, true},
		{"amplification", true, false},
		{"success_ratio", false, true},
		{"herd_factor", false, false},
		{"requests_x", false, false},
	} {
		if got := Unmeasurable(c.metric, c.numbered) != ""; got != c.want {
			t.Errorf("Unmeasurable(%q, numbered %v) = %v, want %v", c.metric, c.numbered, got, c.want)
		}
	}
}

// TestRecordingCutAtEnd: a request in flight when the run ended whose
// client closed it within CutGrace of the end was cut by the end (a swarm
// closes its connections then): it is no timeout and in no figure, its
// request counts as started; one its client gave up on before the end, or
// long after it, or that arrived after the end, is a timeout. Without a
// run's length every client that goes away is a timeout.
func TestRecordingCutAtEnd(t *testing.T) {
	for _, run := range []time.Duration{0, 4 * time.Second} {
		synctest.Test(t, func(t *testing.T) {
			t0 := time.Now()
			n, _ := ParseAttemptHeader("X-Retry-Attempt")
			r := New(Options{By: "proxy", Scenario: "g", Attempts: n, Run: run})
			r.PlanStarted(t0)
			for i := range 100 {
				r.Observe(obs(t0, time.Duration(i)*40*time.Millisecond, 5*time.Millisecond, "c", target.AnswerOK, "X-Retry-Attempt", "1"))
			}
			cut := []target.Observation{
				obs(t0, 3990*time.Millisecond, 10*time.Millisecond, "c", target.AnswerAborted, "X-Retry-Attempt", "1"), // closed at the end
				obs(t0, 3500*time.Millisecond, 900*time.Millisecond, "c", target.AnswerAborted, "X-Retry-Attempt", "2"),
			}
			timedOut := []target.Observation{
				obs(t0, 3000*time.Millisecond, 500*time.Millisecond, "c", target.AnswerAborted, "X-Retry-Attempt", "1"), // gave up before the end
				obs(t0, 3900*time.Millisecond, 2*time.Second, "c", target.AnswerAborted, "X-Retry-Attempt", "1"),        // long after it
				obs(t0, 4100*time.Millisecond, 100*time.Millisecond, "c", target.AnswerAborted, "X-Retry-Attempt", "1"), // arrived after it
			}
			for _, o := range append(cut, timedOut...) {
				r.Observe(o)
			}
			time.Sleep(7 * time.Second)
			seg, err := r.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			s := seg.Output.Summary
			c := s.Runs[0]
			wantCut, wantTimeouts := int64(len(cut)), int64(len(timedOut))
			if run == 0 {
				wantCut, wantTimeouts = 0, int64(len(cut)+len(timedOut))
			}
			if s.Recorded.CutAtEnd != wantCut || c.Outcomes["timeout"] != wantTimeouts || c.Attempts != 100+wantTimeouts {
				t.Errorf("run %s: cut at end %d, timeouts %d, attempts %d; want %d, %d, %d", run, s.Recorded.CutAtEnd, c.Outcomes["timeout"], c.Attempts, wantCut, wantTimeouts, 100+wantTimeouts)
			}
			if c.Requests != 104 { // the first tries, cut or not, started their requests
				t.Errorf("run %s: %d requests, want 104", run, c.Requests)
			}
			noted := slices.ContainsFunc(s.Recorded.Notes, func(n string) bool { return strings.Contains(n, "cut short by the run's end") })
			if noted != (wantCut > 0) {
				t.Errorf("run %s: notes %q", run, s.Recorded.Notes)
			}
		})
	}
}

// SetRun's length replaces Options.Run from the next start of the plan;
// SetRun(0) restores it.
func TestRecordingSetRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := New(Options{By: "proxy", Scenario: "g", Run: 6 * time.Second})
		closedAt := func(run time.Duration) int64 {
			r.SetRun(run)
			t0 := time.Now()
			r.PlanStarted(t0)
			r.Observe(obs(t0, 3990*time.Millisecond, 20*time.Millisecond, "c", target.AnswerOK))
			r.Observe(obs(t0, 3990*time.Millisecond, 20*time.Millisecond, "c", target.AnswerAborted)) // closed at 4.01 s
			time.Sleep(5 * time.Second)
			seg, err := r.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			return seg.Output.Summary.Recorded.CutAtEnd
		}
		if n := closedAt(4 * time.Second); n != 1 {
			t.Errorf("a 4 s run: %d cut at its end, want 1", n)
		}
		if n := closedAt(0); n != 0 {
			t.Errorf("the scenario's 6 s again: %d cut at 4 s, want 0 (a timeout)", n)
		}
	})
}

// --cohort-by header:Authorization named each cohort by its credentials,
// which summary.json, the report and the live page then wrote.
func TestCohortByACredentialHeaderIsRefused(t *testing.T) {
	for _, in := range []string{"header:Authorization", "header:cookie", "header:X-Api-Key", "header:Proxy-Authorization"} {
		if _, err := ParseCohortBy(in); err == nil || !strings.Contains(err.Error(), "carries credentials") {
			t.Errorf("%s: %v", in, err)
		}
	}
	if _, err := ParseCohortBy("header:X-Client-Name"); err != nil {
		t.Error(err)
	}
}

// TestOneUnnumberedAttemptKeepsTheCohortsFigures: one request without the
// attempt header (a load balancer's health check) among a cohort's
// numbered attempts is counted apart, said so in the summary, and leaves
// the cohort's requests and amplification those of its numbered attempts;
// it once made them null for the whole cohort. A cohort whose attempts all
// lack the header, or a recording that reads none, still has them null.
func TestOneUnnumberedAttemptKeepsTheCohortsFigures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		numbers, _ := ParseAttemptHeader("X-Attempt")
		by, _ := ParseCohortBy("header:X-Client")
		for _, header := range []AttemptHeader{numbers, {}} {
			r := New(Options{By: "target", Scenario: "g", CohortBy: by, Attempts: header})
			r.PlanStarted(t0)
			for i := range 100 {
				at := time.Duration(i) * 10 * time.Millisecond
				r.Observe(obs(t0, at, time.Millisecond, "curl", target.Answer5xx, "X-Client", "fleet", "X-Attempt", "1"))
				r.Observe(obs(t0, at+5*time.Millisecond, time.Millisecond, "curl", target.AnswerOK, "X-Client", "fleet", "X-Attempt", "2"))
				if i%50 == 0 {
					r.Observe(obs(t0, at, time.Millisecond, "ELB-HealthChecker/2.0", target.AnswerOK, "X-Client", "fleet"))
					r.Observe(obs(t0, at, time.Millisecond, "ELB-HealthChecker/2.0", target.AnswerOK, "X-Client", "probe"))
				}
			}
			time.Sleep(2 * time.Second)
			seg, err := r.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			s := seg.Output.Summary
			if len(s.Runs) != 2 || s.Runs[0].Strategy != "fleet" || s.Runs[1].Strategy != "probe" {
				t.Fatalf("cohorts %+v", s.Runs)
			}
			fleet, probe := s.Runs[0], s.Runs[1]
			if header.Name == "" {
				if !fleet.IsUnmeasured("amplification") || !probe.IsUnmeasured("requests") || fleet.Attempts != 202 || s.Recorded.UnnumberedApart != nil {
					t.Errorf("no attempt header: fleet unmeasured %v, %d attempts, apart %v; want every figure that needs a number null, every attempt counted", fleet.Unmeasured, fleet.Attempts, s.Recorded.UnnumberedApart)
				}
				continue
			}
			if fleet.IsUnmeasured("requests") || fleet.IsUnmeasured("amplification") || fleet.Requests != 100 || fleet.Attempts != 200 || fleet.Amplification != 2 || fleet.Outcomes["ok"] != 100 {
				t.Errorf("fleet: unmeasured %v, requests %d, attempts %d, amplification %g, ok %d; want its 100 requests of 2 numbered attempts, the 2 health checks apart",
					fleet.Unmeasured, fleet.Requests, fleet.Attempts, fleet.Amplification, fleet.Outcomes["ok"])
			}
			if !probe.IsUnmeasured("requests") || !probe.IsUnmeasured("amplification") || probe.Attempts != 2 {
				t.Errorf("probe: unmeasured %v, %d attempts; a cohort of unnumbered attempts alone keeps them, its requests null", probe.Unmeasured, probe.Attempts)
			}
			rec := s.Recorded
			if rec.AttemptsUnnumbered != 4 || !slices.Equal(rec.UnnumberedApart, []results.KeyCount{{Key: "fleet", Attempts: 2}}) {
				t.Errorf("recorded: unnumbered %d, apart %v; want 4, and fleet's 2 apart", rec.AttemptsUnnumbered, rec.UnnumberedApart)
			}
			if notes := strings.Join(rec.Notes, " "); !strings.Contains(notes, "2 attempts had no readable X-Attempt header") || !strings.Contains(notes, "counted apart (unnumbered_apart: fleet 2)") || !strings.Contains(notes, "all lacked") {
				t.Errorf("notes: %s", notes)
			}
		}
	})
}
