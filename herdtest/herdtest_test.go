package herdtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// retrying is a small user-style retry loop, as a team would write one: up
// to 8 attempts of a POST, each with a 3 s timeout, retrying on a
// transport error or a 5xx, sleeping wait(n) between them.
func retrying(wait func(n int, rng *rand.Rand) time.Duration) func(c *Client) RequestFunc {
	return func(c *Client) RequestFunc {
		return func(ctx context.Context) error {
			var last error
			for n := range 8 {
				if n > 0 {
					select {
					case <-time.After(wait(n, c.Rand)):
					case <-ctx.Done():
						return ctx.Err()
					}
				}
				actx, cancel := context.WithTimeout(ctx, 3*time.Second)
				req, _ := http.NewRequestWithContext(actx, http.MethodPost, c.URL+"work", nil)
				resp, err := c.HTTP.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode < 500 {
						cancel()
						return nil
					}
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
				cancel()
				last = err
			}
			return last
		}
	}
}

func exponential(n int, _ *rand.Rand) time.Duration {
	return min(10*time.Second, 100*time.Millisecond<<n)
}

func fullJitter(n int, rng *rand.Rand) time.Duration {
	return time.Duration(rng.Int64N(int64(exponential(n, nil)) + 1))
}

func byName(s *results.Summary) map[string]results.Run {
	out := map[string]results.Run{}
	for _, r := range s.Runs {
		out[r.Strategy] = r
	}
	return out
}

// The built-in outage with the user's own retry loop in virtual time: the
// plain exponential one stampedes, the jittered one does not, as the
// built-in strategies do (herdbench scenario outage --sim: herd factor
// 135.7 against 2.7).
func TestUserCodeShowsTheStampedeInVirtualTime(t *testing.T) {
	began := time.Now()
	s := Run(t, Options{Scenario: "outage", Clients: 200},
		Cohort{Name: "plain", New: retrying(exponential)},
		Cohort{Name: "jittered", New: retrying(fullJitter), Thresholds: []string{"herd_factor < 10"}},
	)
	runs := byName(s)
	plain, jit := runs["plain"], runs["jittered"]
	t.Logf("wall %s; plain: herd %.1f, failed after fault %d, recovery %s, attempts %d, requests %d; jittered: herd %.1f, failed after fault %d, recovery %s, attempts %d",
		time.Since(began).Round(time.Millisecond), plain.HerdFactor, plain.FailedAfterFault, seconds(plain.RecoveryS), plain.Attempts, plain.Requests, jit.HerdFactor, jit.FailedAfterFault, seconds(jit.RecoveryS), jit.Attempts)
	if plain.Attempts == 0 || jit.Attempts == 0 || plain.Succeeded == 0 {
		t.Fatalf("nothing measured: %+v %+v", plain, jit)
	}
	if plain.HerdFactor < 5*jit.HerdFactor {
		t.Errorf("herd factor plain %.1f, jittered %.1f: want the plain loop's at least 5 times", plain.HerdFactor, jit.HerdFactor)
	}
	if plain.FailedAfterFault <= 3*jit.FailedAfterFault {
		t.Errorf("failed after fault plain %d, jittered %d: want the plain loop's more than 3 times", plain.FailedAfterFault, jit.FailedAfterFault)
	}
	if plain.Amplification <= 1 {
		t.Errorf("plain amplification %.2f: the outage makes it retry", plain.Amplification)
	}
	if len(s.Thresholds) != 1 || !s.Thresholds[0].Pass || s.Thresholds[0].Cohort != "jittered" {
		t.Errorf("thresholds: %+v", s.Thresholds)
	}
}

// Measure checks the thresholds and leaves the verdict to the caller: the
// plain loop fails a herd factor gate.
func TestMeasureReturnsTheVerdict(t *testing.T) {
	s, err := Measure(t, Options{Scenario: "outage", Clients: 100, Out: t.TempDir(), Thresholds: []string{"herd_factor < 5"}},
		Cohort{Name: "plain", New: retrying(exponential)})
	if err != nil {
		t.Fatal(err)
	}
	if results.ThresholdsFailed(s.Thresholds) != 1 || s.Thresholds[0].Value == nil || *s.Thresholds[0].Value < 5 {
		t.Errorf("thresholds: %+v", s.Thresholds)
	}
}

func TestSameSeedSameFigures(t *testing.T) {
	o := Options{Scenario: "outage", Clients: 50, Duration: 8 * time.Second}
	a := Run(t, o, Cohort{Name: "jittered", New: retrying(fullJitter)})
	b := Run(t, o, Cohort{Name: "jittered", New: retrying(fullJitter)})
	ra, rb := a.Runs[0], b.Runs[0]
	// Goroutine order inside a bubble is not fixed, so the target's queue
	// may serve two simultaneous arrivals in either order; the totals of
	// a seed hold within a few attempts.
	if d := ra.Attempts - rb.Attempts; d < -5 || d > 5 || ra.Requests-rb.Requests > 5 || rb.Requests-ra.Requests > 5 {
		t.Errorf("seed %d twice: attempts %d and %d, requests %d and %d", a.Seed, ra.Attempts, rb.Attempts, ra.Requests, rb.Requests)
	}
	t.Logf("seed %d: attempts %d / %d, requests %d / %d", a.Seed, ra.Attempts, rb.Attempts, ra.Requests, rb.Requests)
}

func TestRealTimeOverLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3 s real-time run")
	}
	yaml := `name: small
duration: 3s
seed: 3
target:
  concurrency: 8
  service_time: 2ms
chaos:
  - name: down
    kind: outage
    at: 1s
    for: 500ms
workload:
  clients: 20
  think: exponential(50ms)
`
	s := Run(t, Options{Scenario: "small.yaml", YAML: []byte(yaml), Mode: Real},
		Cohort{Name: "jittered", New: retrying(fullJitter)})
	r := s.Runs[0]
	if r.Attempts == 0 || r.Succeeded == 0 || r.Outcomes["http_5xx"] == 0 || r.Amplification <= 1 {
		t.Errorf("a real run with a 503 outage: %+v", r)
	}
}

// A cohort whose code panics is that cohort's failure, reported with its
// stack; the other cohort runs to the end.
func TestPanickingCohortIsReported(t *testing.T) {
	msgs := runFailing(t, "TestHelperPanics")
	if !strings.Contains(msgs, "cohort broken: client ") || !strings.Contains(msgs, "request panicked: boom") || !strings.Contains(msgs, "herdtest_test.go") {
		t.Errorf("the panic is not reported with its cohort and stack:\n%s", msgs)
	}
	if !strings.Contains(msgs, "healthy cohort ran: true") {
		t.Errorf("the other cohort did not finish:\n%s", msgs)
	}
}

func TestHelperPanics(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestPanickingCohortIsReported")
	}
	s := Run(t, Options{Scenario: "outage", Clients: 20, Duration: 8 * time.Second},
		Cohort{Name: "broken", New: func(c *Client) RequestFunc {
			return func(ctx context.Context) error { panic("boom") }
		}},
		Cohort{Name: "healthy", New: retrying(fullJitter)})
	runs := byName(s)
	t.Logf("healthy cohort ran: %v", runs["healthy"].Succeeded > 0 && runs["broken"].Failed > 0)
}

// A request function that ignores its ctx and does not return by the end
// of the run (plus the grace) is reported; in virtual time the run still
// ends, as the sleep is virtual.
func TestRequestThatDoesNotReturnIsReported(t *testing.T) {
	msgs := runFailing(t, "TestHelperHangs")
	if !strings.Contains(msgs, "cohort stuck: requests still running 1s after the run's end") {
		t.Errorf("not reported:\n%s", msgs)
	}
}

func TestHelperHangs(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestRequestThatDoesNotReturnIsReported")
	}
	Run(t, Options{Scenario: "outage", Clients: 5, Duration: 8 * time.Second, Grace: time.Second},
		Cohort{Name: "stuck", New: func(c *Client) RequestFunc {
			return func(ctx context.Context) error { time.Sleep(time.Hour); return nil }
		}})
}

// A failing threshold fails the test with the thresholds' table, which
// says how many failed once, prefixed as herdtest's other messages are.
func TestFailedThresholdIsSaidOnce(t *testing.T) {
	msgs := runFailing(t, "TestHelperFailsThreshold")
	if n := strings.Count(msgs, "1 of 1"); n != 1 {
		t.Errorf("\"1 of 1\" said %d times, want once:\n%s", n, msgs)
	}
	if !strings.Contains(msgs, "herdtest: thresholds: 1 of 1 FAILED") || !strings.Contains(msgs, "attempts < 1") {
		t.Errorf("the failed threshold is not reported as herdtest's:\n%s", msgs)
	}
}

func TestHelperFailsThreshold(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestFailedThresholdIsSaidOnce")
	}
	yaml := []byte("name: tiny\nduration: 2s\nseed: 1\nworkload:\n  clients: 2\n")
	Run(t, Options{Scenario: "tiny.yaml", YAML: yaml, Thresholds: []string{"attempts < 1"}, Out: t.TempDir()},
		Cohort{Name: "c", New: retrying(fullJitter)})
}

// Code that waits on a real socket in virtual time would hang the test:
// herdtest stops it and says why.
func TestEscapingTheBubbleIsRefused(t *testing.T) {
	msgs := runFailing(t, "TestHelperEscapes")
	if !strings.Contains(msgs, "virtual time has stood still") || !strings.Contains(msgs, "real socket") {
		t.Errorf("not refused clearly:\n%s", msgs)
	}
}

func TestHelperEscapes(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestEscapingTheBubbleIsRefused")
	}
	block := make(chan struct{}) // made outside the bubble: a wait on it is not durable
	Run(t, Options{Scenario: "outage", Clients: 2, Duration: 8 * time.Second, Stall: 2 * time.Second},
		Cohort{Name: "escapes", New: func(c *Client) RequestFunc {
			return func(ctx context.Context) error { <-block; return nil }
		}})
}

// runFailing runs one of the helper tests above in a child process, which
// must fail, and returns its output.
func runFailing(t *testing.T, name string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+name+"$", "-test.v")
	// The failing run keeps its folder under $TMPDIR/herdtest: the test's own.
	cmd.Env = append(os.Environ(), "HERDTEST_HELPER=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("%s: want a failing test, got %v\n%s", name, err, out)
	}
	return string(out)
}

func TestWhatHerdtestCannotRunIsRefused(t *testing.T) {
	good := Cohort{Name: "c", New: retrying(fullJitter)}
	for _, c := range []struct {
		name    string
		o       Options
		cohorts []Cohort
		want    string
	}{
		{"no cohort", Options{Scenario: "outage"}, nil, "no cohort"},
		{"no name", Options{Scenario: "outage"}, []Cohort{{New: good.New}}, "has no Name"},
		{"twice", Options{Scenario: "outage"}, []Cohort{good, good}, `two cohorts are named "c"`},
		{"no code", Options{Scenario: "outage"}, []Cohort{{Name: "c"}}, "no New function"},
		{"external target", Options{Scenario: "x.yaml", YAML: []byte("name: x\nduration: 2s\ntarget:\n  url: http://127.0.0.1:9/\nworkload:\n  clients: 2\n")}, []Cohort{good}, "external target"},
		{"unknown scenario", Options{Scenario: "no-such-scenario"}, []Cohort{good}, "no built-in scenario"},
		{"bad scenario", Options{Scenario: "bad.yaml", YAML: []byte("name: bad\nduration: -2s\n")}, []Cohort{good}, "herdtest: bad.yaml"},
		{"bad threshold", Options{Scenario: "outage", Thresholds: []string{"herd < 3"}}, []Cohort{good}, `threshold "herd < 3"`},
	} {
		_, err := plan(c.o, c.cohorts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if err != nil && !strings.HasPrefix(err.Error(), "herdtest: ") {
			t.Errorf("%s: error %q does not start with \"herdtest: \" as herdtest's other errors do", c.name, err)
		}
	}
}

func seconds(p *float64) string {
	if p == nil {
		return "never"
	}
	return fmt.Sprintf("%.2fs", *p)
}

// TestOpenWorkloadOneClientServesTheArrivals runs an open workload: one
// client (New called once) serves every Poisson arrival, concurrently,
// and each request's round trips are numbered as its own attempts, not
// the client's.
func TestOpenWorkloadOneClientServesTheArrivals(t *testing.T) {
	var built atomic.Int64
	twice := Cohort{Name: "twice", New: func(c *Client) RequestFunc {
		built.Add(1)
		return func(ctx context.Context) error {
			for range 2 { // two round trips per request: attempts 1 and 2
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.URL+"x", nil)
				resp, err := c.HTTP.Do(req)
				if err != nil {
					return err
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			return nil
		}
	}}
	yaml := []byte("name: open\nduration: 5s\nseed: 3\ntarget:\n  concurrency: 50\n  service_time: 5ms\nworkload:\n  kind: open\n  rate: 100\n")
	s := Run(t, Options{Scenario: "open.yaml", YAML: yaml}, twice)
	r := s.Runs[0]
	if built.Load() != 1 {
		t.Errorf("New was called %d times under an open workload, want 1 (one process serves the arrivals)", built.Load())
	}
	if r.Requests < 400 || r.Requests > 600 {
		t.Errorf("%d requests in 5 s at 100 per second, want about 500", r.Requests)
	}
	if r.Amplification < 1.95 || r.Amplification > 2.05 {
		t.Errorf("amplification %.3f, want 2: each request's two round trips are its attempts 1 and 2", r.Amplification)
	}
}

// A failing run's folder goes, without Options.Out and without go test
// -artifacts, under $TMPDIR/herdtest/TESTNAME: a folder the test does not
// remove when it ends, unlike its artifact folder without -artifacts.
func TestFailingRunKeepsItsFolder(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, err := Measure(t, Options{Scenario: "outage", Clients: 20, Duration: 8 * time.Second, Thresholds: []string{"attempts < 1"}},
		Cohort{Name: "jittered", New: retrying(fullJitter)})
	if err != nil {
		t.Fatal(err)
	}
	if results.ThresholdsFailed(s.Thresholds) != 1 {
		t.Fatalf("thresholds: %+v", s.Thresholds)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "herdtest", "TestFailingRunKeepsItsFolder", "outage-*", "report.html"))
	if len(dirs) != 1 {
		t.Errorf("want one report under $TMPDIR/herdtest/TestFailingRunKeepsItsFolder, found %v", dirs)
	}
}

// Code that sends with some other client than the one herdtest hands over
// (http.DefaultClient, an http.Client with a nil Transport) makes requests
// herdtest cannot see: the run says so, and fails, rather than report a
// cohort that never sent. So does a New that returns no request function.
func TestRequestsWithoutRoundTripsAreReported(t *testing.T) {
	msgs := runFailing(t, "TestHelperSendsElsewhere")
	if !strings.Contains(msgs, "cohort elsewhere: its") || !strings.Contains(msgs, "without one round trip through the Client's HTTP or Transport") {
		t.Errorf("not reported:\n%s", msgs)
	}
	if strings.Contains(msgs, "cohort fine: its") {
		t.Errorf("the cohort that used c.HTTP was reported too:\n%s", msgs)
	}
	if !strings.Contains(msgs, "cohort nothing: New returned a nil RequestFunc for client 0") {
		t.Errorf("a New that returns no code is not reported:\n%s", msgs)
	}
}

func TestHelperSendsElsewhere(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestRequestsWithoutRoundTripsAreReported")
	}
	Run(t, Options{Scenario: "outage", Clients: 5, Duration: 8 * time.Second},
		Cohort{Name: "elsewhere", New: func(c *Client) RequestFunc {
			// Stands for a request over a client of its own: nothing
			// through c.HTTP.
			return func(ctx context.Context) error { time.Sleep(50 * time.Millisecond); return nil }
		}},
		Cohort{Name: "fine", New: retrying(fullJitter)},
		Cohort{Name: "nothing", New: func(c *Client) RequestFunc { return nil }})
}

// Every real-time run logs its verdict: the run over loopback, in a test
// of its own, says it in its log.
func TestRealTimeRunLogsItsVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3 s real-time run")
	}
	out := runHelper(t, "TestRealTimeOverLoopback")
	if !strings.Contains(out, "herdtest: verdict: ") {
		t.Errorf("a real-time run's log without its verdict:\n%s", out)
	}
}

// A verdict that is not trustworthy is logged with what the self-check
// saw, and fails the test with Options.FailUntrustworthy, saying why;
// without it the test passes.
func TestUntrustworthyVerdictFailsWhenAsked(t *testing.T) {
	msgs := runFailing(t, "TestHelperUntrustworthy")
	for _, want := range []string{
		"herdtest: verdict: NOT TRUSTWORTHY: late: the clients learned of the crash",
		"herdtest:   - late: the clients learned of the crash",
		"herdtest: NOT TRUSTWORTHY: late: the clients learned of the crash at 1.00s over p99 40ms; run it on a quieter machine (Options.FailUntrustworthy)",
	} {
		if !strings.Contains(msgs, want) {
			t.Errorf("the helper's output lacks %q:\n%s", want, msgs)
		}
	}
	if strings.Count(msgs, "(Options.FailUntrustworthy)") != 1 {
		t.Errorf("want one failure, with the option set, none without:\n%s", msgs)
	}
}

func TestHelperUntrustworthy(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestUntrustworthyVerdictFailsWhenAsked")
	}
	w := "late: the clients learned of the crash at 1.00s over p99 40ms"
	s := &results.Summary{Harness: &results.Harness{Warnings: []string{w}},
		Verdict: &results.Verdict{Outcome: results.NotTrustworthy, Sentence: "NOT TRUSTWORTHY: " + w + "; run it on a quieter machine"}}
	judge(t, Options{Mode: Real}, s)
	judge(t, Options{Mode: Real, FailUntrustworthy: true}, s)
}

// runHelper runs the test name in a process of its own and returns its
// output, failing t when it failed.
func runHelper(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command(os.Args[0], "-test.run", "^"+name+"$", "-test.v").CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	return string(out)
}
