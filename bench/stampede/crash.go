package main

// The crash-then-retry round: N clients each send one request into a
// target that holds it (a blackhole), the target crashes at crashAt,
// resetting every connection at once, and each client retries once,
// backoff later, on a new connection (a cold reconnect: dial, then
// write). What the round measures is the width of that first-retry wave
// on the wire, and beside it, in the same run, the floor: a minimal
// target (floor.go: it holds each connection without reading it and
// resets them all in one loop of closes) and a minimal program of N
// goroutines that only hold a socket each, learn of the reset, and
// reconnect and write the same request backoff later (floor, own
// schedule), or all at one instant (floor, one instant: the cost of N
// dials and writes alone). The same minimal clients against herdbench's
// target (floor clients, herdbench target) tell the target's share of
// the swarm's wave from the clients'.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/target"
)

const (
	crashAt = time.Second            // when the target crashes, after t = 0
	backoff = 100 * time.Millisecond // each client's wait before its retry
)

const crashScenario = `
name: stampede-crash
duration: 3s
seed: 1
target:
  concurrency: 100000
  queue: 0
  service_time: 0s
chaos:
  - name: hold
    kind: blip
    mode: blackhole
    at: 0s
    for: 1s
  - name: crash
    kind: outage
    mode: reset
    at: 1s
    for: 50ms
workload:
  kind: oneshot
  clients: 1000
strategies:
  - name: retry-once
    backoff: exponential
    base: 100ms
    cap: 100ms
    max_attempts: 2
    timeout: 10s
`

// runCrashTarget serves the crash round's target (the same server
// herdbench target runs, with the round's chaos plan held) until stdin
// closes; each line "start UNIXNANO" on stdin starts the plan's t = 0
// then, and is answered "ok".
func runCrashTarget(addr string) error {
	sc, err := scenarios.Parse("stampede-crash.yaml", []byte(crashScenario))
	if err != nil {
		return err
	}
	p, err := sc.Compile(scenarios.Overrides{})
	if err != nil {
		return err
	}
	srv, err := target.Listen(target.Options{Addr: addr, Config: p.Target, Plan: p.Chaos, Hold: true})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Println(srv.Addr())
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) != 2 || f[0] != "start" {
			return fmt.Errorf("crash target: %q: want start UNIXNANO", in.Text())
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return err
		}
		if err := srv.StartPlan(time.Unix(0, ns)); err != nil {
			return err
		}
		fmt.Println("ok")
	}
	return in.Err()
}

// crashTarget is the crash round's target process.
type crashTarget struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	url string
}

// startCrashTarget starts herdbench's target in a second process, or the
// minimal one (floor).
func startCrashTarget(floor bool) (*crashTarget, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	mode := "-serve-crash"
	if floor {
		mode = "-serve-floor"
	}
	cmd := exec.Command(self, mode, "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &crashTarget{cmd: cmd, in: in, out: bufio.NewReader(out)}
	line, err := t.out.ReadString('\n')
	if err != nil {
		t.stop()
		return nil, fmt.Errorf("the crash target did not start: %w", err)
	}
	t.url = "http://" + strings.TrimSpace(line) + "/"
	return t, nil
}

func (t *crashTarget) stop() { _ = t.in.Close(); _ = t.cmd.Wait() }

// start starts the target's plan with its t = 0 at t0.
func (t *crashTarget) start(t0 time.Time) error {
	if _, err := fmt.Fprintf(t.in, "start %d\n", t0.UnixNano()); err != nil {
		return err
	}
	line, err := t.out.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ok" {
		return fmt.Errorf("the crash target did not start its plan: %q %v", line, err)
	}
	return nil
}

// wave is one crash round's measurement, as offsets from the crash.
type wave struct {
	cpu     time.Duration   // this process's CPU time (user + system) over the round
	react   time.Duration   // and over the crash's window (cpuWindow): the reaction alone
	learned []time.Duration // each connection's failed read
	dials   []time.Duration // each retry's dial (its SYN)
	writes  []time.Duration // each retry's write
}

func sorted(d []time.Duration) []time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d
}

// width is the spread of ds from its first to its q-quantile.
func width(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(q*float64(len(ds))))] - ds[0]
}

func offsets(ts []time.Time, from time.Time) []time.Duration {
	var out []time.Duration
	for _, t := range ts {
		if d := t.Sub(from); d >= 0 {
			out = append(out, d)
		}
	}
	return sorted(out)
}

// swarmCrash runs the swarm's round against t.
func swarmCrash(t *crashTarget, n int) (wave, error) {
	sc, err := scenarios.Parse("stampede-crash.yaml", []byte(crashScenario))
	if err != nil {
		return wave{}, err
	}
	p, err := sc.Compile(scenarios.Overrides{Clients: n, Target: t.url})
	if err != nil {
		return wave{}, err
	}
	w := &wire{dialBegun: true}
	r, err := engine.Start(context.Background(), p, engine.Options{Version: "bench", Network: engine.Network{Dial: w.dial}})
	if err != nil {
		return wave{}, err
	}
	react := cpuWindow(r.Origin.Add(crashAt))
	if err := t.start(r.Origin); err != nil {
		r.Stop()
		r.Wait()
		return wave{}, err
	}
	out := r.Wait()
	if err := r.Err(); err != nil {
		return wave{}, err
	}
	l := out.Cohorts[0].Rec.Live()
	if l.Attempts != int64(2*n) || l.OK != int64(n) {
		return wave{}, fmt.Errorf("%d attempts, %d ok; want %d and %d (every first attempt reset by the crash, every retry answered): the machine was too busy for the target to take every request within %s", l.Attempts, l.OK, 2*n, n, crashAt)
	}
	crash := r.Origin.Add(crashAt)
	w.mu.Lock()
	defer w.mu.Unlock()
	return wave{react: react(), learned: offsets(w.learned, crash), dials: offsets(w.dials, crash), writes: offsets(w.writes, crash)}, nil
}

// floorCrash is the floor's round: n goroutines, each with one socket
// holding the same request, that retry backoff after they learn of the
// reset (oneInstant false) or all at backoff after the crash (true).
func floorCrash(t *crashTarget, n int, oneInstant bool) (wave, error) {
	addr := strings.TrimSuffix(strings.TrimPrefix(t.url, "http://"), "/")
	req := []byte("POST / HTTP/1.1\r\nHost: " + addr + "\r\nUser-Agent: herdbench\r\nContent-Length: 0\r\n\r\n")
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			for _, c := range conns[:i] {
				_ = c.Close()
			}
			return wave{}, err
		}
		conns[i] = c
	}
	t0 := time.Now().Add(100 * time.Millisecond)
	if err := t.start(t0); err != nil {
		return wave{}, err
	}
	crash := t0.Add(crashAt)
	react := cpuWindow(crash)
	learned := make([]time.Time, n)
	dials := make([]time.Time, n)
	writes := make([]time.Time, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(t0))
			buf := make([]byte, 512)
			if _, err := c.Write(req); err != nil {
				errs[i] = err
				return
			}
			_, err := c.Read(buf)
			learned[i] = time.Now()
			_ = c.Close()
			if err == nil {
				errs[i] = fmt.Errorf("an answer before the crash")
				return
			}
			at := learned[i].Add(backoff)
			if oneInstant {
				at = crash.Add(backoff)
			}
			time.Sleep(time.Until(at))
			dials[i] = time.Now()
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				errs[i] = err
				return
			}
			defer nc.Close()
			writes[i] = time.Now()
			if _, err := nc.Write(req); err != nil {
				errs[i] = err
				return
			}
			if _, err := nc.Read(buf); err != nil {
				errs[i] = err
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return wave{}, fmt.Errorf("floor: %w", err)
		}
	}
	return wave{react: react(), learned: offsets(learned, crash), dials: offsets(dials, crash), writes: offsets(writes, crash)}, nil
}

// The crash's window: from just before the crash until well after every
// retry is answered (each client learns of the crash within tens of
// milliseconds and retries backoff later), so that the CPU it holds is
// the reaction's alone, without the round's setup (the swarm's engine
// starting, the connections made before t = 0) or its end.
const (
	windowBefore = 5 * time.Millisecond
	windowAfter  = backoff + 300*time.Millisecond
)

// cpuWindow reads this process's CPU time at the start and the end of the
// window around crash, on a goroutine of its own; the function it returns
// waits for the window's end and returns the CPU time spent in it.
func cpuWindow(crash time.Time) func() time.Duration {
	spent := make(chan time.Duration, 1)
	go func() {
		time.Sleep(time.Until(crash.Add(-windowBefore)))
		c0 := selfCPU()
		time.Sleep(time.Until(crash.Add(windowAfter)))
		spent <- selfCPU() - c0
	}()
	return func() time.Duration { return <-spent }
}

// runCrash runs rounds of the crash round with n clients: the swarm and
// both floors, interleaved, against one target process, and prints the
// table and the verdict.
func runCrash(n, rounds int, rec *measured.Recorder) error {
	kinds := []string{"swarm", "floor, own schedule", "floor, one instant", "floor clients, herdbench target"}
	res := map[string][]wave{}
	for r := 0; r < rounds; r++ {
		for i := range kinds {
			k := kinds[(i+r)%len(kinds)]
			// A target process of its own for each measurement: its plan
			// starts once, and no connection of the one before is left in it.
			t, err := startCrashTarget(strings.HasPrefix(k, "floor, "))
			if err != nil {
				return err
			}
			var w wave
			cpu0 := selfCPU()
			switch k {
			case "swarm":
				w, err = swarmCrash(t, n)
			case "floor, own schedule", "floor clients, herdbench target":
				w, err = floorCrash(t, n, false)
			default:
				w, err = floorCrash(t, n, true)
			}
			w.cpu = selfCPU() - cpu0
			t.stop()
			if err != nil {
				return fmt.Errorf("crash round %d, %s: %w", r+1, k, err)
			}
			fmt.Fprintf(os.Stderr, "crash round %d %-31s %d clients: learned over %6.2f ms (p99 %6.2f), retry writes over %6.2f ms (p99 %6.2f), first retry write at %6.2f ms after the crash; %5.1f µs CPU per client, %5.1f of it in the crash's window; load %s\n",
				r+1, k, n, ms(width(w.learned, 1)), ms(width(w.learned, 0.99)), ms(width(w.writes, 1)), ms(width(w.writes, 0.99)), ms(first(w.writes)), perClient(w.cpu, n), perClient(w.react, n), loadAverage())
			res[k] = append(res[k], w)
		}
	}
	t := measured.Table{Name: "stampede-crash", Title: "Crash then retry: how wide the first-retry wave is on the wire, the swarm beside a minimal floor",
		Columns: []string{"client", "learned over ms", "p99", "retry dials over ms", "retry writes over ms", "p99", "worst round", "CPU µs per client", "in the crash's window"},
		Notes:   []string{fmt.Sprintf("%d clients, target in a second process, crash at %s, one retry %s after each client learns of it on a new connection; %d rounds, medians.", n, crashAt, backoff, rounds)}}
	med := map[string]float64{}
	cpu := map[string]float64{}
	react := map[string]float64{}
	worst := map[string]float64{}
	for _, k := range kinds {
		var lw, lp, dw, ww, wp, cp, rp []float64
		for _, w := range res[k] {
			cp = append(cp, perClient(w.cpu, n))
			rp = append(rp, perClient(w.react, n))
			lw = append(lw, ms(width(w.learned, 1)))
			lp = append(lp, ms(width(w.learned, 0.99)))
			dw = append(dw, ms(width(w.dials, 1)))
			ww = append(ww, ms(width(w.writes, 1)))
			wp = append(wp, ms(width(w.writes, 0.99)))
			worst[k] = max(worst[k], ms(width(w.writes, 1)))
		}
		med[k], cpu[k], react[k] = stats.Median(ww), stats.Median(cp), stats.Median(rp)
		f2 := func(v float64) string { return fmt.Sprintf("%.2f", v) }
		t.Rows = append(t.Rows, []string{k, f2(stats.Median(lw)), f2(stats.Median(lp)), f2(stats.Median(dw)), f2(med[k]), f2(stats.Median(wp)), f2(worst[k]),
			fmt.Sprintf("%.1f", cpu[k]), fmt.Sprintf("%.1f", react[k])})
	}
	floor := med["floor, own schedule"]
	ratio := med["swarm"] / max(floor, 0.001)
	t.Notes = append(t.Notes, fmt.Sprintf("swarm / floor (own schedule): retry wave width %.2f×, CPU per client %.2f× over the round (the steadier figure on a busy machine), %.2f× in the crash's window (%s before it to %s after: the reaction alone).",
		ratio, cpu["swarm"]/max(cpu["floor, own schedule"], 0.001), react["swarm"]/max(react["floor, own schedule"], 0.001), windowBefore, windowAfter))
	within, bucket := 0, 0
	for r := range res["swarm"] {
		sw := ms(width(res["swarm"][r].writes, 1))
		if sw <= 1.2*ms(width(res["floor, own schedule"][r].writes, 1)) {
			within++
		}
		if sw <= 10 {
			bucket++
		}
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Rounds whose swarm wave was within 1.2× of the same round's floor: %d of %d; within 10 ms: %d of %d.", within, rounds, bucket, rounds))
	switch {
	case worst["swarm"] <= 10:
		t.Notes = append(t.Notes, "Verdict: every round's first-retry wave within 10 ms (one bucket): as tight as the model's.")
	case ratio <= 1.2:
		t.Notes = append(t.Notes, fmt.Sprintf("Verdict: the swarm's wave is within 1.2× of the floor, which is %.1f ms wide on this machine: this machine cannot put %d reconnects on the wire within one 10 ms bucket; a tighter wave needs more cores, a quieter machine, or fewer clients per process (shards).", floor, n))
	default:
		t.Notes = append(t.Notes, fmt.Sprintf("Verdict: the swarm's wave is %.2f× the floor's (more than 1.2×): the swarm's reaction to the crash costs more than the sockets do.", ratio))
	}
	return rec.Finish("stampede", t, os.Stdout)
}

func first(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[0]
}

// selfCPU is this process's CPU time so far, user and system.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func perClient(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }

// loadAverage is the one-minute load average, as /proc/loadavg says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
