package engine

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/netguard/dnstest"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
	"go.uber.org/goleak"
)

// fakeDNS answers from a table; other names do not exist.
func fakeDNS(table map[string]string) *net.Resolver {
	return dnstest.Resolver(func(name string) []netip.Addr {
		if a, ok := table[name]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}
		}
		return nil
	})
}

// TestTargetCheckedByAddress: whether a target is on loopback is decided
// from the addresses its host resolves to, not from its spelling; a host
// whose meaning depends on who reads it is refused.
func TestTargetCheckedByAddress(t *testing.T) {
	defer goleak.VerifyNone(t)
	dns := fakeDNS(map[string]string{"localhost": "203.0.113.7", "evil.test": "198.51.100.1", "local.test": "127.0.0.1"})
	for _, c := range []struct {
		url  string
		want string // "" when allowed
	}{
		{"http://127.0.0.1:8080/", ""},
		{"http://[::1]:8080/", ""},
		{"http://[::ffff:127.0.0.1]:8080/", ""},
		{"http://local.test:8080/", ""},
		{"http://localhost:8080/", ""}, // from /etc/hosts
		{"http://localhost.:8080/", "localhost. resolves to 203.0.113.7"},
		{"http://LOCALHOST.:8080/", "LOCALHOST. resolves to 203.0.113.7"},
		{"http://evil.test:8080/", "evil.test resolves to 198.51.100.1"},
		{"http://127.1:8080/", "ends in a number"},
		{"http://0x7f.1:8080/", "ends in a number"},
		{"http://2130706433:8080/", "ends in a number"},
		{"http://127.0.0.1.:8080/", "ends in a number"},
		{"http://[::ffff:10.0.0.1]:8080/", "10.0.0.1 is off"},
		{"http://0.0.0.0:8080/", "every interface"},
		{"http://nx.test:8080/", "cannot be checked"},
	} {
		err := checkTarget(context.Background(), c.url, netguard.Guard{Resolver: dns})
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.url, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.url, err, c.want)
		}
		if strings.Contains(c.want, "resolves") && !errors.Is(err, ErrRemoteTarget) {
			t.Errorf("%s: %v does not wrap ErrRemoteTarget", c.url, err)
		}
	}
	// Start refuses before anything starts, with the run's resolver.
	p := externalPlan(t, "http://localhost.:8080/", scenarios.Overrides{})
	if r, err := Start(context.Background(), p, Options{Network: Network{Resolver: dns}}); r != nil || !errors.Is(err, ErrRemoteTarget) || !strings.Contains(err.Error(), "--allow-remote") {
		t.Fatalf("Start: %v, %v; want ErrRemoteTarget naming --allow-remote", r, err)
	}
}

// TestSwarmDialsOnlyCheckedAddresses: a name that resolves to loopback for
// the check and then to an address off the machine (DNS rebinding) gets no
// connection from the swarm: its dialer checks every address it connects
// to.
func TestSwarmDialsOnlyCheckedAddresses(t *testing.T) {
	defer goleak.VerifyNone(t)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	var queries atomic.Int64
	dns := dnstest.Resolver(func(name string) []netip.Addr {
		if name != "rebind.test" {
			return nil
		}
		// The check asks twice (A and AAAA); every later answer is off
		// loopback.
		if queries.Add(1) <= 2 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
		}
		return []netip.Addr{netip.MustParseAddr("192.0.2.1")}
	})
	p := externalPlan(t, "http://rebind.test:"+port+"/", scenarios.Overrides{})
	r, err := Start(context.Background(), p, Options{Network: Network{Resolver: dns}})
	if err != nil {
		t.Fatalf("the check saw loopback, Start should pass: %v", err)
	}
	run := r.Wait().Summary.Runs[0]
	if hits.Load() != 0 || run.Outcomes["ok"] != 0 || queries.Load() <= 2 {
		t.Errorf("after rebinding: %d requests reached the loopback server, %d ok attempts, %d DNS answers; want none reaching it and the dials refused",
			hits.Load(), run.Outcomes["ok"], queries.Load())
	}
	srv.CloseClientConnections()
}

func externalPlan(t *testing.T, url string, o scenarios.Overrides) *scenarios.Plan {
	t.Helper()
	return scenariotest.Plan(t, `name: ext
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
`, o)
}

// TestRemoteTargetRefused: a target off loopback without AllowRemote is
// refused by Start, before anything starts.
func TestRemoteTargetRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	p := externalPlan(t, "http://192.0.2.1:8080/", scenarios.Overrides{})
	r, err := Start(context.Background(), p, Options{Version: "test"})
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
	r, err := Start(context.Background(), p, Options{Version: "test"})
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
	p := scenariotest.Plan(t, "name: oneshot\nduration: 5s\nworkload:\n  kind: oneshot\n  clients: 3\nstrategies:\n  - name: a\n    backoff: full\n", scenarios.Overrides{Target: srv.URL})
	r, err := Start(context.Background(), p, Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	out := r.Wait()
	if out.Summary.Partial || out.Summary.Runs[0].Succeeded != 3 {
		t.Errorf("oneshot run: partial %v, succeeded %d; want complete, 3", out.Summary.Partial, out.Summary.Runs[0].Succeeded)
	}
	// Stopped early: partial.
	r, err = Start(context.Background(), externalPlan(t, srv.URL, scenarios.Overrides{}), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	r.Stop()
	if out := r.Wait(); !out.Summary.Partial {
		t.Error("a stopped run is not marked partial")
	}
	srv.CloseClientConnections()
}
