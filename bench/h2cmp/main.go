// Command h2cmp measures herdbench's HTTP/2 swarm against h2load (Debian's
// nghttp2-client), side by side and interleaved in one run, against one
// trivial h2c target on 127.0.0.1 in its own process.
//
// Both send the same thing the same way: a POST with an empty body, over
// -conns HTTP/2 connections (prior knowledge) of -streams streams each, in
// a closed loop (a stream's answer starts the next). herdbench runs
// conns × streams clients, -streams of them sharing each connection
// (connections: shared); h2load runs -c conns -m streams. Each run is its
// own process; rounds alternate which goes first. The figure is client
// CPU time (user + system, from the kernel's accounting of the child) per
// request the target served; the goal is at most 1.5 × h2load's.
//
//	go run ./bench/h2cmp -rounds 5 -duration 5s -conns 8 -streams 8
//
// Every run must have had (almost) every request answered 2xx, by its own
// count against the target's, or the comparison fails.
//
// Its closing table is also written to docs/measured/h2cmp.json and
// h2cmp.md, with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime/pprof"
	"strconv"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
)

func main() {
	serve := flag.String("serve", "", "internal: run the trivial h2c target on this address")
	swarm := flag.String("swarm", "", "internal: run herdbench's swarm against this URL")
	rounds := flag.Int("rounds", 3, "rounds; each runs both tools once, alternating which goes first")
	duration := flag.Duration("duration", 5*time.Second, "length of each run")
	conns := flag.Int("conns", 8, "HTTP/2 connections")
	streams := flag.Int("streams", 8, "concurrent streams per connection")
	profile := flag.String("cpuprofile", "", "with -swarm: write the swarm's CPU profile to this file")
	rec := measured.Flag()
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "h2cmp:", err)
			os.Exit(1)
		}
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	var err error
	switch {
	case *serve != "":
		err = runTarget(*serve)
	case *swarm != "":
		err = runSwarm(*swarm, *conns, *streams, *duration, os.Stdout)
	default:
		err = compare(*rounds, *duration, *conns, *streams, rec)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "h2cmp:", err)
		os.Exit(1)
	}
}

// runTarget serves the counted target (cli.Counted) over h2c and
// HTTP/1.1.
func runTarget(addr string) error {
	ln, err := cli.Listen(addr)
	if err != nil {
		return err
	}
	var p http.Protocols
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: cli.Counted(), Protocols: &p, HTTP2: &http.HTTP2Config{MaxConcurrentStreams: 1000}}
	return srv.Serve(ln)
}

// runSwarm runs herdbench's swarm over h2c, full recording on: conns ×
// streams closed-loop clients, streams to a connection, no think time, no
// retries; it prints its count of 2xx answers as JSON.
func runSwarm(url string, conns, streams int, d time.Duration, w io.Writer) error {
	rec := results.NewRecorder(d, 8)
	s := &swarm.Swarm{
		URL:      url,
		Strategy: &clients.Strategy{Name: "bench", Backoff: clients.Backoff{Shape: clients.None}, MaxAttempts: 1, Timeout: 10 * time.Second},
		Workload: &clients.Workload{Kind: clients.Closed, Clients: conns * streams},
		Seed:     1,
		Origin:   time.Now().Add(50 * time.Millisecond),
		Duration: d,
		Rec:      rec,
		Protocol: wire.H2C,
		Shared:   streams,
	}
	s.Run(context.Background())
	l := rec.Live()
	return json.NewEncoder(w).Encode(struct{ Attempts, OK int64 }{l.Attempts, l.OK})
}

type measure struct {
	requests int64 // served by the target
	ok       int64 // 2xx answers the tool counted
	cpu      time.Duration
}

func (m measure) cpuPerReq() float64 {
	return float64(m.cpu.Nanoseconds()) / 1e3 / float64(max(1, m.requests))
}

func compare(rounds int, d time.Duration, conns, streams int, rec *measured.Recorder) error {
	if _, err := exec.LookPath("h2load"); err != nil {
		return fmt.Errorf("h2load is not installed (Debian: apt-get install nghttp2-client)")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	addr, _, stop, err := cli.Serve("-serve", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer stop()
	url := "http://" + addr + "/"
	tools := []string{"herdbench", "h2load"}
	per := map[string][]float64{}
	for r := range rounds {
		for i := range tools {
			tool := tools[(i+r)%2]
			m, err := run(self, tool, url, addr, d, conns, streams)
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r+1, tool, err)
			}
			fmt.Fprintf(os.Stderr, "round %d %-9s %8d requests (%d answered 2xx) %6.2f µs CPU/request\n", r+1, tool, m.requests, m.ok, m.cpuPerReq())
			if m.ok < m.requests*99/100 || m.ok > m.requests {
				return fmt.Errorf("round %d, %s: %d answers 2xx for %d requests served: the comparison would be void", r+1, tool, m.ok, m.requests)
			}
			per[tool] = append(per[tool], m.cpuPerReq())
		}
	}
	hb, h2 := stats.Median(per["herdbench"]), stats.Median(per["h2load"])
	t := measured.Table{Name: "h2cmp", Title: "Client cost over h2c against h2load: client CPU per request at saturation on 127.0.0.1",
		Columns: []string{"tool", "client CPU µs/request", "ratio to h2load"},
		Rows: [][]string{
			{"herdbench", fmt.Sprintf("%.2f", hb), fmt.Sprintf("%.2f", hb/h2)},
			{"h2load", fmt.Sprintf("%.2f", h2), "1.00"},
		},
		Notes: []string{
			fmt.Sprintf("%d connections × %d streams, %s runs, medians of %d rounds, the first tool alternating.", conns, streams, d, rounds),
			"The goal: herdbench at most 1.5 times h2load's client CPU per request.",
		}}
	return rec.Finish("h2cmp", t, os.Stdout)
}

var h2loadOK = regexp.MustCompile(`status codes: (\d+) 2xx`)

func run(self, tool, url, addr string, d time.Duration, conns, streams int) (measure, error) {
	var cmd *exec.Cmd
	if tool == "herdbench" {
		cmd = exec.Command(self, "-swarm", url, "-conns", strconv.Itoa(conns), "-streams", strconv.Itoa(streams), "-duration", d.String())
	} else {
		// A POST with no body, as the swarm sends (h2load's -d needs a
		// file it can map, which an empty one is not).
		cmd = exec.Command("h2load", "-c", strconv.Itoa(conns), "-m", strconv.Itoa(streams), "-D", strconv.Itoa(int(d.Seconds())), "-H", ":method: POST", url)
	}
	before, err := cli.Served(addr)
	if err != nil {
		return measure{}, err
	}
	out, err := cmd.Output()
	if err != nil {
		return measure{}, fmt.Errorf("%v: %w", cmd.Args, err)
	}
	after, err := cli.Served(addr)
	if err != nil {
		return measure{}, err
	}
	st := cmd.ProcessState
	m := measure{requests: after - before, cpu: st.UserTime() + st.SystemTime()}
	if tool == "herdbench" {
		var r struct{ OK int64 }
		if err := json.Unmarshal(out, &r); err != nil {
			return m, err
		}
		m.ok = r.OK
	} else if sm := h2loadOK.FindSubmatch(out); sm != nil {
		m.ok, _ = strconv.ParseInt(string(sm[1]), 10, 64)
	}
	return m, nil
}
