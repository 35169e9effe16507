package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The test binary plays three parts, chosen by an environment variable: the
// test, a bench (which starts its target with Serve and prints the target's
// PID), and the target (which prints an address and waits an hour).
func TestMain(m *testing.M) {
	switch os.Getenv("HERDBENCH_CLI_TEST_PART") {
	case "target":
		fmt.Println("127.0.0.1:1")
		time.Sleep(time.Hour) // a timer, not select{}: the runtime would call select{} a deadlock
		os.Exit(0)
	case "bench":
		os.Setenv("HERDBENCH_CLI_TEST_PART", "target")
		_, pid, _, err := Serve("-test.run=^$")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(pid)
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A bench killed before its stop runs (SIGKILL, or an interrupt that ends it
// at once) takes its target with it: none is left behind on loopback.
func TestServeTargetDiesWithTheBench(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bench := exec.Command(self, "-test.run=^$")
	bench.Env = append(os.Environ(), "HERDBENCH_CLI_TEST_PART=bench")
	out, err := bench.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bench.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		_ = bench.Process.Kill()
		t.Fatalf("the bench did not start its target: %v", err)
	}
	target, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("the bench printed %q, not a PID", line)
	}
	if err := syscall.Kill(target, 0); err != nil {
		t.Fatalf("the target %d is not running: %v", target, err)
	}
	_ = bench.Process.Kill()
	_ = bench.Wait()
	// The kernel signals the target as the bench dies; init reaps it. Wait
	// for that (bounded), not for a guessed interval.
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(target, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(target, syscall.SIGKILL)
			t.Fatalf("the target %d outlived its bench by 10 s", target)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
