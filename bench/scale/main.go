// Command scale checks that herdbench's real-time swarm holds a large fleet:
// N concurrent closed-loop clients (10,000 by default), each on its own
// connection, for the whole run (60 s by default), against herdbench's
// target in a second process, and reports the swarm's peak RSS.
//
//	go run ./bench/scale -clients 10000 -duration 60s
//
// The swarm is the real CLI, herdbench scenario FILE --target URL, built
// from this tree (or -herdbench PATH), so its figures are what a user gets,
// results folder included. The target is the standalone target
// (target.Listen, as herdbench target runs it) behind a listener that counts
// connections: every second it reports how many are open and how many were
// ever accepted. Every client held its own connection throughout if the
// target accepted exactly N connections and N were open from the first
// second to the last.
//
// A process may hold 20,000 open files here: the swarm needs one per
// client, and so does the target, which is why they are two processes.
// All load goes to 127.0.0.1 and both processes stop by themselves.
//
// Its closing table is also written to docs/measured/scale.json and
// scale.md, with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

const scenario = `name: scale
description: A large fleet held for a while, for bench/scale.
duration: %s
seed: 1
workload:
  kind: closed
  clients: %d
  think: exponential(%s)
strategies:
  - name: full
    backoff: full
    base: 100ms
    cap: 5s
    max_attempts: 3
    timeout: 5s
`

func main() {
	serve := flag.String("serve", "", "internal: run the counting target on this address until stdin closes")
	clients := flag.Int("clients", 10000, "concurrent clients, each on its own connection")
	duration := flag.Duration("duration", 60*time.Second, "how long the fleet runs")
	think := flag.Duration("think", time.Second, "mean think time between a client's requests")
	hb := flag.String("herdbench", "", "the herdbench binary (default: built from this tree into a temporary folder)")
	rec := measured.Flag()
	flag.Parse()
	if *serve != "" {
		if err := runTarget(*serve); err != nil {
			fmt.Fprintln(os.Stderr, "scale:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*hb, *clients, *duration, *think, rec); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

// countingListener counts the connections it accepts and those still open.
type countingListener struct {
	net.Listener
	accepted, open atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted.Add(1)
	l.open.Add(1)
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// runTarget serves a healthy standalone target, printing "addr" once and
// then "open accepted" every second, until stdin closes.
func runTarget(addr string) error {
	var cl *countingListener
	srv, err := target.Listen(target.Options{
		Addr:   addr,
		Config: model.Config{Concurrency: 100000},
		Listen: func(network, addr string) (net.Listener, error) {
			ln, err := net.Listen(network, addr)
			if err != nil {
				return nil, err
			}
			cl = &countingListener{Listener: ln}
			return cl, nil
		},
	})
	if err != nil {
		return err
	}
	fmt.Println(srv.Addr())
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return srv.Close()
		case <-tick.C:
			fmt.Println(cl.open.Load(), cl.accepted.Load())
		}
	}
}

func run(hb string, n int, d, think time.Duration, rec *measured.Recorder) error {
	dir, hb, remove, err := cli.Workdir("herdbench-scale-", hb)
	if err != nil {
		return err
	}
	defer remove()
	file := filepath.Join(dir, "scale.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(scenario, d, n, think)), 0o644); err != nil {
		return err
	}

	self, err := os.Executable()
	if err != nil {
		return err
	}
	tc := exec.Command(self, "-serve", "127.0.0.1:0")
	tc.Stderr = os.Stderr
	stdin, err := tc.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := tc.StdoutPipe()
	if err != nil {
		return err
	}
	if err := tc.Start(); err != nil {
		return err
	}
	defer func() { _ = stdin.Close(); _ = tc.Wait() }()
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		return fmt.Errorf("the target did not start")
	}
	url := "http://" + strings.TrimSpace(lines.Text()) + "/"
	type sample struct {
		at             time.Duration
		open, accepted int64
	}
	var mu sync.Mutex
	var samples []sample
	start := time.Now()
	go func() {
		for lines.Scan() {
			f := strings.Fields(lines.Text())
			if len(f) != 2 {
				continue
			}
			o, _ := strconv.ParseInt(f[0], 10, 64)
			a, _ := strconv.ParseInt(f[1], 10, 64)
			mu.Lock()
			samples = append(samples, sample{time.Since(start), o, a})
			mu.Unlock()
		}
	}()

	fmt.Fprintf(os.Stderr, "scale: %d clients for %s against %s (target in process %d)\n", n, d, url, tc.Process.Pid)
	sw := exec.Command(hb, "scenario", file, "--target", url, "--allow-untrustworthy", "-q", "--out", filepath.Join(dir, "runs")) // its figures are memory, not the run's verdict
	sw.Stderr = os.Stderr
	out, err := sw.Output()
	wall := time.Since(start)
	if err != nil {
		return fmt.Errorf("herdbench scenario: %w\n%s", err, out)
	}
	ru, _ := sw.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = ru.Maxrss // KiB
	}
	cpu := sw.ProcessState.UserTime() + sw.ProcessState.SystemTime()

	mu.Lock()
	defer mu.Unlock()
	// The run starts after the swarm's lead (connections are opened then);
	// look at the samples from 1 s into the run to 1 s before its end.
	runStart := wall - d
	var minOpen, maxOpen, accepted int64 = -1, 0, 0
	for _, s := range samples {
		accepted = max(accepted, s.accepted)
		if s.at < runStart+time.Second || s.at > wall-time.Second {
			continue
		}
		if minOpen < 0 || s.open < minOpen {
			minOpen = s.open
		}
		maxOpen = max(maxOpen, s.open)
	}
	fmt.Printf("herdbench's table:\n%s", out)
	t := measured.Table{Name: "scale", Title: "A large fleet held in real time: every client on its own connection for the whole run",
		Columns: []string{"clients", "run s", "wall s", "connections accepted", "open min", "open max", "swarm peak RSS MiB", "swarm CPU s"},
		Rows: [][]string{{fmt.Sprint(n), fmt.Sprintf("%.0f", d.Seconds()), fmt.Sprintf("%.1f", wall.Seconds()), fmt.Sprint(accepted), fmt.Sprint(minOpen), fmt.Sprint(maxOpen),
			fmt.Sprintf("%.0f", float64(rss)/1024), fmt.Sprintf("%.1f", cpu.Seconds())}},
		Notes: []string{fmt.Sprintf("Closed-loop clients, mean think %s, against herdbench's target in a second process; open connections sampled every second from 1 s into the run to 1 s before its end.", think),
			"The swarm is the real CLI (herdbench scenario FILE --target URL), results folder included."}}
	if accepted != int64(n) || minOpen != int64(n) {
		_ = t.Print(os.Stdout)
		return fmt.Errorf("not every client held its own connection throughout: %d accepted, %d to %d open, want %d", accepted, minOpen, maxOpen, n)
	}
	return rec.Finish("scale", t, os.Stdout)
}
