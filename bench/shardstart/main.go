// Command shardstart measures how closely the shards of a split run start
// together: N herdbench scenario processes (--shard K/N), all started for
// one instant T0 (--start-at) against one standalone target (herdbench
// target, a process of its own, its chaos plan held for --chaos-control),
// each with a oneshot workload (every client's single request scheduled
// for t = 0). Each shard records in its summary.json when its first
// attempt went out after T0 (shard.first_send_ms) and its clock offset to
// the target's; the merge's start spread is the latest first send minus
// the earliest. The goal: every shard's first send within 5 ms of T0.
//
//	go run ./bench/shardstart -shards 3 -clients 300 -rounds 5
//
// Each round starts a fresh target and fresh shard processes, for a T0
// -lead after the processes are launched. All load goes to 127.0.0.1 and
// each process stops by itself.
//
// Its closing table is also written to docs/measured/shardstart.json and
// shardstart.md, with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
	"github.com/herdbench/herdbench/results"
)

const scenario = `
name: shardstart
duration: 2s
seed: 1
target:
  concurrency: 100000
  queue: 0
  service_time: 0s
workload:
  kind: oneshot
  clients: %d
strategies:
  - {name: once, backoff: none, max_attempts: 1, timeout: 1s}
`

func main() {
	shards := flag.Int("shards", 3, "shard processes per round")
	clients := flag.Int("clients", 300, "clients of the whole run, shared out among the shards")
	rounds := flag.Int("rounds", 5, "rounds, each with a fresh target and shards")
	lead := flag.Duration("lead", 3*time.Second, "T0 is this long after the shards are launched")
	bin := flag.String("herdbench", "", "the herdbench binary to measure (default: build ./cmd/herdbench)")
	rec := measured.Flag()
	flag.Parse()
	if err := run(*shards, *clients, *rounds, *lead, *bin, rec); err != nil {
		fmt.Fprintln(os.Stderr, "shardstart:", err)
		os.Exit(1)
	}
}

func run(n, clients, rounds int, lead time.Duration, bin string, rec *measured.Recorder) error {
	if n < 1 || clients < n || rounds < 1 {
		return errors.New("need -shards >= 1, -clients >= -shards and -rounds >= 1")
	}
	dir, hb, remove, err := cli.Workdir("shardstart", bin)
	if err != nil {
		return err
	}
	defer remove()
	file := filepath.Join(dir, "shardstart.yaml")
	if err := os.WriteFile(file, fmt.Appendf(nil, scenario, clients), 0o644); err != nil {
		return err
	}
	fmt.Printf("%d shards, %d clients in all (oneshot, all at t = 0), T0 %s after launch\n", n, clients, lead)
	fmt.Println("round  first sends after T0 (ms), one per shard       latest  spread  largest |clock offset| (ms)")
	var latest, spreads []float64
	within := 0
	for r := range rounds {
		first, offset, err := round(hb, file, filepath.Join(dir, strconv.Itoa(r)), n, lead)
		if err != nil {
			return fmt.Errorf("round %d: %w", r+1, err)
		}
		hi, lo := slices.Max(first), slices.Min(first)
		latest, spreads = append(latest, hi), append(spreads, hi-lo)
		if hi <= 5 {
			within++
		}
		fmt.Printf("%5d  %-45s  %6.2f  %6.2f  %.3f\n", r+1, fmt.Sprintf("%.2f", first), hi, hi-lo, offset)
	}
	t := measured.Table{Name: "shardstart", Title: "How closely the shards of a split run start together: first sends after T0",
		Columns: []string{"shards", "clients", "rounds", "all within 5 ms of T0", "latest first send median ms", "worst ms", "spread median ms", "worst ms"},
		Rows: [][]string{{fmt.Sprint(n), fmt.Sprint(clients), fmt.Sprint(rounds), fmt.Sprintf("%d of %d", within, rounds),
			fmt.Sprintf("%.2f", stats.Median(latest)), fmt.Sprintf("%.2f", slices.Max(latest)), fmt.Sprintf("%.2f", stats.Median(spreads)), fmt.Sprintf("%.2f", slices.Max(spreads))}},
		Notes: []string{fmt.Sprintf("Each round: a fresh herdbench target and %d herdbench scenario --shard processes started for one T0 %s after launch, a oneshot workload (every client's request at t = 0).", n, lead),
			"The spread is the latest shard's first send minus the earliest's; the goal is every shard's first send within 5 ms of T0."}}
	return rec.Finish("shardstart", t, os.Stdout)
}

// round runs one target and n shards for one T0 and returns each shard's
// first send after T0 and the largest clock offset the shards measured,
// in milliseconds.
func round(hb, file, out string, n int, lead time.Duration) ([]float64, float64, error) {
	listen, control := freeAddr(), freeAddr()
	target := exec.Command(hb, "target", "--scenario", file, "--listen", listen, "--control-addr", control, "--hold", "--exit-after", "2m", "-q")
	logs := &syncWriter{} // the processes' messages, shown only if the round fails
	target.Stderr = logs
	if err := target.Start(); err != nil {
		return nil, 0, err
	}
	defer func() { _ = target.Process.Kill(); _ = target.Wait() }()
	if err := waitUp("http://" + control + "/control/status"); err != nil {
		return nil, 0, err
	}
	t0 := time.Now().Add(lead).UTC().Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z")
	procs := make([]*exec.Cmd, n)
	for k := range procs {
		procs[k] = exec.Command(hb, "scenario", file, "--shard", fmt.Sprintf("%d/%d", k, n), "--start-at", t0,
			"--target", "http://"+listen+"/", "--chaos-control", "http://"+control, "--out", out, "--no-png", "-q")
		procs[k].Stderr = logs
		if err := procs[k].Start(); err != nil {
			return nil, 0, err
		}
	}
	for k, p := range procs {
		if err := p.Wait(); err != nil {
			err = fmt.Errorf("shard %d: %w", k, err)
			for _, q := range procs[k+1:] {
				_ = q.Wait()
			}
			return nil, 0, fmt.Errorf("%w\n%s", err, logs.String())
		}
	}
	paths, _ := filepath.Glob(filepath.Join(out, "*", "summary.json"))
	if len(paths) != n {
		return nil, 0, fmt.Errorf("%d summaries in %s, not %d", len(paths), out, n)
	}
	first := make([]float64, n)
	offset := 0.0
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, 0, err
		}
		var s results.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", p, err)
		}
		if s.Shard == nil || s.Shard.FirstSendMS == nil || s.Shard.Clock == nil {
			return nil, 0, fmt.Errorf("%s: no shard marking, first send or clock", p)
		}
		first[s.Shard.Index] = *s.Shard.FirstSendMS
		offset = max(offset, abs(s.Shard.Clock.OffsetMS))
	}
	return first, offset, nil
}

// syncWriter collects several processes' output.
type syncWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(b)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func waitUp(url string) error {
	for range 100 {
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("the target's control API at %s did not answer", url)
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
