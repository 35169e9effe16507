// Command pressure measures what hostile concurrency costs herdbench's
// game-day servers in memory: N concurrent scrapes of a standalone target's
// /metrics, and N concurrent requests (each with a body) through a chaos
// proxy to an upstream that holds every request a while, so all are in
// flight at once. For each it reports how the requests were answered and
// the peak resident memory (VmHWM) of the process under pressure.
//
//	go run ./bench/pressure -n 10000
//	go run ./bench/pressure -n 10000 -herdbench /tmp/herdbench-main   # another build, e.g. before a change
//
// The servers are the real CLI (herdbench target, herdbench proxy), built
// from this tree unless -herdbench names a binary, each in its own
// process. All load goes to 127.0.0.1, every request is sent once with a
// timeout, and every process started is stopped by its PID at the end.
//
// Its closing table is also written to docs/measured/pressure.json and
// pressure.md, with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
)

func main() {
	n := flag.Int("n", 10000, "concurrent requests in each test")
	body := flag.Int("body", 16<<10, "bytes in each request's body through the proxy")
	hold := flag.Duration("hold", 3*time.Second, "how long the upstream holds each request")
	hb := flag.String("herdbench", "", "the herdbench binary (default: built from this tree into a temporary folder)")
	rec := measured.Flag()
	flag.Parse()
	if err := run(*hb, *n, *body, *hold, rec); err != nil {
		fmt.Fprintln(os.Stderr, "pressure:", err)
		os.Exit(1)
	}
}

func run(hb string, n, body int, hold time.Duration, rec *measured.Recorder) error {
	dir, hb, remove, err := cli.Workdir("herdbench-pressure-", hb)
	if err != nil {
		return err
	}
	defer remove()

	// 1. Scrapes of a standalone target's /metrics.
	tgt, err := start(hb, "target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--exit-after", "10m")
	if err != nil {
		return err
	}
	before := tgt.rss()
	took, answers := storm(n, func() (*http.Request, error) {
		return http.NewRequest(http.MethodGet, tgt.control+"/metrics", nil)
	})
	peak := tgt.peak()
	tgt.stop()
	t := measured.Table{Name: "pressure", Title: "Hostile concurrency against the game-day servers: answers and peak memory",
		Columns: []string{"test", "requests at once", "answers", "took s", "RSS before MiB", "peak RSS MiB"},
		Notes: []string{fmt.Sprintf("Each request on its own connection, all released at once; through the proxy, %d-byte bodies to an upstream holding each %s.", body, hold),
			"Peak RSS is the process's VmHWM; herdbench target and herdbench proxy are the real CLI, each in a process of its own."}}
	row := func(test, answers string, took time.Duration, before, peak int64) {
		t.Rows = append(t.Rows, []string{test, fmt.Sprint(n), answers, fmt.Sprintf("%.2f", took.Seconds()), fmt.Sprintf("%.0f", mib(before)), fmt.Sprintf("%.0f", mib(peak))})
		fmt.Fprintf(os.Stderr, "pressure: %s: %s in %s; RSS %.0f MiB before, peak %.0f MiB\n", test, answers, took.Round(time.Millisecond), mib(before), mib(peak))
	}
	row("GET /metrics on herdbench target", answers, took, before, peak)

	// 2. Requests through a proxy to an upstream that holds each.
	scenario := filepath.Join(dir, "upstream.yaml")
	if err := os.WriteFile(scenario, []byte(fmt.Sprintf("name: upstream\ntarget:\n  concurrency: 100000\n  queue: 0\n  service_time: %s\n", hold)), 0o644); err != nil {
		return err
	}
	up, err := start(hb, "target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--exit-after", "10m")
	if err != nil {
		return err
	}
	defer up.stop()
	px, err := start(hb, "proxy", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--upstream", up.traffic, "--exit-after", "10m")
	if err != nil {
		return err
	}
	payload := bytes.Repeat([]byte("x"), body)
	before = px.rss()
	took, answers = storm(n, func() (*http.Request, error) {
		return http.NewRequest(http.MethodPost, px.traffic+"/work", bytes.NewReader(payload))
	})
	peak = px.peak()
	px.stop()
	row("POST through herdbench proxy", answers, took, before, peak)
	return rec.Finish("pressure", t, os.Stdout)
}

// storm sends n requests at once, each on its own connection, and counts
// the answers by status (or "error").
func storm(n int, newReq func() (*http.Request, error)) (time.Duration, string) {
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	var mu sync.Mutex
	counts := map[string]int{}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-gate
			key := "error"
			if req, err := newReq(); err == nil {
				if resp, err := client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					key = strconv.Itoa(resp.StatusCode)
				}
			}
			mu.Lock()
			counts[key]++
			mu.Unlock()
		})
	}
	began := time.Now()
	close(gate)
	wg.Wait()
	took := time.Since(began)
	var parts []string
	for _, k := range []string{"200", "503", "error"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
		delete(counts, k)
	}
	for k, v := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", v, k))
	}
	return took, strings.Join(parts, ", ")
}

// server is a herdbench target or proxy in a process of its own.
type server struct {
	cmd              *exec.Cmd
	traffic, control string
}

var (
	serveRE   = regexp.MustCompile(`serving (http://[0-9.:]+)`)
	controlRE = regexp.MustCompile(`control API and metrics on (http://[0-9.:]+)`)
)

func start(hb string, args ...string) (*server, error) {
	cmd := exec.Command(hb, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd}
	lines := bufio.NewScanner(stderr)
	for (s.traffic == "" || s.control == "") && lines.Scan() {
		if m := serveRE.FindStringSubmatch(lines.Text()); m != nil {
			s.traffic = m[1]
		}
		if m := controlRE.FindStringSubmatch(lines.Text()); m != nil {
			s.control = m[1]
		}
	}
	if s.traffic == "" || s.control == "" {
		s.stop()
		return nil, fmt.Errorf("herdbench %s did not say where it serves", args[0])
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return s, nil
}

// stop ends the process (SIGTERM, then SIGKILL after 10 s) and waits.
func (s *server) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

func (s *server) rss() int64  { return s.status("VmRSS") }
func (s *server) peak() int64 { return s.status("VmHWM") }

// status reads a memory figure (KiB) of the process from /proc.
func (s *server) status(field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return v
}

func mib(kib int64) float64 { return float64(kib) / 1024 }
