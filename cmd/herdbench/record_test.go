package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/recording"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
	"go.uber.org/goleak"
)

// recordedScenario is a proxy's scenario with a short 503 outage and
// thresholds: one the recorded traffic fails (attempts were answered by
// the outage), one it passes, one on a figure a recording without attempt
// numbers cannot tell.
const recordedScenario = `name: recorded
duration: 2s
chaos:
  - name: down
    kind: outage
    mode: "503"
    at: 300ms
    for: 300ms
strategies:
  - name: client-a
    thresholds:
      - outcomes.http_5xx == 0
thresholds:
  - attempts >= 1
  - amplification <= 1.5
`

// sendFor sends a POST with user agent ua through c to url every 10 ms
// from now, the last one before until.
func sendFor(c *http.Client, url, ua string, until time.Time, wg *sync.WaitGroup) {
	defer wg.Done()
	start := time.Now()
	for i := 1; ; i++ {
		at := start.Add(time.Duration(i) * 10 * time.Millisecond)
		if !at.Before(until) {
			return
		}
		time.Sleep(time.Until(at))
		req, _ := http.NewRequest(http.MethodPost, url, nil)
		req.Header.Set("User-Agent", ua)
		if resp, err := c.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
}

// TestProxyRecordingGates: herdbench proxy, in a synctest bubble over an
// in-memory network, records the clients through it by User-Agent; POST
// /control/results writes the results so far; at --exit-after the last
// results are written and the scenario's thresholds gate them: exit code
// 3, as for the swarm. The folders are normal results folders: herdbench
// report draws them again, and overlays two; their report and the
// terminal say where the figures come from.
func TestProxyRecordingGates(t *testing.T) {
	scenario := writeScenario(t, recordedScenario)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	var snap control.ResultsAnswer
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		up, err := target.Listen(target.Options{Addr: "127.0.0.1:9000", Listen: n.Listen,
			Config: model.Config{Concurrency: 100, Queue: 100, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Millisecond)}})
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
					"--scenario", scenario, "--cohort-by", "user-agent", "--exit-after", "2s", "--out", out, "--no-png", "-q"}, &stdout, &stderr)
		}()
		time.Sleep(time.Millisecond) // the proxy listens; its plan's t = 0 is now
		tr := &http.Transport{DialContext: n.Dial}
		defer tr.CloseIdleConnections()
		c := &http.Client{Transport: tr, Timeout: time.Second}
		var wg sync.WaitGroup
		wg.Add(2)
		until := time.Now().Add(1600 * time.Millisecond)
		go sendFor(c, "http://127.0.0.1:8090/", "client-a", until, &wg)
		go sendFor(c, "http://127.0.0.1:8090/", "client-b", until, &wg)

		time.Sleep(time.Second)
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8091/control/results", strings.NewReader("{}"))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&snap)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil || snap.Dir == "" || snap.Failed != 3 {
			t.Errorf("POST /control/results: %s, %+v, %v; want a folder and 3 failed thresholds (client-a's 5xx, both cohorts' amplification unknown)", resp.Status, snap, err)
		}
		wg.Wait()
		if code := <-done; code != exitThresholds {
			t.Fatalf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitThresholds, stdout.String(), stderr.String())
		}
	})
	m := regexp.MustCompile(`(?m)^results: (.+)$`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("stdout names no results folder:\n%s", stdout.String())
	}
	final := m[1]
	for _, want := range []string{"report: " + filepath.Join(final, "report.html"), "Recorded by the proxy at 127.0.0.1:8090 (upstream http://127.0.0.1:9000), server-side times", "thresholds: 3 of 5 FAILED", "client-a", "client-b"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	raw, err := os.ReadFile(filepath.Join(final, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Mode     string `json:"mode"`
		Recorded struct {
			By       string `json:"by"`
			CohortBy string `json:"cohort_by"`
		} `json:"recorded"`
		Faults []struct{ Name string } `json:"faults"`
		Runs   []struct {
			Strategy      string   `json:"strategy"`
			Attempts      int64    `json:"attempts"`
			Amplification *float64 `json:"amplification"`
			Outcomes      map[string]int64
			Unmeasured    []string
		} `json:"runs"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if s.Mode != "recorded" || s.Recorded.By != "proxy" || s.Recorded.CohortBy != "user-agent" || len(s.Faults) != 1 || len(s.Runs) != 2 {
		t.Fatalf("summary.json: %s", raw)
	}
	for _, r := range s.Runs {
		// One attempt every 10 ms, from 11 ms to 1.591 s on the plan's
		// clock: 159, of which the 30 inside the 503 outage (300-600 ms).
		if r.Attempts != 159 || r.Outcomes["http_5xx"] != 30 || r.Outcomes["ok"] != 129 || r.Amplification != nil {
			t.Errorf("cohort %s: %d attempts, outcomes %v, amplification %v; want 159 attempts, 30 of them 503, amplification null", r.Strategy, r.Attempts, r.Outcomes, r.Amplification)
		}
	}
	html, err := os.ReadFile(filepath.Join(final, "report.html"))
	if err != nil || !strings.Contains(string(html), "Recorded by the proxy at") {
		t.Errorf("report.html does not say where the figures come from (%v)", err)
	}
	for _, chart := range []string{"Upstream latency by percentile", "Attempt latency over time"} {
		if !strings.Contains(string(html), chart) {
			t.Errorf("report.html of a proxy's recording lacks the chart %q", chart)
		}
	}
	if code, _, stderr := runCLI(t, "report", final, "--no-png"); code != exitOK {
		t.Errorf("herdbench report on the recording: exit code %d\n%s", code, stderr)
	}
	overlay := filepath.Join(out, "overlay")
	if code, _, stderr := runCLI(t, "report", snap.Dir, final, "--label", "snapshot,final", "--out", overlay, "--no-png"); code != exitOK {
		t.Errorf("herdbench report A B on two recordings: exit code %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(overlay, "report.html")); err != nil {
		t.Errorf("the overlay: %v", err)
	}
}

// TestTargetRecordingOnInterrupt: herdbench target writes its recording's
// results on the first Ctrl-C and exits 0 when no threshold failed.
func TestTargetRecordingOnInterrupt(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreAnyFunction("os/signal.loop"), goleak.IgnoreAnyFunction("os/signal.signal_recv"))
	out := t.TempDir()
	var stdout, stderr syncBuffer
	exited := make(chan int, 1)
	ctx, release := interruptible(context.Background(), []string{"target"}, &stderr, func(code int) { exited <- code })
	defer release()
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--out", out, "--no-png",
			"--attempt-header", "X-Retry-Attempt"}, &stdout, &stderr)
	}()
	traffic := stderr.waitFor(t, serveAddrRE)
	for i := range 20 {
		req, _ := http.NewRequest(http.MethodPost, traffic+"/", nil)
		req.Header.Set("X-Retry-Attempt", []string{"1", "2"}[i%2])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	http.DefaultClient.CloseIdleConnections()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != exitOK {
		t.Fatalf("exit code %d after Ctrl-C, want 0\nstderr:\n%s", code, stderr.String())
	}
	s := readSummary(t, out)
	if s.Recorded == nil || s.Recorded.By != "target" || len(s.Runs) != 1 || s.Runs[0].Strategy != "all" ||
		s.Runs[0].Attempts != 20 || s.Runs[0].Requests != 10 || s.Runs[0].Amplification != 2 {
		t.Errorf("summary: recorded %+v, runs %+v", s.Recorded, s.Runs)
	}
	release()
}

// TestRecordingCohortsBounded: --max-cohorts is at most 1000, and a
// recording whose cohorts and window could hold more memory than
// --max-memory is refused before the server starts (exit 2), saying which
// fewer cohorts or shorter window would fit, and they do; it once took any
// number and died at the end of 300.
func TestRecordingCohortsBounded(t *testing.T) {
	fits := regexp.MustCompile(`--max-cohorts (\d+) fits\)|--record-window (\S+) fits\)`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-cohorts", "3000"}, "--max-cohorts 3000: give at most 1000"},
		{[]string{"--max-cohorts", "1001"}, "give at most 1000"},
		{[]string{"--max-cohorts", "300", "--max-memory", "1GiB"}, "--max-cohorts 300 with --record-window 15m could hold about 10 GiB at once (301 cohorts"},
		{[]string{"--max-cohorts", "300", "--record-window", "24h", "--max-memory", "8GiB"}, "above --max-memory 8.0 GiB"},
		{[]string{"--max-cohorts", "300", "--max-memory", "lots"}, "--max-memory"},
	} {
		args := append([]string{"target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--out", t.TempDir(), "--cohort-by", "header:X-Client"}, c.args...)
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
		if !strings.Contains(stderr, "could hold") {
			continue
		}
		hints := fits.FindAllStringSubmatch(stderr, -1)
		if len(hints) != 2 {
			t.Errorf("%v: %q; want what would fit, fewer cohorts and a shorter window", c.args, stderr)
		}
		for _, h := range hints {
			f := recordFlags{cohortBy: "header:X-Client", maxCohorts: 300, window: 15 * time.Minute, maxMemory: c.args[len(c.args)-1]}
			if c.args[2] == "--record-window" {
				f.window = 24 * time.Hour
			}
			if h[1] != "" {
				f.maxCohorts, _ = strconv.Atoi(h[1])
			} else {
				f.window, _ = time.ParseDuration(h[2])
			}
			if err := f.checkFootprint(); err != nil {
				t.Errorf("%v: the hint %q does not fit: %v", c.args, h[0], err)
			}
		}
	}
	// One cohort (nothing tells clients apart) whatever --max-cohorts says.
	f := recordFlags{cohortBy: "all", maxCohorts: 1000, window: 24 * time.Hour, maxMemory: "4GiB"}
	if err := f.checkFootprint(); err != nil {
		t.Errorf("one cohort of a day: %v", err)
	}
	if got, want := recording.Footprint(301, 15*time.Minute), uint64(2*301*90000*results.NumSeries*8); got < want || got > want+want/10+64<<20 {
		t.Errorf("Footprint(301, 15m) = %d MiB, want about %d MiB", got>>20, want>>20)
	}
}
