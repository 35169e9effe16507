package main

import (
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// TestUIAddrRefused: --ui has the control API's rules on the three
// commands: loopback only unless --allow-remote, and off loopback only
// with a token; each refusal is exit code 2 before anything listens or
// runs, saying what to do. --ui needs a real-time run.
func TestUIAddrRefused(t *testing.T) {
	defer goleak.VerifyNone(t)
	t.Setenv(tokenEnv, "")
	scenario := writeScenario(t, "name: u\nduration: 200ms\nworkload:\n  clients: 1\nstrategies:\n  - name: a\n    backoff: full\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--ui", "0.0.0.0:0"}, "--ui 0.0.0.0:0: not on loopback"},
		{[]string{"--ui", "127.1:0"}, "ends in a number"},
		{[]string{"--ui", "192.0.2.1:0"}, "pass --allow-remote"},
		{[]string{"--ui", "0.0.0.0:0", "--allow-remote"}, "--ui 0.0.0.0:0 is off loopback"},
	} {
		out := t.TempDir()
		for _, args := range [][]string{
			append([]string{"scenario", scenario, "--out", out, "-q"}, c.args...),
			append([]string{"target", "--out", out}, c.args...),
			append([]string{"proxy", "--upstream", "http://127.0.0.1:9", "--out", out}, c.args...),
		} {
			code, _, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, c.want) {
				t.Errorf("%v: exit code %d, stderr:\n%s\nwant 2 and %q", args, code, stderr, c.want)
			}
		}
		if entries, _ := os.ReadDir(out); len(entries) != 0 {
			t.Errorf("%v: a refused run wrote %d entries", c.args, len(entries))
		}
	}
	if code, _, stderr := runCLI(t, "scenario", scenario, "--sim", "--ui", "127.0.0.1:0", "--out", t.TempDir()); code != exitUsage || !strings.Contains(stderr, "--ui needs a real-time run") {
		t.Errorf("--sim --ui: exit code %d, stderr:\n%s", code, stderr)
	}
	// With a token off loopback is allowed: the check passes (the
	// listener itself is not opened here: 0.0.0.0 is this machine's).
	if err := checkUI("0.0.0.0:0", true, "0123456789abcdef0123"); err != nil {
		t.Errorf("--ui 0.0.0.0:0 --allow-remote with a token: %v", err)
	}
}
