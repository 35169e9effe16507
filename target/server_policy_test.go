package target

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/target/model"
)

func TestServerWritesRetryAfter(t *testing.T) {
	p := plan(t, chaos.Timed{Name: "pushback", Kind: "pushback", At: 0, For: time.Hour, Fault: chaos.Pushback{Rate: 1, Status: 503, RetryAfter: 3 * time.Second}})
	s, err := Listen(Options{Config: model.Config{Concurrency: 1, Queue: 1, ServiceTime: dist.Const(0)}, Plan: p, RNG: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	resp, err := http.Post(s.URL(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "3" {
		t.Fatalf("status %d, Retry-After %q; want 503, 3", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// In the real server, a queued request whose client times out is still
// served, and holds its slot while it is.
func TestServerServesAbandonedWork(t *testing.T) {
	cfg := model.Config{Concurrency: 1, Queue: 10, QueueTimeout: time.Minute, ServiceTime: dist.Const(100 * time.Millisecond), ServeAbandoned: true}
	s, err := Listen(Options{Config: cfg, Plan: plan(t), RNG: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	first := make(chan error, 1)
	go func() {
		resp, err := hc.Post(s.URL(), "", nil)
		if err == nil {
			_ = resp.Body.Close()
		}
		first <- err
	}()
	pollUntil(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.model.Busy() == 1 })
	// The second client gives up while its request waits in the queue.
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL(), nil)
		_, err := hc.Do(req)
		second <- err
	}()
	pollUntil(t, func() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.model.QueueLen() == 1 })
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("second request: %v, want canceled", err)
	}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	pollUntil(t, func() bool { return s.Stats().Served == 2 })
	if st := s.Stats(); st.Wasted != 1 || st.Abandoned != 0 {
		t.Fatalf("stats %+v; want the abandoned request served as wasted work", st)
	}
}

// pollUntil polls cond until it holds, failing after 10 s.
func pollUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 10s")
		}
		time.Sleep(time.Millisecond)
	}
}
