package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"go.uber.org/goleak"
)

// syncBuffer is a writer the command writes to while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until re matches the output and returns its first group.
func (s *syncBuffer) waitFor(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(s.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no %s in the output:\n%s", re, s.String())
	return ""
}

var (
	controlAddrRE = regexp.MustCompile(`control API and metrics on (http://[0-9.:]+)`)
	metricsAddrRE = regexp.MustCompile(`live metrics on (http://[0-9.:]+/metrics)`)
	serveAddrRE   = regexp.MustCompile(`serving (http://[0-9.:]+)`)
)

// scrape returns the metric families (by # TYPE line) and the samples of
// an exposition.
func scrape(t *testing.T, url string) (families []string, samples map[string]float64) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	samples = map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			families = append(families, strings.Fields(f)[0])
			continue
		}
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, _ := strconv.ParseFloat(line[i+1:], 64)
		samples[line[:i]] = v
	}
	return families, samples
}

// documented returns the metric names docs/game-day.md lists under
// "## Metrics" with the given prefix.
func documented(t *testing.T, prefix string) []string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "game-day.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "\n## Metrics\n")
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for _, m := range regexp.MustCompile("`("+prefix+"[a-z0-9_]+)`").FindAllStringSubmatch(section, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatalf("docs/game-day.md lists no %s* metrics under ## Metrics", prefix)
	}
	return out
}

// checkDocumented compares the families exposed with prefix to the docs.
func checkDocumented(t *testing.T, families []string, prefix string) {
	t.Helper()
	var exposed []string
	for _, f := range families {
		if strings.HasPrefix(f, prefix) {
			exposed = append(exposed, f)
		}
	}
	sort.Strings(exposed)
	if want := documented(t, prefix); !slices.Equal(exposed, want) {
		t.Errorf("%s* metrics exposed:\n  %v\ndocumented in docs/game-day.md:\n  %v", prefix, exposed, want)
	}
}

func writeScenario(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const faultyTarget = `name: faulty
duration: 1m
target:
  concurrency: 4
chaos:
  - name: down
    kind: outage
    at: 0s
    for: 30s
`

// TestServerMetricsAreDocumented starts herdbench target and herdbench
// proxy as the command does and checks that /metrics exposes exactly the
// metric names docs/game-day.md lists, with live values.
func TestServerMetricsAreDocumented(t *testing.T) {
	defer goleak.VerifyNone(t)
	scenario := writeScenario(t, faultyTarget)
	upstream := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer upstream.Close()
	for _, c := range []struct {
		role string
		args []string
	}{
		{"target", []string{"target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--out", t.TempDir()}},
		{"proxy", []string{"proxy", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--upstream", upstream.URL, "--out", t.TempDir()}},
	} {
		t.Run(c.role, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var stderr syncBuffer
			done := make(chan int)
			go func() { done <- run(ctx, c.args, io.Discard, &stderr) }()
			control := stderr.waitFor(t, controlAddrRE)
			traffic := stderr.waitFor(t, serveAddrRE)
			resp, err := http.Post(traffic+"/", "text/plain", nil) // answered 503 by the outage
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			families, samples := scrape(t, control+"/metrics")
			prefix := "herdbench_" + c.role + "_"
			checkDocumented(t, families, prefix)
			if v := samples[prefix+`requests_total{outcome="http_5xx"}`]; v != 1 {
				t.Errorf("%srequests_total{outcome=\"http_5xx\"} = %v, want 1", prefix, v)
			}
			if v := samples[prefix+`active_fault{fault="down"}`]; v != 1 {
				t.Errorf("%sactive_fault{fault=\"down\"} = %v, want 1", prefix, v)
			}
			cancel()
			if code := <-done; code != exitOK {
				t.Errorf("exit code %d after cancel, want 0; output:\n%s", code, stderr.String())
			}
		})
	}
}

// TestFailingThresholdExitCode runs a short scenario whose thresholds
// cannot all pass: the exit code is 3, the answer shows the failure,
// --explain's table every check, and summary.json records every check.
func TestFailingThresholdExitCode(t *testing.T) {
	defer goleak.VerifyNone(t)
	scenario := writeScenario(t, `name: gated
duration: 500ms
seed: 1
workload:
  clients: 5
  think: 20ms
strategies:
  - name: plain
    backoff: full
    thresholds:
      - requests < 1
thresholds:
  - attempts >= 1
`)
	out := t.TempDir()
	var stdout, stderr syncBuffer
	code := run(context.Background(), []string{"scenario", scenario, "--out", out, "-q", "--no-png", "--allow-untrustworthy"}, &stdout, &stderr)
	if code != exitThresholds || exitThresholds != 3 {
		t.Fatalf("exit code %d, want 3\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	// The answer names the check that failed; --explain's table has them all.
	failed := regexp.MustCompile(`(?m)^thresholds: 1 of 2 FAILED\n\s+cohort\s+threshold\s+value\s+result\n\s+plain\s+requests < 1\s+\d+\s+FAIL\nresults: `)
	if !failed.MatchString(stdout.String()) {
		t.Errorf("no table of the failed check in the output:\n%s", stdout.String())
	}
	if !strings.Contains(stderr.String(), "exit code 3") {
		t.Errorf("stderr does not name the exit code:\n%s", stderr.String())
	}
	stdout, stderr = syncBuffer{}, syncBuffer{}
	if code := run(context.Background(), []string{"scenario", scenario, "--out", t.TempDir(), "-q", "--no-png", "--explain", "--allow-untrustworthy"}, &stdout, &stderr); code != exitThresholds {
		t.Fatalf("--explain: exit code %d, want 3\nstderr:\n%s", code, stderr.String())
	}
	table := regexp.MustCompile(`(?m)^thresholds: 1 of 2 FAILED\n\s+cohort\s+threshold\s+value\s+result\n\s+plain\s+attempts >= 1\s+\d+\s+pass\n\s+plain\s+requests < 1\s+\d+\s+FAIL$`)
	if !table.MatchString(stdout.String()) {
		t.Errorf("no thresholds table in --explain's output:\n%s", stdout.String())
	}
	s := readSummary(t, out)
	if len(s.Thresholds) != 2 || s.Thresholds[0].Pass != true || s.Thresholds[1].Pass != false ||
		s.Thresholds[1].Expression != "requests < 1" || s.Thresholds[1].Value == nil || *s.Thresholds[1].Value < 1 {
		t.Errorf("summary.json thresholds: %+v", s.Thresholds)
	}
}

func readSummary(t *testing.T, out string) results.Summary {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(out, "*", "summary.json"))
	if len(dirs) != 1 {
		t.Fatalf("want one results folder in %s, found %v", out, dirs)
	}
	return readJSON(t, dirs[0])
}

// nonLoopbackIP returns an address of this machine off loopback, or a
// documentation address (which nothing answers) when there is none.
func nonLoopbackIP() (string, bool) {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String(), true
		}
	}
	return "192.0.2.1", false
}

// TestRemoteTargetRefused: a target off loopback without --allow-remote is
// refused before any traffic, with exit code 2 and a message naming the
// flag. When this machine has an address off loopback, a server listens
// there and the test checks it received nothing.
func TestRemoteTargetRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	ip, local := nonLoopbackIP()
	var hits atomic.Int64
	url := "http://" + ip + ":9/"
	var ln net.Listener
	if local {
		var err error
		if ln, err = net.Listen("tcp", net.JoinHostPort(ip, "0")); err != nil {
			t.Logf("cannot listen on %s (%v): checking the refusal only", ip, err)
		}
	}
	if ln != nil {
		srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) })}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		url = "http://" + ln.Addr().String() + "/"
	}
	scenario := writeScenario(t, "name: remote\nduration: 2s\nworkload:\n  clients: 3\nstrategies:\n  - name: a\n    backoff: full\n")
	out := t.TempDir()
	for _, args := range [][]string{
		{"scenario", scenario, "--target", url, "--out", out, "-q", "--allow-untrustworthy"},
		{"scenario", writeScenario(t, "name: remote\nduration: 2s\ntarget:\n  url: "+url+"\nstrategies:\n  - name: a\n    backoff: full\n"), "--out", out, "-q", "--allow-untrustworthy"},
	} {
		var stderr syncBuffer
		code := run(context.Background(), args, io.Discard, &stderr)
		msg := stderr.String()
		if code != exitUsage || !strings.Contains(msg, "--allow-remote") || !strings.Contains(msg, "not on loopback") || !strings.Contains(msg, "Nothing was sent") {
			t.Errorf("%v: exit code %d, stderr:\n%s\nwant 2 and a message naming --allow-remote", args, code, msg)
		}
	}
	// Hosts that are not loopback whatever their spelling suggests, in
	// --target and in the file's target.url.
	for _, c := range []struct{ url, want string }{
		{"http://0.0.0.0:9/", "every interface"},
		{"http://[::]:9/", "every interface"},
		{"http://[::ffff:10.0.0.1]:9/", "10.0.0.1 is off"},
		{"http://127.1:9/", "ends in a number"},
		{"http://0x7f.1:9/", "ends in a number"},
		{"http://2130706433:9/", "ends in a number"},
		{"http://0177.0.0.1:9/", "ends in a number"},
		{"http://127.0.0.1.:9/", "ends in a number"},
	} {
		for _, args := range [][]string{
			{"scenario", scenario, "--target", c.url, "--out", out, "-q", "--allow-untrustworthy"},
			{"scenario", writeScenario(t, "name: remote\nduration: 2s\ntarget:\n  url: "+c.url+"\nstrategies:\n  - name: a\n    backoff: full\n"), "--out", out, "-q", "--allow-untrustworthy"},
		} {
			var stderr syncBuffer
			code := run(context.Background(), args, io.Discard, &stderr)
			if msg := stderr.String(); code != exitUsage || !strings.Contains(msg, c.want) || !strings.Contains(msg, "Nothing was sent") {
				t.Errorf("%v: exit code %d, stderr:\n%s\nwant 2 and %q", args, code, msg, c.want)
			}
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the remote target received %d requests", hits.Load())
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a refused run wrote %d entries into the results folder", len(entries))
	}
}

// TestInterruptWritesPartialResults sends SIGINT to this process in the
// middle of a real run (hundreds of clients retrying through a blackhole:
// some held in an attempt, some asleep in backoff): run returns 130, the results folder is complete
// with every file and marked partial, no hidden temporary folder is left,
// and no goroutine survives. Along the way it reads the live swarm metrics
// and checks their names against docs/game-day.md.
func TestInterruptWritesPartialResults(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreAnyFunction("os/signal.loop"), goleak.IgnoreAnyFunction("os/signal.signal_recv"))
	scenario := writeScenario(t, `name: interrupted
duration: 30s
seed: 5
target:
  concurrency: 8
  queue: 16
chaos:
  - name: stall
    kind: blip
    mode: blackhole
    at: 500ms
    for: 25s
workload:
  clients: 300
  think: exponential(50ms)
strategies:
  - name: no-jitter
    backoff: exponential
    base: 50ms
    cap: 2s
    max_attempts: unlimited
    timeout: 500ms
  - name: full-jitter
    backoff: full
    base: 50ms
    cap: 2s
    max_attempts: unlimited
    timeout: 500ms
`)
	recv := newOTLPReceiver(t)
	defer recv.srv.Close() // before goleak looks
	out := t.TempDir()
	var stdout, stderr syncBuffer
	exited := make(chan int, 1)
	ctx, release := interruptible(context.Background(), []string{"scenario"}, &stderr, func(code int) { exited <- code })
	defer release()
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"scenario", scenario, "--out", out, "-q", "--metrics-addr", "127.0.0.1:0", "--otlp", recv.srv.URL, "--otlp-interval", "1m", "--allow-untrustworthy"}, &stdout, &stderr)
	}()
	metrics := stderr.waitFor(t, metricsAddrRE)
	var families []string
	deadline := time.Now().Add(20 * time.Second)
	for {
		var samples map[string]float64
		families, samples = scrape(t, metrics)
		if samples["herdbench_swarm_elapsed_seconds"] >= 1.2 {
			break // clients are held by the blackhole or asleep in backoff
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not reach 1.2 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	checkDocumented(t, families, "herdbench_swarm_")
	sent := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code := <-done
	t.Logf("run returned %s after SIGINT", time.Since(sent).Round(time.Millisecond))
	if code != exitSignal {
		t.Fatalf("exit code %d, want %d\nstderr:\n%s", code, exitSignal, stderr.String())
	}
	select {
	case c := <-exited:
		t.Fatalf("one interrupt called exit(%d)", c)
	default:
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || strings.HasPrefix(entries[0].Name(), ".") {
		t.Fatalf("results: %v, want one results folder and nothing hidden", entries)
	}
	dir := filepath.Join(out, entries[0].Name())
	for _, f := range []string{"summary.json", "timeline.csv", "timeline_1s.csv", "scenario.yaml"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	s := readSummary(t, out)
	if !s.Partial || len(s.Runs) != 2 || s.Runs[0].Attempts == 0 || s.Runs[0].Outcomes["timeout"] == 0 {
		t.Errorf("summary: partial %v, runs %+v", s.Partial, s.Runs)
	}
	if !strings.Contains(stdout.String(), "results: "+dir) {
		t.Errorf("stdout does not name the results folder:\n%s", stdout.String())
	}
	// The interrupt flushed the OTLP export (its interval, a minute, never
	// came): it counts the attempts summary.json does.
	exported, _ := recv.last(t)
	attempts := map[string]uint64{}
	for _, p := range exported["http.client.request.duration"].GetExponentialHistogram().GetDataPoints() {
		attempts[attrs(p.Attributes)["herdbench.cohort"]] += p.Count
	}
	for _, r := range s.Runs {
		if attempts[r.Strategy] != uint64(r.Attempts) {
			t.Errorf("cohort %s: the export made at the interrupt counts %d attempts, summary.json %d", r.Strategy, attempts[r.Strategy], r.Attempts)
		}
	}
	release()
}

// TestSecondInterruptExitsAtOnce: the first SIGINT cancels the context,
// the second calls exit with 130 without waiting for anything.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreAnyFunction("os/signal.loop"), goleak.IgnoreAnyFunction("os/signal.signal_recv"))
	var stderr syncBuffer
	exited := make(chan int, 1)
	ctx, release := interruptible(context.Background(), []string{"proxy"}, &stderr, func(code int) { exited <- code })
	defer release()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	select {
	case c := <-exited:
		t.Fatalf("the first interrupt called exit(%d)", c)
	default:
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if c := <-exited; c != exitSignal {
		t.Errorf("exit(%d), want %d", c, exitSignal)
	}
	// Both lines as the proxy's log writes its lines: the time, the role.
	line := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} herdbench proxy: interrupted; stopping \(interrupt again to exit at once\)\n\d\d:\d\d:\d\d\.\d{3} herdbench proxy: interrupted again, exiting now(; .*)?$`)
	if !line.MatchString(stderr.String()) {
		t.Errorf("stderr: %q; want the interrupt lines with the time and the role, as the proxy's other lines", stderr.String())
	}
}
