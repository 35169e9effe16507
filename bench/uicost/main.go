// Command uicost measures what the live page (--ui) costs a real run: the
// self-check's send lag (summary.json's harness.send_lag_ms) of the same
// scenario run by the herdbench CLI without --ui and with --ui and ten
// viewers reading its event stream for the whole run, in interleaved
// rounds (the first side alternating), with each side's medians and the
// load average beside every run. Everything runs on 127.0.0.1 and stops by
// itself.
//
//	go run ./bench/uicost -rounds 3 -scenario outage
//
// Its closing table is also written to docs/measured/uicost.json and
// uicost.md, with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
	"github.com/herdbench/herdbench/results"
)

func main() {
	rounds := flag.Int("rounds", 3, "runs of each side, interleaved (off, on, on, off, ...)")
	scenario := flag.String("scenario", "outage", "scenario file or built-in name to run")
	viewers := flag.Int("viewers", 10, "event-stream viewers of the --ui side")
	bin := flag.String("herdbench", "", "herdbench binary to measure (default: build ./cmd/herdbench)")
	rec := measured.Flag()
	flag.Parse()
	if *rounds < 1 || *rounds > 20 || *viewers < 1 || *viewers > 20 {
		fmt.Fprintln(os.Stderr, "uicost: give 1-20 rounds and 1-20 viewers")
		os.Exit(2)
	}
	if err := run(*rounds, *scenario, *viewers, *bin, rec); err != nil {
		fmt.Fprintln(os.Stderr, "uicost:", err)
		os.Exit(1)
	}
}

// result is one run's figures.
type result struct {
	lag             results.Lag
	cpu, load       float64
	frames, dropped int64 // the viewers' frames in all, and viewers dropped
}

func run(rounds int, scenario string, viewers int, bin string, rec *measured.Recorder) error {
	tmp, hb, remove, err := cli.Workdir("uicost", bin)
	if err != nil {
		return err
	}
	defer remove()
	var off, on []result
	fmt.Printf("%-5s %-22s %9s %9s %9s %6s %8s %7s\n", "round", "side", "lag p50", "lag p99", "lag max", "cpu", "load 1m", "frames")
	for i := 0; i < rounds; i++ {
		sides := []int{0, viewers}
		if i%2 == 1 {
			sides = []int{viewers, 0}
		}
		for _, v := range sides {
			r, err := once(hb, scenario, filepath.Join(tmp, fmt.Sprintf("r%d-%d", i, v)), v)
			if err != nil {
				return err
			}
			side := "no --ui"
			if v > 0 {
				side = fmt.Sprintf("--ui, %d viewers", v)
				on = append(on, r)
			} else {
				off = append(off, r)
			}
			fmt.Printf("%-5d %-22s %7.3fms %7.3fms %7.3fms %5.0f%% %8.2f %7d\n", i+1, side, r.lag.P50, r.lag.P99, r.lag.Max, 100*r.cpu, r.load, r.frames)
			if r.dropped > 0 {
				fmt.Printf("      %d viewer(s) dropped for falling behind\n", r.dropped)
			}
		}
	}
	med := func(rs []result, f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		return stats.Median(v)
	}
	t := measured.Table{Name: "uicost", Title: "What the live page (--ui) costs a real run: the harness's send lag without and with viewers",
		Columns: []string{"side", "runs", "send lag p50 ms", "p99 ms", "max ms", "CPU %", "load 1m"},
		Notes: []string{fmt.Sprintf("herdbench scenario %s, run by the CLI; medians over the runs, the first side alternating from round to round.", scenario),
			"Send lag is summary.json's harness.send_lag_ms: how late the swarm sent against its schedule."}}
	for _, s := range []struct {
		name string
		rs   []result
	}{{"no --ui", off}, {fmt.Sprintf("--ui, %d viewers", viewers), on}} {
		t.Rows = append(t.Rows, []string{s.name, fmt.Sprint(len(s.rs)),
			fmt.Sprintf("%.3f", med(s.rs, func(r result) float64 { return r.lag.P50 })), fmt.Sprintf("%.3f", med(s.rs, func(r result) float64 { return r.lag.P99 })),
			fmt.Sprintf("%.3f", med(s.rs, func(r result) float64 { return r.lag.Max })), fmt.Sprintf("%.0f", 100*med(s.rs, func(r result) float64 { return r.cpu })),
			fmt.Sprintf("%.2f", med(s.rs, func(r result) float64 { return r.load }))})
	}
	return rec.Finish("uicost", t, os.Stdout)
}

// once runs the scenario, with --ui and viewers event-stream readers when
// viewers > 0, and reads its summary.
func once(hb, scenario, out string, viewers int) (result, error) {
	args := []string{"scenario", scenario, "--out", out, "-q"}
	var addr string
	if viewers > 0 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return result{}, err
		}
		addr = ln.Addr().String()
		ln.Close()
		args = append(args, "--ui", addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, hb, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	var frames, dropped atomic.Int64
	var wg sync.WaitGroup
	for range viewers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, ended := watch(ctx, addr)
			frames.Add(n)
			if !ended {
				dropped.Add(1)
			}
		}()
	}
	err := cmd.Wait()
	wg.Wait()
	if code := cmd.ProcessState.ExitCode(); err != nil && code != 3 && code != 5 { // 3: a threshold failed, 5: not trustworthy; the figures stand
		return result{}, fmt.Errorf("herdbench %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	paths, _ := filepath.Glob(filepath.Join(out, "*", "summary.json"))
	if len(paths) != 1 {
		return result{}, fmt.Errorf("%d summaries in %s, want 1", len(paths), out)
	}
	b, err := os.ReadFile(paths[0])
	if err != nil {
		return result{}, err
	}
	var s results.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return result{}, err
	}
	if s.Harness == nil || s.Harness.SendLagMS == nil {
		return result{}, fmt.Errorf("%s has no harness.send_lag_ms", paths[0])
	}
	r := result{lag: *s.Harness.SendLagMS, cpu: s.Harness.CPU.Utilization, frames: frames.Load(), dropped: dropped.Load()}
	if l := s.Harness.CPU.LoadAvg1m; l != nil {
		r.load = *l
	}
	return r, nil
}

// watch reads the live page's event stream at addr until it ends (the
// run's end) and returns the frames read and whether the stream ended with
// the run's last frame (a viewer dropped for falling behind does not).
func watch(ctx context.Context, addr string) (frames int64, ended bool) {
	var resp *http.Response
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/live/events", nil)
		r, err := http.DefaultClient.Do(req)
		if err == nil && r.StatusCode == http.StatusOK {
			resp = r
			break
		}
		if err == nil {
			r.Body.Close()
		}
		time.Sleep(20 * time.Millisecond)
	}
	if resp == nil {
		return 0, false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "data: {\"run\"") {
			frames++
			ended = ended || strings.Contains(line, `"done":true`)
		}
	}
	return frames, ended
}
