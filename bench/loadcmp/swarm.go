package main

import (
	"context"
	"encoding/json"
	"io"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
)

// runSwarm runs herdbench's real-time swarm, full recording on, as a
// closed loop of conns clients with no think time and no retries, and
// prints the attempt latency p99 as JSON.
func runSwarm(url string, conns int, d time.Duration, w io.Writer) error {
	rec := results.NewRecorder(d, 8)
	s := &clients.Swarm{
		URL:      url,
		Strategy: &clients.Strategy{Name: "bench", Backoff: clients.Backoff{Shape: clients.None}, MaxAttempts: 1, Timeout: 10 * time.Second},
		Workload: &clients.Workload{Kind: clients.Closed, Clients: conns},
		Seed:     1,
		Origin:   time.Now().Add(50 * time.Millisecond),
		Duration: d,
		Rec:      rec,
	}
	s.Run(context.Background())
	a, _ := rec.Histograms()
	l := rec.Live()
	return json.NewEncoder(w).Encode(struct{ P99Micros, Attempts, OK int64 }{a.ValueAtQuantile(99), l.Attempts, l.OK})
}

// maxRSS returns the child's peak resident set in KiB.
func maxRSS(st interface{ SysUsage() any }) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
