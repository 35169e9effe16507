package main

import (
	"bytes"
	"context"
	"errors"
	"github.com/herdbench/herdbench/target/model"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/target"
)

// executeInBubble makes the scenario command run the real engine (its
// swarm, targets and self-check, and the simulator beside them), and the
// calibration of --slow-motion auto, in a synctest bubble over an
// in-memory network, late before each send by what late returns (nil:
// on time); it restores the real ones when t ends.
func executeInBubble(t *testing.T, late func() time.Duration) {
	t.Helper()
	was, wasCal := execute, calibrate
	t.Cleanup(func() { execute, calibrate = was, wasCal })
	bubble := func(o engine.Options, f func(engine.Options)) {
		synctest.Test(t, func(t *testing.T) {
			n := &memnet.Network{}
			o.Listen, o.Dial = n.Listen, n.Dial
			if late != nil {
				o.BeforeSend = func() { time.Sleep(late()) }
			}
			f(o)
		})
	}
	execute = func(ctx context.Context, ps []*scenarios.Plan, o engine.Options) (points []engine.Point, err error) {
		bubble(o, func(o engine.Options) { points, err = engine.Execute(ctx, ps, o) })
		return points, err
	}
	calibrate = func(ctx context.Context, p *scenarios.Plan, o engine.Options) (cal *engine.Calibration, err error) {
		bubble(o, func(o engine.Options) { cal, err = engine.Calibrate(ctx, p, o) })
		return cal, err
	}
}

// lateBy returns a lateness for executeInBubble that cycles through 0,
// step, 2 step, ... (n-1) step, one send after another: a harness whose
// sends come apart, as a busy machine's do (a constant lateness moves
// every wave whole and changes none of its figures).
func lateBy(step time.Duration, n int) func() time.Duration {
	var i atomic.Int64
	return func() time.Duration { return time.Duration(i.Add(1)%int64(n)) * step }
}

// progressLine is a line of the progress printed while a run goes on
// (not on a terminal): "cohort 2 of 4: full-jitter", "t=  4.7s ...".
var progressLine = regexp.MustCompile(`^(cohort \d+ of \d+: |t=\s*\d)`)

// endingOf is what a command printed after its last line of progress: its
// answer, as a user reads it on one terminal (stdout and stderr together).
func endingOf(out string) []string {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if progressLine.MatchString(lines[i]) {
			return lines[i+1:]
		}
	}
	return lines
}

// TestMainJobEndsInTwentyLines: the main job, herdbench scenario
// outage.yaml, ends in at most 20 lines of at most 120 columns: the
// verdict, the comparison in brief with the simulator's figures beside
// the run's, the sparklines and the results folder. It once ended in 57
// lines, 23 of them wider than 160 columns, its verdict last. The real
// engine runs it in virtual time (a synctest bubble), --slow-motion auto
// calibrating in the bubble too, on time and with sends late by 0 to
// 300 ms (the harness of a very busy machine: not trustworthy, exit 5,
// the model's second opinion asked, the longest answer); --explain then
// prints what the answer left out.
func TestMainJobEndsInTwentyLines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the main job in the real engine, in virtual time")
	}
	if raceEnabled {
		t.Skip("runs 2,000 clients in the real engine: without -race only (.ci/run runs it so)")
	}
	for _, c := range []struct {
		name string
		late func() time.Duration
		code int
		want []string
	}{
		{"on time", nil, exitOK, []string{"Exact: every headline figure agrees", "strategy (sim)", " (135.7) "}},
		{"late by 0 to 300ms", lateBy(20*time.Millisecond, 16), exitUntrustworthy, []string{"NOT TRUSTWORTHY", "strategy (sim)", "on figures not trustworthy: exit code 5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			executeInBubble(t, c.late)
			out := t.TempDir()
			t.Chdir(t.TempDir()) // no outage.yaml here: the built-in runs
			var b syncBuffer
			code := run(context.Background(), []string{"scenario", "outage.yaml", "--out", out, "--no-png"}, &b, &b)
			if code != c.code {
				t.Fatalf("exit %d:\n%s", code, b.String())
			}
			if c.late == nil && !strings.Contains(b.String(), "slow motion auto: with the cohorts together, ") {
				t.Errorf("on time, --slow-motion auto does not take the cohorts together (as exact as apart, and sooner):\n%s", b.String())
			}
			end := endingOf(b.String())
			text := strings.Join(end, "\n")
			t.Logf("the main job's ending, %d lines:\n%s", len(end), text)
			if len(end) > 20 {
				t.Errorf("the ending is %d lines, want at most 20", len(end))
			}
			for i, l := range end {
				if n := utf8.RuneCountInString(l); n > answerColumns {
					t.Errorf("line %d is %d columns wide, want at most %d: %q", i+1, n, answerColumns, l)
				}
			}
			for _, want := range append(c.want, "attempts per ", "faults ▀: stall 3–4.5s, crash 4.5–6.8s", "\nresults: "+out, "/report.html") {
				if !strings.Contains(text, want) {
					t.Errorf("the ending lacks %q", want)
				}
			}
			for _, not := range []string{"(sim, late)", "self-check", "- herd factor:", "budget denied", "warning:"} {
				if strings.Contains(text, not) {
					t.Errorf("the ending has %q, which belongs behind --explain", not)
				}
			}
			if c.late == nil {
				return
			}
			// --explain: the same answer, then everything else. The run
			// itself is the simulator's, with the same figures.
			b = syncBuffer{}
			if code := run(context.Background(), []string{"scenario", "outage.yaml", "--out", out, "--no-png", "--explain"}, &b, &b); code != c.code {
				t.Fatalf("--explain: exit %d:\n%s", code, b.String())
			}
			all := strings.Join(endingOf(b.String()), "\n")
			for _, want := range []string{"NOT TRUSTWORTHY", "  (sim)  ", "budget denied", "- herd factor:", "self-check: send lag", "warning: the machine could not keep up"} {
				if !strings.Contains(all, want) {
					t.Errorf("--explain's ending lacks %q:\n%s", want, all)
				}
			}
		})
	}
	if _, err := os.Stat("outage.yaml"); err == nil {
		t.Fatal("the test wrote outage.yaml")
	}
}

// failOn is a writer that fails every write holding text (a full disk
// under a redirected stdout), and keeps the others.
type failOn struct {
	text string
	b    bytes.Buffer
}

var errDiskFull = errors.New("no space left on device")

func (f *failOn) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(f.text)) {
		return 0, errDiskFull
	}
	return f.b.Write(p)
}

// writerErrorTiers is writerErrorScenario's chain of tiers.
const writerErrorTiers = `tiers:
  - {name: edge, concurrency: 50, queue: 0, service_time: exponential(1ms)}
  - {name: core, concurrency: 4, queue: 20, service_time: exponential(5ms)}
`

// A short run with each table the end of a run prints: its clients'
// tiers, a budget (the policies' table), a threshold.
const writerErrorScenario = `name: written
duration: 3s
seed: 2
` + writerErrorTiers + `chaos:
  - {name: down, kind: outage, mode: reset, at: 1s, for: 500ms}
workload: {kind: closed, clients: 20, think: 50ms}
thresholds:
  - amplification <= 100
strategies:
  - name: budgeted
    backoff: exponential
    base: 50ms
    max_attempts: 4
    budget: {kind: sre}
`

// TestEndingWriteErrorsAreSaid: every part of a run's ending written to
// stdout (each table, the sparklines, the verdict, the reading of the
// figures, the results folder's line) that cannot be written is said on
// stderr and exits 1, the results folder still in place; seven of them
// were once dropped (_ = terminal.Render...). A run's part is found by a
// word only it writes.
func TestEndingWriteErrorsAreSaid(t *testing.T) {
	file := writeScenario(t, writerErrorScenario)
	// The real engine runs it without its tiers: the relay between tiers
	// reads a link's deadline as the run's end closes it, which the race
	// detector reports (clients/link.go's early against close).
	realFile := writeScenario(t, strings.Replace(writerErrorScenario, writerErrorTiers, "", 1))
	for _, c := range []struct {
		text string
		args []string
	}{
		{"herd factor", nil},                               // the comparison table, in brief
		{"most open breakers", []string{"--explain"}},      // the policies
		{"(sim)", []string{"--explain", "--real"}},         // the comparison table, in full
		{"per user request", nil},                          // the tiers
		{"± ", []string{"--runs", "2"}},                    // the repetitions
		{"workload.clients", []string{"--clients", "5,6"}}, // a sweep's table
		{"one scale for all", nil},                         // the sparklines
		{"thresholds: all", nil},                           // the thresholds, in brief
		{"amplification <= 100", []string{"--explain"}},    // the thresholds, in full
		{"- amplification:", []string{"--explain"}},        // what the figures mean
		{"self-check:", []string{"--explain", "--real"}},   // the self-check
		{"Exact: ", []string{"--real"}},                    // the verdict
		{"results:", nil},                                  // the results folder
	} {
		t.Run(c.text, func(t *testing.T) {
			args := []string{"scenario", file, "--out", t.TempDir(), "--no-png", "-q", "--sim"}
			if slices.Contains(c.args, "--real") {
				executeInBubble(t, nil)
				args = []string{"scenario", realFile, "--out", t.TempDir(), "--no-png", "-q"}
			}
			args = append(args, slices.DeleteFunc(slices.Clone(c.args), func(a string) bool { return a == "--real" })...)
			stdout := &failOn{text: c.text}
			var stderr bytes.Buffer
			code := run(context.Background(), args, stdout, &stderr)
			if code != exitFailed || !strings.Contains(stderr.String(), "herdbench: the figures could not be written out: no space left on device") {
				t.Errorf("a failed write of %q: exit %d, stderr %q; want 1 and the error said\nstdout:\n%s", c.text, code, stderr.String(), stdout.b.String())
			}
			if strings.Contains(stdout.b.String(), c.text) {
				t.Errorf("stdout has %q, which could not be written: the test shows nothing", c.text)
			}
		})
	}
}

// TestRecordingEndingWriteErrorIsSaid: a proxy's recording ends as a run
// does, its figures on stdout; one that cannot be written is said on
// stderr and exits 1, the results folder in place.
func TestRecordingEndingWriteErrorIsSaid(t *testing.T) {
	scenario := writeScenario(t, recordedScenario)
	stdout := &failOn{text: "one scale for all"}
	var stderr bytes.Buffer
	code := 0
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		up, err := target.Listen(target.Options{Addr: "127.0.0.1:9000", Listen: n.Listen,
			Config: model.Config{Concurrency: 10, Queue: 10, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Millisecond)}})
		if err != nil {
			t.Fatal(err)
		}
		defer up.Close()
		upstream := &http.Transport{DialContext: n.Dial}
		defer upstream.CloseIdleConnections()
		done := make(chan int)
		go func() {
			done <- runProxyOn(context.Background(), &serveNet{listen: n.Listen, upstream: upstream},
				[]string{"--listen", "127.0.0.1:8090", "--control-addr", "127.0.0.1:8091", "--upstream", "http://127.0.0.1:9000",
					"--scenario", scenario, "--exit-after", "1s", "--out", t.TempDir(), "--no-png", "-q"}, stdout, &stderr)
		}()
		time.Sleep(time.Millisecond) // the proxy listens
		tr := &http.Transport{DialContext: n.Dial}
		defer tr.CloseIdleConnections()
		var wg sync.WaitGroup
		wg.Add(1)
		go sendFor(&http.Client{Transport: tr, Timeout: time.Second}, "http://127.0.0.1:8090/", "client-a", time.Now().Add(500*time.Millisecond), &wg)
		wg.Wait()
		code = <-done
	})
	if code != exitFailed || !strings.Contains(stderr.String(), "herdbench proxy: the recording's figures could not be written out: no space left on device (they are in ") {
		t.Errorf("exit %d, stderr %q; want 1 and the error said", code, stderr.String())
	}
}
