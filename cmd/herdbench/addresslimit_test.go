package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// limitAddressSpace sets this process's RLIMIT_AS to what it holds now
// (VmSize: the Go runtime's reserve is taken at start) plus extra bytes.
func limitAddressSpace(extra string) {
	n, err := strconv.ParseUint(extra, 10, 64)
	statm, rerr := os.ReadFile("/proc/self/statm")
	if err != nil || rerr != nil {
		fmt.Fprintln(os.Stderr, "HERDBENCH_TEST_AS:", err, rerr)
		os.Exit(1)
	}
	pages, _ := strconv.ParseUint(strings.Fields(string(statm))[0], 10, 64)
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "getrlimit RLIMIT_AS:", err)
		os.Exit(1)
	}
	lim.Cur = min(lim.Max, pages*uint64(os.Getpagesize())+n)
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit RLIMIT_AS:", err)
		os.Exit(1)
	}
}

// underAddressLimit runs herdbench in a child process whose address space
// is limited to what it holds at its start plus 512 MiB.
func underAddressLimit(t *testing.T, args ...string) (*exec.ExitError, string) {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector's shadow memory does not fit under an address-space limit")
	}
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	list, _ := json.Marshal(args)
	child := exec.Command(self, "-test.run=^$")
	child.Env = append(os.Environ(), "HERDBENCH_TEST_ARGS="+string(list), "HERDBENCH_TEST_AS="+strconv.Itoa(512<<20), "GOTRACEBACK=")
	var stderr bytes.Buffer
	child.Stderr = &stderr
	err = child.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee, stderr.String()
}

// Under an address-space limit (ulimit -v) the default --max-memory is
// half of that limit less the Go runtime's reserve: a million simulated
// clients, which would die of Go's out of memory there, are refused before
// the run (exit 2), saying why.
func TestDefaultMaxMemoryHeedsAddressLimit(t *testing.T) {
	ee, stderr := underAddressLimit(t, "scenario", "outage", "--sim", "--duration", "10s", "--clients", "1000000", "--strategies", "no-jitter,full-jitter", "--out", t.TempDir(), "-q", "--no-png")
	if ee == nil || ee.ExitCode() != exitUsage || !strings.Contains(stderr, "address-space limit (ulimit -v") || !strings.Contains(stderr, "Nothing ran.") {
		t.Fatalf("exit %v; want %d, refused for the address-space limit\nstderr:\n%.2000s", ee, exitUsage, stderr)
	}
}

// When the Go runtime runs out of memory anyway (here --max-memory 0 turns
// the estimate off), herdbench does not exit with 2, the code of bad
// input: it ends with SIGABRT (134 in a shell), after the runtime's own
// report.
func TestRuntimeOutOfMemoryIsNotBadInput(t *testing.T) {
	ee, stderr := underAddressLimit(t, "scenario", "outage", "--sim", "--duration", "10s", "--clients", "1000000", "--strategies", "no-jitter,full-jitter", "--out", t.TempDir(), "-q", "--no-png", "--max-memory", "0")
	if ee == nil {
		t.Fatalf("the run fitted under the limit; it should not\nstderr:\n%.2000s", stderr)
	}
	ws, _ := ee.Sys().(syscall.WaitStatus)
	if ee.ExitCode() == exitUsage || !ws.Signaled() || ws.Signal() != syscall.SIGABRT {
		t.Errorf("exit code %d (signal %v); want SIGABRT, never %d", ee.ExitCode(), ws.Signal(), exitUsage)
	}
	if !strings.Contains(stderr, "out of memory") {
		t.Errorf("stderr lacks the runtime's out of memory:\n%.2000s", stderr)
	}
}
