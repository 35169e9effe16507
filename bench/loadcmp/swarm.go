package main

import (
	"context"
	"encoding/json"
	"io"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/results"
)

// runSwarm runs herdbench's real-time swarm, full recording on, as a
// closed loop of conns clients with no think time and no retries, and
// prints the attempt latency p99 as JSON.
func runSwarm(url string, conns int, d time.Duration, shaped bool, w io.Writer) error {
	rec := results.NewRecorder(d, 8)
	var mix *clients.Mix
	if shaped {
		mix = shapedMix()
	}
	s := &swarm.Swarm{
		URL:      url,
		Strategy: &clients.Strategy{Name: "bench", Backoff: clients.Backoff{Shape: clients.None}, MaxAttempts: 1, Timeout: 10 * time.Second, Requests: mix},
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

// shapedMix is the "herdbench-shaped" tool's requests: a staging mix of
// four, each with placeholders filled per request (the slow path of the
// swarm's request bytes).
func shapedMix() *clients.Mix {
	json := clients.Header{Name: "Content-Type", Value: "application/json"}
	return clients.NewMix([]clients.Request{
		{Method: "GET", Path: "/users/{client}", Weight: 4, Retry: true, Header: []clients.Header{{Name: "Authorization", Value: "Bearer bench-token"}}},
		{Method: "PUT", Path: "/items/{rand:1:1000}", Weight: 2, Retry: true, Header: []clients.Header{json}, Body: []byte(`{"name": "widget", "quantity": 3, "tags": ["ci", "nginx"]}` + "\n")},
		{Method: "DELETE", Path: "/items/{rand:1:1000}", Weight: 1, Retry: true},
		{Method: "POST", Path: "/orders", Weight: 1, Header: []clients.Header{json, {Name: "Idempotency-Key", Value: "{uuid}"}}, Body: []byte(`{"item": {rand:1:1000}, "client": {client}}`), FillBody: true},
	})
}

// maxRSS returns the child's peak resident set in KiB.
func maxRSS(st interface{ SysUsage() any }) int64 {
	if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
