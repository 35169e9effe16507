package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain runs this test binary as herdbench itself when a test starts it
// again as a child process (HERDBENCH_TEST_ARGS, a JSON list), with the
// open-files limit HERDBENCH_TEST_NOFILE, and an address-space limit
// HERDBENCH_TEST_AS bytes above what it holds at its start.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("HERDBENCH_TEST_ARGS"); ok {
		crashNotUsage() // as main does
		if extra, ok := os.LookupEnv("HERDBENCH_TEST_AS"); ok {
			limitAddressSpace(extra)
		}
		if n, err := strconv.ParseUint(os.Getenv("HERDBENCH_TEST_NOFILE"), 10, 64); err == nil {
			var lim syscall.Rlimit
			_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
			lim.Cur = n
			if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
				fmt.Fprintln(os.Stderr, "setrlimit:", err)
				os.Exit(1)
			}
		}
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			fmt.Fprintln(os.Stderr, "HERDBENCH_TEST_ARGS:", err)
			os.Exit(1)
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := run(ctx, list, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestServeAddressesRefused: herdbench target and proxy serve on loopback
// only unless --allow-remote, and a control API off loopback needs a
// token; each refusal is exit code 2 before anything listens, with what to
// do.
func TestServeAddressesRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	dir := t.TempDir()
	short := filepath.Join(dir, "short")
	if err := os.WriteFile(short, []byte("abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	if err := os.WriteFile(good, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(tokenEnv, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--listen", "0.0.0.0:0"}, "--listen 0.0.0.0:0: not on loopback: 0.0.0.0 (every interface) is off"},
		{[]string{"--listen", ":0"}, "every interface"},
		{[]string{"--listen", "[::]:0"}, "every interface"},
		{[]string{"--listen", "127.1:0"}, "ends in a number"},
		{[]string{"--listen", "0x7f.1:0"}, "ends in a number"},
		{[]string{"--listen", "192.0.2.1:0"}, "pass --allow-remote"},
		{[]string{"--listen", "127.0.0.1"}, "write host:port"},
		{[]string{"--control-addr", "0.0.0.0:0"}, "--control-addr 0.0.0.0:0: not on loopback"},
		{[]string{"--control-addr", "[::ffff:10.1.2.3]:0"}, "10.1.2.3 is off"},
		{[]string{"--control-addr", "0.0.0.0:0", "--allow-remote"}, "needs a token" + "|" + "give it a token with --control-token-file"},
		{[]string{"--control-token", "short"}, "is 5 characters long; use at least 16"},
		{[]string{"--control-token", "has space 0123456789"}, "has a space"},
		{[]string{"--control-token-file", short}, "is 3 characters long"},
		{[]string{"--control-token-file", dir}, "is a folder, not a regular file"},
		{[]string{"--control-token-file", filepath.Join(dir, "none")}, "no such file"},
		{[]string{"--control-token-file", good, "--control-token", "0123456789abcdef0123"}, "not both"},
	} {
		for _, role := range []string{"target", "proxy"} {
			args := append([]string{role}, c.args...)
			if role == "proxy" {
				args = append(args, "--upstream", "http://127.0.0.1:9")
			}
			code, _, stderr := runCLI(t, args...)
			ok := false
			for _, w := range strings.Split(c.want, "|") {
				ok = ok || strings.Contains(stderr, w)
			}
			if code != exitUsage || !ok {
				t.Errorf("%v: exit code %d, stderr:\n%s\nwant 2 and %q", args, code, stderr, c.want)
			}
		}
	}
	t.Setenv(tokenEnv, "short")
	if code, _, stderr := runCLI(t, "target"); code != exitUsage || !strings.Contains(stderr, "the token in "+tokenEnv+" is 5 characters long") {
		t.Errorf("a short token in %s: exit code %d, stderr:\n%s", tokenEnv, code, stderr)
	}
}

// TestMetricsAddrRefused: --metrics-addr serves on loopback only unless
// --allow-remote.
func TestMetricsAddrRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	scenario := writeScenario(t, "name: m\nduration: 200ms\nworkload:\n  clients: 1\nstrategies:\n  - name: a\n    backoff: full\n")
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "127.1:0"} {
		out := t.TempDir()
		code, _, stderr := runCLI(t, "scenario", scenario, "--metrics-addr", addr, "--out", out, "-q", "--allow-untrustworthy")
		if code != exitUsage || !strings.Contains(stderr, "--metrics-addr") || !(strings.Contains(stderr, "--allow-remote") || strings.Contains(stderr, "ends in a number")) {
			t.Errorf("--metrics-addr %s: exit code %d, stderr:\n%s", addr, code, stderr)
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("--metrics-addr %s: a refused run wrote %d entries", addr, len(entries))
		}
	}
}

// TestMetricsAddrHasTheControlGuards: the swarm's --metrics-addr is behind
// the control API's guard: a Host that does not name its address (a
// DNS-rebinding page) and another site's Origin are refused, a token,
// when set, is required; and off loopback it needs one, as --ui does,
// refused before anything runs.
func TestMetricsAddrHasTheControlGuards(t *testing.T) {
	metrics := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("# metrics\n")) })
	bound := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9100}
	const token = "metrics-token-0123456789abcdef"
	for _, c := range []struct {
		token, host, origin, auth string
		code                      int
	}{
		{"", "127.0.0.1:9100", "", "", 200},
		{"", "localhost:9100", "", "", 200},
		{"", "evil.example:9100", "", "", 403},
		{"", "127.0.0.1:9100", "http://evil.example", "", 403},
		{token, "127.0.0.1:9100", "", "", 401},
		{token, "127.0.0.1:9100", "", "Bearer wrong", 401},
		{token, "127.0.0.1:9100", "", "Bearer " + token, 200},
	} {
		h := metricsHandler("127.0.0.1:9100", bound, c.token, metrics)
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9100/metrics", nil)
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.code || c.code == 200 && rec.Body.String() != "# metrics\n" {
			t.Errorf("token %v, Host %s, Origin %q, Authorization %q: %d %q; want %d", c.token != "", c.host, c.origin, c.auth, rec.Code, rec.Body, c.code)
		}
	}

	t.Setenv(tokenEnv, "")
	scenario := writeScenario(t, "name: m\nduration: 200ms\nworkload:\n  clients: 1\nstrategies:\n  - name: a\n    backoff: full\n")
	code, _, stderr := runCLI(t, "scenario", scenario, "--metrics-addr", "0.0.0.0:0", "--allow-remote", "--out", t.TempDir(), "-q")
	if code != exitUsage || !strings.Contains(stderr, "--metrics-addr 0.0.0.0:0 is off loopback") || !strings.Contains(stderr, "--metrics-token-file") {
		t.Errorf("--metrics-addr off loopback without a token: exit %d, stderr %q; want 2 and a refusal naming --metrics-token-file", code, stderr)
	}
}

// TestChaosControlGuarded: --chaos-control has the loopback interlock and
// follows no redirect (a 307 would re-send the start elsewhere): the run is
// refused before it starts, naming where the redirect pointed, and nothing
// reaches that place.
func TestChaosControlGuarded(t *testing.T) {
	defer goleak.VerifyNone(t)
	var elsewhere atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		_, _ = io.WriteString(w, "{}")
	}))
	defer other.Close()
	var redirects atomic.Int64
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		redirects.Add(1)
		http.Redirect(w, r, other.URL+"/control/status", http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	_, port, _ := net.SplitHostPort(other.Listener.Addr().String())
	scenario := writeScenario(t, "name: m\nduration: 200ms\nworkload:\n  clients: 1\nstrategies:\n  - name: a\n    backoff: full\n")
	for _, c := range []struct{ url, want string }{
		{redirecting.URL, "answered with a redirect to " + other.URL + "/control/status"},
		{"http://0.0.0.0:" + port, "not on loopback"}, // Linux would connect 0.0.0.0 to this machine
		{"http://[::ffff:0.0.0.0]:" + port, "not on loopback"},
		{"http://0177.0.0.1:" + port, "ends in a number"},
		{"https://127.0.0.1:" + port, "plain http"},
		{"http://user:pw@127.0.0.1:" + port, "without user"},
	} {
		out := t.TempDir()
		code, _, stderr := runCLI(t, "scenario", scenario, "--target", other.URL+"/", "--chaos-control", c.url, "--out", out, "-q", "--allow-untrustworthy")
		if code != exitUsage || !strings.Contains(stderr, "--chaos-control") || !strings.Contains(stderr, c.want) {
			t.Errorf("--chaos-control %s: exit code %d, stderr:\n%s\nwant 2 and %q", c.url, code, stderr, c.want)
		}
	}
	if redirects.Load() != 1 || elsewhere.Load() != 0 {
		t.Errorf("the redirecting control API was asked %d times and the place it pointed to %d times; want once and never", redirects.Load(), elsewhere.Load())
	}
}

// startServer runs herdbench target or proxy (args) in this process and
// returns its traffic and control base URLs; cancel stops it.
func startServer(t *testing.T, args ...string) (traffic, control string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int)
	args = append(args, "--out", t.TempDir(), "--no-png") // the report's PNGs are the report tests'
	go func() { done <- run(ctx, args, io.Discard, &stderr) }()
	control = stderr.waitFor(t, controlAddrRE)
	traffic = stderr.waitFor(t, serveAddrRE)
	return traffic, control, func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("%v: exit code %d after cancel; output:\n%s", args, code, stderr.String())
		}
	}
}

// TestChaosControlSendsToken: a target with a control token refuses calls
// without it; --chaos-control sends it (from HERDBENCH_CONTROL_TOKEN), as
// JSON, and starts the plan.
func TestChaosControlSendsToken(t *testing.T) {
	defer goleak.VerifyNone(t)
	const token = "0123456789abcdef-token"
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(tokenEnv, "")
	traffic, control, stop := startServer(t, "target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--hold", "--control-token-file", file)
	defer stop()
	status := func(auth string) (int, map[string]any) {
		req, _ := http.NewRequest("GET", control+"/control/status", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var st map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&st)
		return resp.StatusCode, st
	}
	if code, _ := status(""); code != http.StatusUnauthorized {
		t.Errorf("status without the token: %d, want 401", code)
	}
	scenario := writeScenario(t, "name: m\nduration: 300ms\nworkload:\n  clients: 2\n  think: 20ms\nstrategies:\n  - name: a\n    backoff: full\n")
	out := t.TempDir()
	code, _, stderr := runCLI(t, "scenario", scenario, "--target", traffic+"/", "--chaos-control", control, "--out", out, "-q", "--no-png")
	if code != exitUsage || !strings.Contains(stderr, "401 Unauthorized: this control API needs its token") {
		t.Errorf("--chaos-control without a token: exit code %d, stderr:\n%s", code, stderr)
	}
	if code, st := status("Bearer " + token); code != 200 || st["plan_running"] != false {
		t.Fatalf("after the refused run: %d %v, want the plan still held", code, st)
	}
	t.Setenv(tokenEnv, token)
	code, _, stderr = runCLI(t, "scenario", scenario, "--target", traffic+"/", "--chaos-control", control, "--out", out, "-q", "--no-png", "--allow-untrustworthy")
	if code != exitOK {
		t.Fatalf("--chaos-control with %s: exit code %d, stderr:\n%s", tokenEnv, code, stderr)
	}
	if code, st := status("Bearer " + token); code != 200 || st["plan_running"] != true {
		t.Errorf("after the run: %d %v, want the plan started by --chaos-control", code, st)
	}
	t.Setenv(tokenEnv, "")
	code, _, stderr = runCLI(t, "scenario", scenario, "--target", traffic+"/", "--chaos-control", control, "--chaos-control-token-file", file, "--out", out, "-q", "--no-png", "--allow-untrustworthy")
	if code != exitOK {
		t.Errorf("--chaos-control-token-file: exit code %d, stderr:\n%s", code, stderr)
	}
}

// TestControlAnswersUnderSlowloris: more slow connections than the traffic
// port's cap (headers sent a little at a time, never finished) do not
// starve the control API: /control/stop still answers within a second, and
// the target holds fewer files than it may open. The target runs in a
// child process allowed 256 open files, so that the cap, derived from that
// limit, is below the number of connections.
func TestControlAnswersUnderSlowloris(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process and opens 300 connections")
	}
	const nofile, slow = 256, 300
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command(self, "-test.run=^$")
	args, _ := json.Marshal([]string{"target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--exit-after", "2m", "--no-record"})
	child.Env = append(os.Environ(),
		"HERDBENCH_TEST_ARGS="+string(args),
		"HERDBENCH_TEST_NOFILE="+strconv.Itoa(nofile))
	stderr, err := child.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = child.Process.Signal(syscall.SIGTERM)
		_ = child.Wait()
	})
	var traffic, control string
	lines := bufio.NewScanner(stderr)
	for (traffic == "" || control == "") && lines.Scan() {
		if m := serveAddrRE.FindStringSubmatch(lines.Text()); m != nil {
			traffic = strings.TrimPrefix(m[1], "http://")
		}
		if m := controlAddrRE.FindStringSubmatch(lines.Text()); m != nil {
			control = m[1]
		}
	}
	if traffic == "" || control == "" {
		t.Fatalf("the child did not say where it serves")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := range slow {
		c, err := net.DialTimeout("tcp", traffic, 5*time.Second)
		if err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
		conns = append(conns, c)
		if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\n"); err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
	}
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	req, _ := http.NewRequest("POST", control+"/control/stop", nil)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST /control/stop with %d slow connections on the traffic port: %v", slow, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /control/stop: %s", resp.Status)
	}
	// The first slow connection is still held: the answer did not come
	// from the slow ones timing out.
	_ = conns[0].SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	if _, err := conns[0].Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("the first slow connection: %v, want it still open", err)
	}
	resp, err = client.Get(control + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`(?m)^process_open_fds (\S+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no process_open_fds in the target's metrics")
	}
	if fds, _ := strconv.ParseFloat(string(m[1]), 64); fds >= nofile {
		t.Errorf("the target has %v files open, its limit %d", fds, nofile)
	} else {
		t.Logf("%d slow connections sent; the target holds %v open files of %d", slow, fds, nofile)
	}
}

// TestControlAnswersWithIdleConnections: more idle keep-alive connections
// on the control port than its cap (32 shards or scrapers, each with Go's
// http.Client, which keeps an idle connection 90 s) do not lock the
// control API out: POST /control/stop still answers within a second. Then
// the mixed case: the cap held by idle connections and by slow ones (half
// a request's headers, never the rest), and the stop still answers.
// Real loopback: each idle connection has made a whole call, so the
// server has seen it; every call is bounded by its client's timeout.
func TestControlAnswersWithIdleConnections(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	_, control, stop := startServer(t, "target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--no-record")
	defer stop()
	var transports []*http.Transport
	defer func() {
		for _, tr := range transports {
			tr.CloseIdleConnections()
		}
	}()
	call := func(method, path string, timeout time.Duration) error {
		tr := &http.Transport{Proxy: nil} // keeps its connection alive after the call
		transports = append(transports, tr)
		req, _ := http.NewRequest(method, control+path, nil)
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: timeout, Transport: tr}).Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return errors.New(resp.Status)
		}
		return nil
	}
	const idle = 40 // more than the cap of 32
	for i := range idle {
		if err := call("GET", "/control/status", 2*time.Second); err != nil {
			t.Fatalf("idle client %d of %d: %v (the cap is held by the idle ones before it)", i+1, idle, err)
		}
	}
	if err := call("POST", "/control/stop", time.Second); err != nil {
		t.Fatalf("POST /control/stop after %d idle keep-alive connections: %v", idle, err)
	}

	for i := range idle {
		if err := call("GET", "/control/status", 2*time.Second); err != nil {
			t.Fatalf("idle client %d: %v", i+1, err)
		}
	}
	var slow []net.Conn
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	// The cap's places not held by the idle connections kept (8): the
	// stop finds the cap full, and an idle one gives way to it.
	for i := range 32 - 8 {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(control, "http://"), 2*time.Second)
		if err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
		slow = append(slow, c)
		if _, err := io.WriteString(c, "POST /control/stop HTTP/1.1\r\nHost: "+strings.TrimPrefix(control, "http://")+"\r\n"); err != nil {
			t.Fatalf("slow connection %d: %v", i, err)
		}
	}
	if err := call("POST", "/control/stop", time.Second); err != nil {
		t.Fatalf("POST /control/stop with the cap held by %d idle and %d slow connections: %v", idle, len(slow), err)
	}
}
