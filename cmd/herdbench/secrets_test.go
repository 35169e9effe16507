package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The secrets planted in TestNoOutputHoldsASecret's inputs: a password in
// the target URL, a header value in --header-file, a control and --ui
// token, and a header value in the scenario's request mix.
const (
	plantedPassword = "pw-PLANTED-7f3a91"
	plantedHeader   = "hdr-PLANTED-c4e2b8"
	plantedToken    = "tok-PLANTED-5d9e0a6b1c2f3e4d"
	plantedMix      = "mix-PLANTED-81be0c"
)

// plantedSecrets are the secrets and the forms they travel in (the URL's user and
// password as an Authorization: Basic value).
var plantedSecrets = []string{plantedPassword, plantedHeader, plantedToken, plantedMix,
	base64.StdEncoding.EncodeToString([]byte("alice:" + plantedPassword))}

const secretScenario = `name: secrets
duration: 1500ms
seed: 3
workload:
  clients: 4
  think: 20ms
requests:
  - method: POST
    path: /orders
    headers: {Content-Type: application/json, X-Service-Key: ` + plantedMix + `}
chaos:
  - {name: crash, kind: outage, at: 400ms, for: 300ms}
strategies:
  - {name: jitter, backoff: full, base: 20ms, cap: 200ms, max_attempts: 4, timeout: 1s}
`

// TestNoOutputHoldsASecret runs herdbench as a game day does, on
// 127.0.0.1: a standalone target (a control token, a live page, a
// recording) behind a chaos proxy (its recording), and two runs of a
// scenario through the proxy with a password in the target URL, an API key
// in --header-file, a secret header in its request mix, the control
// token, a live page with a token, --junit and --json. It then reads every
// output: every file each of them wrote (results folders, report.html,
// scenario.yaml, summary.json, the JUnit file), their stdout and stderr,
// the live pages' event streams while the run went, and the proxy's
// refusal of an upstream URL with a password; no planted secret is in any.
func TestNoOutputHoldsASecret(t *testing.T) {
	in, out := t.TempDir(), t.TempDir() // inputs (which hold the secrets), outputs
	write := func(name, body string) string {
		p := filepath.Join(in, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tok := write("token", plantedToken+"\n")
	hdr := write("headers", "X-Api-Key: "+plantedHeader+"\n")
	scen := write("secrets.yaml", secretScenario)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	var outputs []*syncBuffer
	serve := func(args ...string) (stdout, stderr *syncBuffer) {
		stdout, stderr = &syncBuffer{}, &syncBuffer{}
		outputs = append(outputs, stdout, stderr)
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(ctx, args, stdout, stderr)
		}()
		return stdout, stderr
	}
	_, tgtErr := serve("target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--control-token-file", tok,
		"--ui", "127.0.0.1:0", "--out", filepath.Join(out, "target"), "--no-png", "--exit-after", "30s")
	upstream := tgtErr.waitFor(t, serveAddrRE)
	tgtPage := tgtErr.waitFor(t, livePageRE)
	_, pxErr := serve("proxy", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--control-token-file", tok,
		"--upstream", upstream, "--scenario", scen, "--hold", "--out", filepath.Join(out, "proxy"), "--no-png", "--exit-after", "30s")
	front := pxErr.waitFor(t, serveAddrRE)
	control := pxErr.waitFor(t, controlAddrRE)
	target := strings.Replace(front, "http://", "http://alice:"+plantedPassword+"@", 1) + "/"

	var streams []*syncBuffer
	for i, args := range [][]string{
		{"--json", "--junit", filepath.Join(out, "junit.xml")},
		{"--ui", "127.0.0.1:0", "--ui-token-file", tok},
	} {
		stdout, stderr := &syncBuffer{}, &syncBuffer{}
		outputs = append(outputs, stdout, stderr)
		done := make(chan int, 1)
		go func() {
			done <- run(ctx, append([]string{"scenario", scen, "--target", target, "--header-file", hdr,
				"--chaos-control", control, "--chaos-control-token-file", tok, "-o", filepath.Join(out, "runs"), "--no-png"}, args...), stdout, stderr)
		}()
		if i == 1 {
			page := stderr.waitFor(t, livePageRE)
			streams = append(streams, watchEvents(t, page), watchEvents(t, tgtPage))
		}
		if code := <-done; code != exitOK && code != exitThresholds && code != exitUntrustworthy { // the verdict: the machine
			t.Fatalf("run %d: exit code %d\nstdout:\n%s\nstderr:\n%s", i+1, code, stdout.String(), stderr.String())
		}
		if i == 1 && !strings.Contains(stdout.String(), "jitter") {
			t.Errorf("run %d printed no comparison table:\n%s", i+1, stdout.String())
		}
	}
	cancel() // the target and the proxy write their recordings and exit
	wg.Wait()
	outputs = append(outputs, streams...)

	// The proxy refuses an upstream URL with a password, and says so
	// without quoting it.
	code, stdout, stderr := runCLI(t, "proxy", "--upstream", "http://alice:"+plantedPassword+"@127.0.0.1:9/", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0")
	if code != exitUsage || !strings.Contains(stderr, "alice:xxxxx@127.0.0.1:9") {
		t.Errorf("proxy --upstream with a password: exit code %d, want %d, and the URL masked:\n%s", code, exitUsage, stderr)
	}
	refusal := &syncBuffer{}
	_, _ = io.WriteString(refusal, stdout+stderr)
	outputs = append(outputs, refusal)

	files := 0
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		noSecret(t, path, string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, o := range outputs {
		noSecret(t, "output "+string(rune('A'+i)), o.String())
	}
	// What was read is what a run writes: two runs' folders with their
	// reports, the JUnit file, the recordings of the target and the proxy.
	for _, glob := range []string{"runs/*/report.html", "runs/*/scenario.yaml", "runs/*/summary.json", "junit.xml", "target/*/summary.json", "proxy/*/report.html"} {
		if m, _ := filepath.Glob(filepath.Join(out, glob)); len(m) == 0 {
			t.Errorf("no %s was written: the test read less than a run writes", glob)
		}
	}
	for _, s := range streams {
		if !strings.Contains(s.String(), "data:") {
			t.Errorf("a live page's event stream sent nothing to read:\n%.300s", s.String())
		}
	}
	t.Logf("read %d files and %d outputs: no planted secret", files, len(outputs))
}

// noSecret fails t when text holds a planted secret.
func noSecret(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range plantedSecrets {
		if i := strings.Index(text, s); i >= 0 {
			t.Errorf("%s holds the planted secret %q: ...%s...", where, s, text[max(0, i-120):min(len(text), i+len(s)+40)])
		}
	}
}

// watchEvents reads a live page's event stream, with the token, until the
// stream ends, and returns what it read.
func watchEvents(t *testing.T, page string) *syncBuffer {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(page, "/")+"/live/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+plantedToken)
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("the live page's events: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the live page's events: %s", resp.Status)
	}
	buf := &syncBuffer{}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			_, _ = buf.Write(append(sc.Bytes(), '\n'))
		}
	}()
	return buf
}
