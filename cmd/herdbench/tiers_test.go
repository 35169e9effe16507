package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestLayersInVirtualTime: the built-in layers through the command: the
// table of tiers on the terminal, each cohort's tiers in summary.json,
// timeline_tiers.csv and the chart of tiers beside the report.
func TestLayersInVirtualTime(t *testing.T) {
	t.Parallel() // its own folders, ports and child processes
	dir := t.TempDir()
	code, out, errs := runCLI(t, "scenario", "layers", "--sim", "--out", dir, "-q", "--explain")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"Attempts that reached each tier", "   service  ", "amplification at the bottom tier (service)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the terminal lacks %q:\n%s", want, out)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "summary.json"))
	if len(files) != 1 {
		t.Fatalf("summaries %v", files)
	}
	s := readJSON(t, files[0])
	for _, r := range s.Runs {
		if len(r.Tiers) != 3 || r.Tiers[2].Tier != "service" || r.Tiers[0].Attempts != r.Attempts {
			t.Errorf("%s's tiers: %+v", r.Strategy, r.Tiers)
		}
	}
	for _, name := range []string{"timeline_tiers.csv", "tiers_1s.png"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(files[0]), name)); err != nil {
			t.Errorf("the results folder lacks %s: %v", name, err)
		}
	}
}

// TestTierFlagsRefused: a tier or a retry strategy that the scenario does
// not have is refused before anything starts, saying what there is.
func TestTierFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"target", "--scenario", "layers", "--tier", "gatewy", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0"},
			"--tier gatewy: no such tier; the scenario's tiers: gateway, api, service"},
		{[]string{"target", "--scenario", "outage", "--tier", "gateway", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0"},
			"--tier gateway: the scenario has no tiers"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:9", "--retry", "nope", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0"},
			"--retry nope: no strategy of (no scenario) nor preset of that name"},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:9", "--scenario", "layers", "--retry", "every-tier", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0"},
			"name the tier the proxy plays with --tier (gateway, api)"},
	} {
		code, _, errs := runCLI(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, exitUsage, c.want)
		}
	}
}

// TestRetryingProxyInFrontOfATarget: herdbench proxy --retry in front of
// herdbench target on loopback, as a game day chains them: the target is
// down (503), and one request through the proxy reaches it as many times
// as the strategy allows, as /metrics of both say.
func TestRetryingProxyInFrontOfATarget(t *testing.T) {
	defer goleak.VerifyNone(t)
	down := writeScenario(t, `name: down
duration: 1h
target: {concurrency: 4}
chaos: [{name: down, kind: outage, mode: "503", at: 0s, for: 1h}]
`)
	retries := filepath.Join(t.TempDir(), "retries.yaml") // strategies only: the proxy applies no fault
	if err := os.WriteFile(retries, []byte("name: retries\nstrategies: [{name: three, backoff: constant, base: 10ms, max_attempts: 3, timeout: 1s}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	targetURL, targetControl, stopTarget := startServer(t, "target", "--scenario", down, "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0")
	defer stopTarget()
	proxyURL, proxyControl, stopProxy := startServer(t, "proxy", "--upstream", targetURL, "--scenario", retries, "--retry", "three",
		"--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0")
	defer stopProxy()
	// A PUT: idempotent, so the strategy retries it (a POST without an
	// idempotency key it would send once, as the swarm does).
	req, err := http.NewRequest(http.MethodPut, proxyURL+"/work", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("status %d, want the target's 503", resp.StatusCode)
	}
	_, proxied := scrape(t, proxyControl+"/metrics")
	if proxied["herdbench_proxy_upstream_attempts_total"] != 3 || proxied["herdbench_proxy_upstream_retries_total"] != 2 || proxied["herdbench_proxy_gave_up_total"] != 1 {
		t.Errorf("the proxy's counters: %v", proxied)
	}
	_, served := scrape(t, targetControl+"/metrics")
	if served[`herdbench_target_requests_total{outcome="http_5xx"}`] != 3 {
		t.Errorf("the target answered %v requests 503, want 3", served[`herdbench_target_requests_total{outcome="http_5xx"}`])
	}
}
