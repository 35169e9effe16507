// Command recordcost measures what recording the traffic costs a chaos
// proxy: the throughput of herdbench's proxy in front of a trivial
// upstream, with its recording on (cohorts by User-Agent, attempt numbers
// from a header, as at a game day) and off, side by side in one process,
// in interleaved rounds, reporting each side's median, their ratio and
// the median of the ratios of adjacent rounds.
// Everything runs on 127.0.0.1 and stops by itself.
//
//	go run ./bench/recordcost -rounds 7 -round 2s -clients 32
//
// Its closing table is also written to docs/measured/recordcost.json and
// recordcost.md, with the date, machine, load and command (-record "" writes
// none), and docs/performance.md's current figures are synced from them;
// run it from the repository's root.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
	"github.com/herdbench/herdbench/proxy"
	"github.com/herdbench/herdbench/recording"
)

func main() {
	rounds := flag.Int("rounds", 7, "rounds of each side, interleaved (on, off, on, off, ...)")
	round := flag.Duration("round", 2*time.Second, "length of one round")
	clients := flag.Int("clients", 32, "concurrent keep-alive clients")
	rec := measured.Flag()
	flag.Parse()
	if *rounds < 1 || *rounds > 50 || *round <= 0 || *round > time.Minute || *clients < 1 || *clients > 1000 {
		fmt.Fprintln(os.Stderr, "recordcost: give 1-50 rounds of at most 1m with 1-1000 clients")
		os.Exit(2)
	}
	if err := run(*rounds, *round, *clients, rec); err != nil {
		fmt.Fprintln(os.Stderr, "recordcost:", err)
		os.Exit(1)
	}
}

func run(rounds int, round time.Duration, clients int, mr *measured.Recorder) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	upstream := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok\n") })}
	go func() { _ = upstream.Serve(ln) }()
	defer upstream.Close()
	up, _ := url.Parse("http://" + ln.Addr().String())

	by, _ := recording.ParseCohortBy("user-agent")
	attempts, _ := recording.ParseAttemptHeader(recording.AWSHeader)
	rec := recording.New(recording.Options{By: "proxy", CohortBy: by, Attempts: attempts})
	on, err := proxy.Start(proxy.Options{Upstream: up, Observer: rec})
	if err != nil {
		return err
	}
	defer on.Close()
	off, err := proxy.Start(proxy.Options{Upstream: up})
	if err != nil {
		return err
	}
	defer off.Close()

	// Rounds in pairs, the side that goes first alternating (on off, off
	// on, ...), so that a drift in the machine's load falls on both sides;
	// each pair's ratio compares two adjacent rounds.
	var onRates, offRates, ratios []float64
	for i := range rounds {
		first, second := on, off
		if i%2 == 1 {
			first, second = off, on
		}
		r1 := float64(load(first.URL()+"/", clients, round)) / round.Seconds()
		r2 := float64(load(second.URL()+"/", clients, round)) / round.Seconds()
		rOn, rOff := r1, r2
		if i%2 == 1 {
			rOn, rOff = r2, r1
		}
		onRates, offRates = append(onRates, rOn), append(offRates, rOff)
		if rOff > 0 {
			ratios = append(ratios, rOn/rOff)
		}
	}
	seg, err := rec.Snapshot()
	if err != nil {
		return err
	}
	var recorded int64
	for _, r := range seg.Output.Summary.Runs {
		recorded += r.Attempts
	}
	mOn, mOff := stats.Median(onRates), stats.Median(offRates)
	t := measured.Table{Name: "recordcost", Title: "What recording costs the chaos proxy: throughput with its recording on and off",
		Columns: []string{"recording", "median requests/s", "rounds (requests/s)"},
		Rows: [][]string{
			{"on", fmt.Sprintf("%.0f", mOn), rates(onRates)},
			{"off", fmt.Sprintf("%.0f", mOff), rates(offRates)},
			{"on / off", fmt.Sprintf("%.3f", mOn/mOff), fmt.Sprintf("%.3f (the median of the %d adjacent pairs' ratios)", stats.Median(ratios), len(ratios))},
		},
		Notes: []string{
			fmt.Sprintf("%d rounds of %s each side, %d keep-alive clients, interleaved (on off, off on, ...) against a trivial upstream, all in one process.", rounds, round, clients),
			fmt.Sprintf("Recording by User-Agent with attempt numbers from a header, as at a game day; it held %d attempts in %d cohorts.", recorded, len(seg.Output.Summary.Runs)),
		}}
	return mr.Finish("recordcost", t, os.Stdout)
}

// load sends POSTs through url from clients keep-alive connections for d
// and returns how many were answered 200.
func load(target string, clients int, d time.Duration) int64 {
	tr := &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var n atomic.Int64
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ua := "client-" + strconv.Itoa(i%4)
			for attempt := 1; ctx.Err() == nil; attempt = attempt%3 + 1 {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, target, http.NoBody)
				req.Header.Set("User-Agent", ua)
				req.Header.Set("Amz-Sdk-Request", "attempt="+strconv.Itoa(attempt)+"; max=3")
				resp, err := c.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK && ctx.Err() == nil {
					n.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return n.Load()
}

func rates(v []float64) string {
	s := ""
	for i, r := range v {
		if i > 0 {
			s += " "
		}
		s += strconv.FormatFloat(r, 'f', 0, 64)
	}
	return s
}
