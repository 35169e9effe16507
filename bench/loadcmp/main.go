// Command loadcmp measures herdbench's swarm against wrk, hey and vegeta,
// side by side and interleaved in one run, against one trivial target on
// 127.0.0.1 in its own process.
//
// Each tool runs as its own process for the same duration with the same
// number of connections; rounds rotate the order so machine noise falls on
// every tool alike. For each run it measures the client's CPU time (user +
// system, from the kernel's accounting of the child process), the requests
// the target served (the target counts them), and the p99 latency the tool
// reports. The table gives medians over rounds and herdbench's ratios to
// each peer. CPU per request is the stable figure on a shared machine;
// requests per second is a ceiling set by client and target together.
//
//	go run ./bench/loadcmp -rounds 5 -duration 5s -conns 64
//
// Each tool must have had (almost) every request answered 200 (its own
// count against the target's), or the run fails: a tool that errors is not
// doing the same work. vegeta is measured as vegeta attack alone, its
// results written to a file that vegeta report reads afterwards, outside
// the measured process. The target's own CPU per request is shown too.
// -baseline PATH adds another build of this command (e.g. one built from
// main) whose swarm runs as the tool "baseline", for before/after figures
// in the same run.
//
// The tools floor-goroutines and floor-epoll are the least a client can do
// per request, built as the swarm is (a goroutine per connection) and as
// wrk is (an event loop per core): they split the swarm's ratio to wrk
// into what its design costs and what its own work costs (floor.go).
//
// Tools that are not installed are skipped with a note: wrk is the Debian
// package wrk; hey is go install github.com/rakyll/hey@v0.1.5; vegeta is
// go install github.com/tsenart/vegeta/v12@v12.13.0.
//
// Its closing table is also written to docs/measured/loadcmp.json and
// loadcmp.md, with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
)

func main() {
	serve := flag.String("serve", "", "internal: run the trivial target on this address")
	swarm := flag.String("swarm", "", "internal: run herdbench's swarm against this URL")
	rounds := flag.Int("rounds", 3, "rounds; each runs every tool once, in rotating order")
	duration := flag.Duration("duration", 5*time.Second, "length of each tool's run")
	conns := flag.Int("conns", 64, "connections (clients) per tool")
	tools := flag.String("tools", "herdbench,herdbench-shaped,hey,vegeta,wrk", "tools to compare, comma-separated (herdbench-shaped: the swarm with a mix of four requests, placeholders filled per request; floor-goroutines, floor-epoll: the least a client does per request, see floor.go)")
	profile := flag.String("cpuprofile", "", "with -swarm: write a CPU profile of the swarm to this file")
	baseline := flag.String("baseline", "", "another build of this command (e.g. from main) whose swarm runs as the tool \"baseline\", for before/after figures")
	shaped := flag.Bool("shaped", false, "internal: with -swarm, send a mix of four requests with placeholders (the tool herdbench-shaped)")
	floor := flag.String("floor", "", "internal: run a floor client (floor.go) against this host:port")
	floorKind := flag.String("floor-kind", "goroutines", "internal: with -floor, which floor: goroutines or epoll")
	rec := measured.Flag()
	flag.Parse()
	baselineBin = *baseline
	switch {
	case *serve != "":
		runTarget(*serve)
	case *floor != "":
		run := runFloorGoroutines
		if *floorKind == "epoll" {
			run = runFloorEpoll
		}
		if err := run(*floor, *conns, *duration, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "loadcmp:", err)
			os.Exit(1)
		}
	case *swarm != "":
		if *profile != "" {
			f, err := os.Create(*profile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "loadcmp:", err)
				os.Exit(1)
			}
			_ = pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
		if err := runSwarm(*swarm, *conns, *duration, *shaped, os.Stdout); err != nil {
			pprof.StopCPUProfile()
			fmt.Fprintln(os.Stderr, "loadcmp:", err)
			os.Exit(1)
		}
	default:
		if err := compare(*rounds, *duration, *conns, strings.Split(*tools, ","), rec); err != nil {
			fmt.Fprintln(os.Stderr, "loadcmp:", err)
			os.Exit(1)
		}
	}
}

// runTarget serves the counted target (cli.Counted).
func runTarget(addr string) {
	ln, err := cli.Listen(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadcmp:", err)
		os.Exit(1)
	}
	_ = http.Serve(ln, cli.Counted())
}

type measure struct {
	tool      string
	requests  int64 // served by the target
	ok        int64 // answers 200 the tool counted
	cpu       time.Duration
	serverCPU time.Duration // the target's CPU time meanwhile
	wall      time.Duration
	p99       time.Duration
	rss       int64 // KiB
}

func (m measure) cpuPerReq() float64 {
	if m.requests == 0 {
		return 0
	}
	return float64(m.cpu.Microseconds()) / float64(m.requests)
}

func (m measure) serverCPUPerReq() float64 {
	if m.requests == 0 {
		return 0
	}
	return float64(m.serverCPU.Microseconds()) / float64(m.requests)
}

// baselineBin is the -baseline build, if any.
var baselineBin string

func compare(rounds int, d time.Duration, conns int, tools []string, rec *measured.Recorder) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	addr, targetPid, stop, err := cli.Serve("-serve", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer stop()
	url := "http://" + addr + "/"

	var avail []string
	if baselineBin != "" {
		tools = append(tools, "baseline")
	}
	for _, t := range tools {
		if t == "herdbench" || t == "herdbench-shaped" || t == "baseline" || t == "floor-goroutines" || t == "floor-epoll" {
			avail = append(avail, t)
			continue
		}
		if _, err := exec.LookPath(t); err != nil {
			fmt.Fprintf(os.Stderr, "loadcmp: %s is not installed; skipping it\n", t)
			continue
		}
		avail = append(avail, t)
	}
	results := map[string][]measure{}
	for r := 0; r < rounds; r++ {
		for i := range avail {
			tool := avail[(i+r)%len(avail)]
			m, err := runTool(self, tool, url, addr, targetPid, d, conns)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, tool, err)
			}
			fmt.Fprintf(os.Stderr, "round %d %-9s %8d requests (%d answered 200) %6.1f µs CPU/request (target %4.1f) p99 %v\n",
				r+1, tool, m.requests, m.ok, m.cpuPerReq(), m.serverCPUPerReq(), m.p99)
			// Every tool must have been answered 200 for (almost) all it
			// sent: the target counts requests, the tool its 200s; requests
			// in flight when a tool stops are the only difference allowed.
			if m.ok < m.requests*99/100 || m.ok > m.requests {
				return fmt.Errorf("round %d, %s: %d answers 200 for %d requests served: the comparison would be void", r+1, tool, m.ok, m.requests)
			}
			results[tool] = append(results[tool], m)
		}
	}
	return rec.Finish("loadcmp", report(avail, results, d, conns, rounds), os.Stdout)
}

// procCPU returns a process's CPU time so far (user + system), from
// /proc/PID/stat; 0 where there is no /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces) start after ")".
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return time.Duration(ut+st) * time.Second / hz
}

func runTool(self, tool, url, addr string, targetPid int, d time.Duration, conns int) (measure, error) {
	secs := strconv.Itoa(int(d.Seconds()))
	var cmd *exec.Cmd
	var targets, results string // vegeta's
	switch tool {
	case "herdbench":
		cmd = exec.Command(self, "-swarm", url, "-conns", strconv.Itoa(conns), "-duration", d.String())
	case "herdbench-shaped":
		cmd = exec.Command(self, "-swarm", url, "-shaped", "-conns", strconv.Itoa(conns), "-duration", d.String())
	case "baseline":
		cmd = exec.Command(baselineBin, "-swarm", url, "-conns", strconv.Itoa(conns), "-duration", d.String())
	case "floor-goroutines", "floor-epoll":
		cmd = exec.Command(self, "-floor", addr, "-floor-kind", strings.TrimPrefix(tool, "floor-"), "-conns", strconv.Itoa(conns), "-duration", d.String())
	case "hey":
		cmd = exec.Command("hey", "-z", d.String(), "-c", strconv.Itoa(conns), "-disable-compression", url)
	case "wrk":
		cmd = exec.Command("wrk", "-t", "2", "-c", strconv.Itoa(conns), "-d", secs+"s", "--latency", url)
	case "vegeta":
		// vegeta attack alone is measured: its results go to a file, which
		// vegeta report reads afterwards, outside the measured process.
		dir, err := os.MkdirTemp("", "loadcmp-vegeta")
		if err != nil {
			return measure{}, err
		}
		defer os.RemoveAll(dir)
		targets, results = filepath.Join(dir, "targets"), filepath.Join(dir, "results.bin")
		if err := os.WriteFile(targets, []byte("GET "+url+"\n"), 0o600); err != nil {
			return measure{}, err
		}
		cmd = exec.Command("vegeta", "attack", "-rate=0", "-max-workers="+strconv.Itoa(conns), "-workers="+strconv.Itoa(conns), "-duration="+d.String(), "-targets="+targets, "-output="+results)
	default:
		return measure{}, fmt.Errorf("unknown tool %q", tool)
	}
	before, err := cli.Served(addr)
	if err != nil {
		return measure{}, err
	}
	cpu0 := procCPU(targetPid)
	start := time.Now()
	out, err := cmd.Output()
	wall := time.Since(start)
	if err != nil {
		return measure{}, fmt.Errorf("%v: %w", cmd.Args, err)
	}
	cpu1 := procCPU(targetPid)
	after, err := cli.Served(addr)
	if err != nil {
		return measure{}, err
	}
	st := cmd.ProcessState
	if tool == "vegeta" {
		if out, err = exec.Command("vegeta", "report", results).Output(); err != nil {
			return measure{}, fmt.Errorf("vegeta report: %w", err)
		}
	}
	m := measure{tool: tool, requests: after - before, cpu: st.UserTime() + st.SystemTime(), wall: wall, serverCPU: cpu1 - cpu0}
	m.rss = maxRSS(st)
	if m.p99, err = p99(tool, string(out)); err != nil {
		return m, err
	}
	m.ok, err = oks(tool, string(out))
	return m, err
}

var (
	heyP99    = regexp.MustCompile(`99%+ in ([0-9.]+) secs`)
	wrkP99    = regexp.MustCompile(`\s99%\s+([0-9.]+)(us|ms|s)`)
	vegetaLat = regexp.MustCompile(`Latencies\s+\[[^\]]*\]\s+(.*)`)
)

var (
	heyOK       = regexp.MustCompile(`\[200\]\s+(\d+) responses`)
	vegetaCodes = regexp.MustCompile(`Status Codes\s+\[code:count\]\s+(.*)`)
	wrkTotal    = regexp.MustCompile(`(\d+) requests in`)
	wrkNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

// oks reads how many answers 200 a tool counted, from its own report.
func oks(tool, out string) (int64, error) {
	atoi := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	switch tool {
	case "herdbench", "herdbench-shaped", "baseline", "floor-goroutines", "floor-epoll":
		var r struct{ OK, Attempts *int64 }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			return 0, err
		}
		switch {
		case r.OK != nil:
			return *r.OK, nil
		case r.Attempts != nil:
			return *r.Attempts, nil // an older build: no count of 200s
		}
	case "hey":
		if m := heyOK.FindStringSubmatch(out); m != nil {
			return atoi(m[1]), nil
		}
		return 0, nil
	case "vegeta":
		if m := vegetaCodes.FindStringSubmatch(out); m != nil {
			for _, f := range strings.Fields(m[1]) {
				if n, ok := strings.CutPrefix(f, "200:"); ok {
					return atoi(n), nil
				}
			}
		}
		return 0, nil
	case "wrk":
		if m := wrkTotal.FindStringSubmatch(out); m != nil {
			n := atoi(m[1])
			if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
				n -= atoi(m[1])
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("no count of answers in %s's output:\n%s", tool, out)
}

// p99 reads the p99 latency from a tool's own report.
func p99(tool, out string) (time.Duration, error) {
	switch tool {
	case "herdbench", "herdbench-shaped", "baseline", "floor-goroutines", "floor-epoll":
		var r struct{ P99Micros int64 }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			return 0, err
		}
		return time.Duration(r.P99Micros) * time.Microsecond, nil
	case "hey":
		if m := heyP99.FindStringSubmatch(out); m != nil {
			f, _ := strconv.ParseFloat(m[1], 64)
			return time.Duration(f * float64(time.Second)), nil
		}
	case "wrk":
		if m := wrkP99.FindStringSubmatch(out); m != nil {
			return time.ParseDuration(m[1] + m[2])
		}
	case "vegeta":
		if m := vegetaLat.FindStringSubmatch(out); m != nil {
			f := strings.Split(m[1], ", ")
			if len(f) == 7 {
				return time.ParseDuration(strings.TrimSpace(f[5]))
			}
		}
	}
	return 0, fmt.Errorf("no p99 in %s's output:\n%s", tool, out)
}

// report is the closing table: each tool's medians over the rounds and
// herdbench's ratios to it.
func report(tools []string, res map[string][]measure, d time.Duration, conns, rounds int) measured.Table {
	type row struct{ cpu, rps, p99, rss, srv float64 }
	rows := map[string]row{}
	for _, t := range tools {
		var cpu, rps, p, rss, srv []float64
		for _, m := range res[t] {
			cpu = append(cpu, m.cpuPerReq())
			rps = append(rps, float64(m.requests)/m.wall.Seconds())
			p = append(p, float64(m.p99.Microseconds())/1000)
			rss = append(rss, float64(m.rss)/1024)
			srv = append(srv, m.serverCPUPerReq())
		}
		rows[t] = row{stats.Median(cpu), stats.Median(rps), stats.Median(p), stats.Median(rss), stats.Median(srv)}
	}
	t := measured.Table{Name: "loadcmp",
		Title:   "Client cost against wrk, hey and vegeta: HTTP/1.1 at saturation on 127.0.0.1, one trivial target",
		Columns: []string{"tool", "client CPU µs/request", "req/s", "p99 ms", "client RSS MiB", "target CPU µs/request", "CPU ratio", "req/s ratio", "p99 ratio"},
		Notes: []string{
			fmt.Sprintf("%d rounds, %s each, %d connections; medians over the rounds, the tools' order rotating from round to round.", rounds, d, conns),
			"A ratio is herdbench's median over the tool's (below 1: herdbench spends less CPU per request, or has the lower p99).",
			"Client CPU per request is the stable figure on a shared machine; requests per second is a ceiling set by client and target together.",
		}}
	h := rows["herdbench"]
	ratio := func(a, b float64) string {
		if b == 0 || a == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", a/b)
	}
	for _, tool := range tools {
		r := rows[tool]
		t.Rows = append(t.Rows, []string{tool, fmt.Sprintf("%.1f", r.cpu), fmt.Sprintf("%.0f", r.rps), fmt.Sprintf("%.2f", r.p99),
			fmt.Sprintf("%.0f", r.rss), fmt.Sprintf("%.1f", r.srv), ratio(h.cpu, r.cpu), ratio(h.rps, r.rps), ratio(h.p99, r.p99)})
	}
	return t
}
