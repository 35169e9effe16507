// Command stampede measures how precisely herdbench's real-time swarm puts
// a synchronized wave on the wire: N clients with one request each, all
// scheduled for the same instant (a oneshot workload, no retries), against
// a target that answers at once. For each N it reports
//
//   - the goal's figure, from the cohort's 10 ms timeline: the buckets that
//     hold attempts (bucket 0 starts at the scheduled instant, so "all in
//     buckets 0 and 1" means every attempt was sent within 20 ms of it);
//   - the wire's figure: when each request's bytes were handed to the
//     kernel (the first Write on its connection after the scheduled
//     instant, timed by a wrapper around the swarm's connections), as
//     offsets from the scheduled instant: p50, p99 and the last one.
//
// The target runs embedded (in the swarm's process, competing for the same
// cores, as herdbench scenario runs it) or in a second process (as with
// herdbench target and --target), or both, interleaved:
//
//	go run ./bench/stampede -clients 100,1000,5000 -rounds 3 -target both
//
// With -crash N it also runs the crash-then-retry round (crash.go): N
// clients whose requests a target in a second process holds until it
// crashes, each retrying once on a new connection, beside a minimal floor
// program doing only the sockets' part, in the same run:
//
//	go run ./bench/stampede -clients '' -crash 1000 -rounds 5
//
// All load goes to 127.0.0.1 and each run stops by itself.
//
// Its closing tables are also written to docs/measured/stampede.json
// and .md (the stampedes) and stampede-crash.json and .md (the crash
// round), with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

const scenario = `
name: stampede
duration: 20s
seed: 1
target:
  concurrency: 100000
  queue: 0
  service_time: 0s
workload:
  kind: oneshot
  clients: 100
strategies:
  - name: once
    backoff: none
    max_attempts: 1
    timeout: 10s
`

func main() {
	serve := flag.String("serve", "", "internal: run the target on this address until stdin closes")
	serveCrash := flag.String("serve-crash", "", "internal: run the crash round's target on this address until stdin closes")
	serveFloor := flag.String("serve-floor", "", "internal: run the crash round's minimal target on this address until stdin closes")
	crash := flag.Int("crash", 0, "clients of the crash-then-retry round (0: no such round), run after the stampedes")
	counts := flag.String("clients", "100,1000,5000", "client counts, comma-separated")
	rounds := flag.Int("rounds", 3, "rounds; each runs every client count and target placement once")
	where := flag.String("target", "both", "where the target runs: embedded, process or both")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole measurement to this file")
	rec := measured.Flag()
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "stampede:", err)
			os.Exit(1)
		}
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	if *serveFloor != "" {
		if err := runFloorTarget(*serveFloor); err != nil {
			fmt.Fprintln(os.Stderr, "stampede:", err)
			os.Exit(1)
		}
		return
	}
	if *serveCrash != "" {
		if err := runCrashTarget(*serveCrash); err != nil {
			fmt.Fprintln(os.Stderr, "stampede:", err)
			os.Exit(1)
		}
		return
	}
	if *serve != "" {
		if err := runTarget(*serve); err != nil {
			fmt.Fprintln(os.Stderr, "stampede:", err)
			os.Exit(1)
		}
		return
	}
	var ns []int
	for _, f := range strings.Split(*counts, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "stampede: -clients: %q is not a client count\n", f)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	var modes []string
	switch *where {
	case "both":
		modes = []string{"embedded", "process"}
	case "embedded", "process":
		modes = []string{*where}
	default:
		fmt.Fprintf(os.Stderr, "stampede: -target %q: embedded, process or both\n", *where)
		os.Exit(2)
	}
	if *crash < 0 {
		fmt.Fprintf(os.Stderr, "stampede: -crash %d: give a client count, or 0 for no crash round\n", *crash)
		os.Exit(2)
	}
	if len(ns) > 0 {
		if err := run(ns, modes, *rounds, rec); err != nil {
			pprof.StopCPUProfile()
			fmt.Fprintln(os.Stderr, "stampede:", err)
			os.Exit(1)
		}
	}
	if *crash > 0 {
		if err := runCrash(*crash, *rounds, rec); err != nil {
			pprof.StopCPUProfile()
			fmt.Fprintln(os.Stderr, "stampede:", err)
			os.Exit(1)
		}
	}
}

// runTarget serves a standalone target (the same server herdbench target
// runs) that answers every request at once, until stdin closes.
func runTarget(addr string) error {
	srv, err := target.Listen(target.Options{
		Addr:   addr,
		Config: model.Config{Concurrency: 100000, ServiceTime: dist.Dist{}},
	})
	if err != nil {
		return err
	}
	fmt.Println(srv.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return srv.Close()
}

// measure is one stampede.
type measure struct {
	n, attempts, ok int64
	first, last     int // first and last bucket holding attempts
	perBucket       []int64
	wire            []time.Duration // write times after t = 0, sorted
	dials, late     int             // connections opened, and opened after t = 0
	warm            time.Duration   // the last connection opened before t = 0, as an offset from it
}

// spread is the goal's figure: every attempt was sent within this long of
// the scheduled instant, as the 10 ms timeline shows it.
func (m measure) spread() time.Duration { return time.Duration(m.last+1) * results.Bucket }

func (m measure) wireAt(q float64) time.Duration {
	if len(m.wire) == 0 {
		return 0
	}
	return m.wire[min(len(m.wire)-1, int(q*float64(len(m.wire))))]
}

func run(ns []int, modes []string, rounds int, rec *measured.Recorder) error {
	sc, err := scenarios.Parse("stampede.yaml", []byte(scenario))
	if err != nil {
		return err
	}
	var url string
	for _, m := range modes {
		if m == "process" {
			stop, u, err := startTarget()
			if err != nil {
				return err
			}
			defer stop()
			url = u
		}
	}
	res := map[string][]measure{}
	key := func(mode string, n int) string { return fmt.Sprintf("%s/%d", mode, n) }
	for r := 0; r < rounds; r++ {
		for _, n := range ns {
			for i := range modes {
				mode := modes[(i+r)%len(modes)]
				o := scenarios.Overrides{Clients: n}
				if mode == "process" {
					o.Target = url
				}
				p, err := sc.Compile(o)
				if err != nil {
					return err
				}
				m, err := stampede(p)
				if err != nil {
					return fmt.Errorf("%s target, %d clients: %w", mode, n, err)
				}
				fmt.Fprintf(os.Stderr, "round %d %-8s %5d clients: all sent within %3d ms (timeline), wire p50 %6.2f ms p99 %6.2f ms last %6.2f ms; %d connections, %d opened after t = 0, last before at %.0f ms; buckets %v\n",
					r+1, mode, n, m.spread().Milliseconds(), ms(m.wireAt(0.5)), ms(m.wireAt(0.99)), ms(m.wireAt(1)), m.dials, m.late, ms(m.warm), m.perBucket[m.first:m.last+1])
				res[key(mode, n)] = append(res[key(mode, n)], m)
			}
		}
	}
	t := measured.Table{Name: "stampede", Title: "How precisely the real-time swarm puts a synchronized wave on the wire",
		Columns: []string{"target", "clients", "all sent within (10 ms timeline) ms", "worst round ms", "wire p50 ms", "wire p99 ms", "wire last ms"},
		Notes: []string{fmt.Sprintf("%d rounds, medians; a oneshot workload (every client's one request scheduled for one instant, each on its own connection), no retries; the target answers at once.", rounds),
			"The timeline's figure: every attempt was in the 10 ms buckets up to this one. The wire's: when each request's bytes went to the kernel, after the scheduled instant."}}
	for _, mode := range modes {
		for _, n := range ns {
			var spread, p50, p99, last []float64
			worst := time.Duration(0)
			for _, m := range res[key(mode, n)] {
				spread = append(spread, float64(m.spread().Milliseconds()))
				worst = max(worst, m.spread())
				p50 = append(p50, ms(m.wireAt(0.5)))
				p99 = append(p99, ms(m.wireAt(0.99)))
				last = append(last, ms(m.wireAt(1)))
			}
			t.Rows = append(t.Rows, []string{mode, fmt.Sprint(n), fmt.Sprintf("%.0f", stats.Median(spread)), fmt.Sprint(worst.Milliseconds()),
				fmt.Sprintf("%.2f", stats.Median(p50)), fmt.Sprintf("%.2f", stats.Median(p99)), fmt.Sprintf("%.2f", stats.Median(last))})
		}
	}
	return rec.Finish("stampede", t, os.Stdout)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// startTarget starts the target in a second process (this program with
// -serve) and returns its URL.
func startTarget() (stop func(), url string, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", err
	}
	cmd := exec.Command(self, "-serve", "127.0.0.1:0")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	stop = func() { _ = in.Close(); _ = cmd.Wait() }
	line := make([]byte, 64)
	n, err := out.Read(line)
	if err != nil {
		stop()
		return nil, "", fmt.Errorf("the target did not start: %w", err)
	}
	return stop, "http://" + strings.TrimSpace(string(line[:n])) + "/", nil
}

// wire times the swarm's connections: when each was dialled, its writes,
// and its failed reads (when its client learned that it broke).
type wire struct {
	dialBegun              bool // a dial's time is when it began, else when its connection was open
	mu                     sync.Mutex
	dials, writes, learned []time.Time
}

var dialer = net.Dialer{Timeout: 5 * time.Second}

// dial is the swarm's dialer (engine.Options.Dial): a TCP connection that
// w times.
func (w *wire) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	at := time.Now()
	c, err := dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if !w.dialBegun {
		at = time.Now()
	}
	w.mu.Lock()
	w.dials = append(w.dials, at)
	w.mu.Unlock()
	return wireConn{c, w}, nil
}

type wireConn struct {
	net.Conn
	w *wire
}

func (c wireConn) Write(b []byte) (int, error) {
	now := time.Now()
	c.w.mu.Lock()
	c.w.writes = append(c.w.writes, now)
	c.w.mu.Unlock()
	return c.Conn.Write(b)
}

func (c wireConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil {
		now := time.Now()
		c.w.mu.Lock()
		c.w.learned = append(c.w.learned, now)
		c.w.mu.Unlock()
	}
	return n, err
}

// stampede runs plan p once and measures it.
func stampede(p *scenarios.Plan) (measure, error) {
	w := &wire{writes: make([]time.Time, 0, 2*p.Workload.Clients)}
	r, err := engine.Start(context.Background(), p, engine.Options{Version: "bench", Network: engine.Network{Dial: w.dial}})
	if err != nil {
		return measure{}, err
	}
	out := r.Wait()
	rec := out.Cohorts[0].Rec
	l := rec.Live()
	m := measure{n: int64(p.Workload.Clients), attempts: l.Attempts, ok: l.OK, first: -1}
	if l.Attempts != m.n || l.OK != m.n {
		return m, fmt.Errorf("%d attempts, %d ok; want %d of each", l.Attempts, l.OK, m.n)
	}
	m.perBucket = rec.Timeline(results.Bucket).Attempts()
	for b, v := range m.perBucket {
		if v > 0 {
			if m.first < 0 {
				m.first = b
			}
			m.last = b
		}
	}
	w.mu.Lock()
	m.dials = len(w.dials)
	m.warm = -time.Hour
	for _, t := range w.dials {
		if d := t.Sub(r.Origin); d >= 0 {
			m.late++
		} else {
			m.warm = max(m.warm, d)
		}
	}
	for _, t := range w.writes {
		if d := t.Sub(r.Origin); d >= 0 {
			m.wire = append(m.wire, d)
		}
	}
	w.mu.Unlock()
	sort.Slice(m.wire, func(i, j int) bool { return m.wire[i] < m.wire[j] })
	return m, nil
}
