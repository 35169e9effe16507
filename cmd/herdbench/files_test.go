package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cliChild runs herdbench in a child process (TestMain's
// HERDBENCH_TEST_ARGS): its address space limited to what it holds at
// its start plus 512 MiB (without -race, whose shadow memory does not fit
// under a limit), so that reading without a bound dies of Go's
// out-of-memory at once instead of taking the machine's memory; and
// killed if it has not ended within a minute, so that a read that blocks
// fails the test instead of hanging it. It returns the exit code (-1 when
// killed by a signal) and stderr.
func cliChild(t *testing.T, args ...string) (int, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	list, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	child := exec.CommandContext(ctx, self, "-test.run=^$")
	child.Env = append(os.Environ(), "HERDBENCH_TEST_ARGS="+string(list), "GOTRACEBACK=")
	if _, err := os.Stat("/proc/self/statm"); err == nil && !raceEnabled {
		child.Env = append(child.Env, "HERDBENCH_TEST_AS="+strconv.Itoa(512<<20))
	}
	var stderr strings.Builder
	child.Stderr = &stderr
	err = child.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Errorf("herdbench %s: still running after a minute (blocked?); killed", strings.Join(args, " "))
		return -1, stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestHeaderFileThatNeverEndsIsRefused: --header-file /dev/zero and a
// file of the kernel's whose size says 0 (/proc/self/pagemap reads as
// 256 GiB) were read whole, and herdbench died of Go's fatal
// out-of-memory; a FIFO blocked the command, and its first SIGTERM. Each
// is now refused at once, exit 2, naming the file; a token file likewise.
func TestHeaderFileThatNeverEndsIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "headers")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	out := t.TempDir()
	for path, kind := range map[string]string{
		fifo:                 "is a named pipe (FIFO)",
		"/dev/zero":          "is a device",
		"/proc/self/pagemap": "is a file of the kernel's",
	} {
		if _, err := os.Stat(path); err != nil {
			t.Logf("%s: %v; skipped", path, err)
			continue
		}
		code, stderr := cliChild(t, "scenario", "outage", "--sim", "--duration", "2s", "--header-file", path, "--out", out, "-q", "--no-png")
		if code != exitUsage || !strings.Contains(stderr, "--header-file "+path+" "+kind) {
			t.Errorf("--header-file %s: exit %d, stderr:\n%.2000s\nwant %d and %q", path, code, stderr, exitUsage, kind)
		}
	}
	code, stderr := cliChild(t, "target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--control-token-file", fifo, "--exit-after", "1s")
	if code != exitUsage || !strings.Contains(stderr, "--control-token-file "+fifo+": is a named pipe (FIFO)") {
		t.Errorf("--control-token-file FIFO: exit %d, stderr:\n%.2000s", code, stderr)
	}
}

// TestValidateSurvivesABodyWhoseSizeSaysZero: a body file linked to
// /proc/self/pagemap passed stat's size check (0 bytes) and was read
// whole: validate itself died of Go's fatal out-of-memory.
func TestValidateSurvivesABodyWhoseSizeSaysZero(t *testing.T) {
	if _, err := os.Stat("/proc/self/pagemap"); err != nil {
		t.Skip("no /proc/self/pagemap here")
	}
	dir := t.TempDir()
	if err := os.Symlink("/proc/self/pagemap", filepath.Join(dir, "body.bin")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte("name: z\nrequests:\n  - {method: POST, path: /, body: \"@body.bin\"}\nstrategies:\n  - {name: a, backoff: full}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stderr := cliChild(t, "validate", p)
	if code != exitUsage || !strings.Contains(stderr, "the body file body.bin leads out of the folder") {
		t.Errorf("exit %d, stderr:\n%.2000s\nwant %d, the body refused", code, stderr, exitUsage)
	}
}

// TestValidateNeverPrintsAFileOutsideTheFolder: "targets:
// /proc/self/environ" made herdbench validate print the process's
// environment (every CI secret in it) to stderr, and a targets file
// linked out of the folder its first line.
func TestValidateNeverPrintsAFileOutsideTheFolder(t *testing.T) {
	secret := plantSecret(t)
	dir := t.TempDir()
	if err := os.Symlink(secret, filepath.Join(dir, "targets.txt")); err != nil {
		t.Fatal(err)
	}
	for _, targets := range []string{"/proc/self/environ", secret, "targets.txt"} {
		p := filepath.Join(dir, "s.yaml")
		if err := os.WriteFile(p, []byte("name: v\ntargets: "+targets+"\nstrategies:\n  - {name: a, backoff: full}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runCLI(t, "validate", p)
		if code != exitUsage || !strings.Contains(stderr, "targets: the targets file "+targets) {
			t.Errorf("targets: %s: exit %d, stderr:\n%.2000s\nwant %d naming the file", targets, code, stderr, exitUsage)
		}
		if all := stdout + stderr; strings.Contains(all, "PATH=") || strings.Contains(all, planted) {
			t.Errorf("targets: %s: the file is quoted:\n%.2000s", targets, all)
		}
	}
}
