package engine

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/herdbench/herdbench/scenarios"
	"go.uber.org/goleak"
)

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.1.2.3": true, "::1": true, "localhost": true, "LOCALHOST": true, "localhost.": true,
		"::ffff:127.0.0.1": true,
		"10.0.0.1":         false, "0.0.0.0": false, "::": false, "example.com": false, "localhost.example.com": false,
		"128.0.0.1": false, "": false,
	} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

func externalPlan(t *testing.T, url string, o scenarios.Overrides) *scenarios.Plan {
	t.Helper()
	s, err := scenarios.Parse("ext.yaml", []byte(`name: ext
duration: 400ms
seed: 3
target:
  url: `+url+`
chaos:
  - kind: outage
    at: 100ms
    for: 100ms
workload:
  kind: closed
  clients: 5
  think: 10ms
strategies:
  - name: full
    backoff: full
    base: 10ms
    timeout: 200ms
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Compile(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRemoteTargetRefused: a target off loopback without AllowRemote is
// refused by Start, before anything starts.
func TestRemoteTargetRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := externalPlan(t, "http://192.0.2.1:8080/", scenarios.Overrides{})
	r, err := Start(context.Background(), p, "test")
	if r != nil || !errors.Is(err, ErrRemoteTarget) || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("Start: %v, %v; want ErrRemoteTarget naming --allow-remote", r, err)
	}
	if err := CheckTarget("http://192.0.2.1:8080/", true); err != nil {
		t.Errorf("CheckTarget with allowRemote: %v", err)
	}
}

// TestExternalTarget runs a swarm against an httptest server standing in
// for an external service: the load goes there, the summary computes the
// figures with the scenario's fault windows as the expected times.
func TestExternalTarget(t *testing.T) {
	defer goleak.VerifyNone(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	p := externalPlan(t, srv.URL+"/work", scenarios.Overrides{})
	r, err := Start(context.Background(), p, "test")
	if err != nil {
		t.Fatal(err)
	}
	out := r.Wait()
	s := out.Summary
	if s.Target != srv.URL+"/work" || len(s.Faults) != 1 || len(s.Runs) != 1 {
		t.Fatalf("summary: target %q, faults %v, runs %d", s.Target, s.Faults, len(s.Runs))
	}
	// Attempts cut short by the run's end reach the server but are not
	// recorded: at most one per client.
	if run := s.Runs[0]; run.Attempts == 0 || run.Attempts > hits.Load() || hits.Load()-run.Attempts > 5 || run.Outcomes["ok"] != run.Attempts {
		t.Errorf("attempts %d, ok %d; the external target saw %d", run.Attempts, run.Outcomes["ok"], hits.Load())
	}
	srv.CloseClientConnections()
}

// TestEarlyEndIsNotPartial: a run whose clients all stop before its end
// (a oneshot workload) ended normally; only a stopped run is partial.
func TestEarlyEndIsNotPartial(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	s, err := scenarios.Parse("oneshot.yaml", []byte("name: oneshot\nduration: 5s\nworkload:\n  kind: oneshot\n  clients: 3\nstrategies:\n  - name: a\n    backoff: full\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Compile(scenarios.Overrides{Target: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(context.Background(), p, "test")
	if err != nil {
		t.Fatal(err)
	}
	out := r.Wait()
	if out.Summary.Partial || out.Summary.Runs[0].Succeeded != 3 {
		t.Errorf("oneshot run: partial %v, succeeded %d; want complete, 3", out.Summary.Partial, out.Summary.Runs[0].Succeeded)
	}
	// Stopped early: partial.
	r, err = Start(context.Background(), externalPlan(t, srv.URL, scenarios.Overrides{}), "test")
	if err != nil {
		t.Fatal(err)
	}
	r.Stop()
	if out := r.Wait(); !out.Summary.Partial {
		t.Error("a stopped run is not marked partial")
	}
	srv.CloseClientConnections()
}
