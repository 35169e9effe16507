package herdtest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A request function that never returns (blocked on a channel no one
// sends on) fails its own test with a message that says so, and the test
// binary goes on: the test after it runs and passes. Before, synctest's
// deadlock panicked the whole binary.
func TestRequestBlockedForeverFailsItsTestNotTheBinary(t *testing.T) {
	out := runHelpers(t, "TestHelperBlocksForever|TestHelperNewBlocksForever|TestHelperRunsAfter")
	for _, want := range []string{
		"--- FAIL: TestHelperBlocksForever",
		"cohort blocked: requests still running 1s after the run's end",
		"3 goroutines: chan receive (durable) in github.com/herdbench/herdbench/herdtest.TestHelperBlocksForever",
		"--- FAIL: TestHelperNewBlocksForever",
		"herdtest: the run never ended, its cohorts' code blocked for good",
		"--- PASS: TestHelperRunsAfter",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "panic:") {
		t.Errorf("the test binary panicked:\n%s", out)
	}
}

// A cohort whose code leaves a goroutine behind (a client library's
// background refresher, asleep between refreshes) fails its test with a
// message that names where that goroutine waits, and the test binary
// goes on.
func TestGoroutineLeftBehindFailsItsTestNotTheBinary(t *testing.T) {
	out := runHelpers(t, "TestHelperLeavesARefresher|TestHelperRunsAfter")
	for _, want := range []string{
		"--- FAIL: TestHelperLeavesARefresher",
		"goroutines of the cohorts' code still running after the run",
		"hang_test.go",
		"--- PASS: TestHelperRunsAfter",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "panic:") {
		t.Errorf("the test binary panicked:\n%s", out)
	}
}

func TestHelperBlocksForever(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestRequestBlockedForeverFailsItsTestNotTheBinary")
	}
	Run(t, Options{Scenario: "tiny.yaml", YAML: tinyYAML, Grace: time.Second, Out: t.TempDir()},
		Cohort{Name: "blocked", New: func(c *Client) RequestFunc {
			never := make(chan struct{})
			return func(ctx context.Context) error { <-never; return nil }
		}})
}

func TestHelperNewBlocksForever(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestRequestBlockedForeverFailsItsTestNotTheBinary")
	}
	Run(t, Options{Scenario: "tiny.yaml", YAML: tinyYAML, Out: t.TempDir()},
		Cohort{Name: "stuck-in-new", New: func(c *Client) RequestFunc {
			select {}
		}})
}

func TestHelperLeavesARefresher(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by TestGoroutineLeftBehindFailsItsTestNotTheBinary")
	}
	Run(t, Options{Scenario: "tiny.yaml", YAML: tinyYAML, Out: t.TempDir()},
		Cohort{Name: "refreshing", New: func(c *Client) RequestFunc {
			go refresher()
			return retrying(fullJitter)(c)
		}})
}

// A goroutine a client starts and stops in a Cleanup function is no
// goroutine left behind: the run passes, and every client's Cleanup ran.
func TestCleanupStopsWhatAClientStarted(t *testing.T) {
	var stopped atomic.Int64
	Run(t, Options{Scenario: "tiny.yaml", YAML: tinyYAML, Out: t.TempDir()},
		Cohort{Name: "refreshing", New: func(c *Client) RequestFunc {
			stop := make(chan struct{})
			go func() {
				tick := time.NewTicker(time.Minute)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
					}
				}
			}()
			c.Cleanup(func() { stopped.Add(1) })
			c.Cleanup(func() { close(stop) })
			return retrying(fullJitter)(c)
		}})
	if n := stopped.Load(); n != 3 {
		t.Errorf("%d clients' Cleanup ran, want 3", n)
	}
}

// tinyYAML is a short run of three clients.
var tinyYAML = []byte("name: tiny\nduration: 2s\nseed: 1\nworkload:\n  clients: 3\n")

// refresher is a library's background refresher: it wakes every minute
// for ever.
func refresher() {
	for {
		time.Sleep(time.Minute)
	}
}

func TestHelperRunsAfter(t *testing.T) {
	if os.Getenv("HERDTEST_HELPER") == "" {
		t.Skip("run by the tests above")
	}
	Run(t, Options{Scenario: "tiny.yaml", YAML: tinyYAML, Out: t.TempDir()},
		Cohort{Name: "fine", New: retrying(fullJitter)})
}

// runHelpers runs the helper tests that match pattern in a child
// process, which must fail, and returns its output.
func runHelpers(t *testing.T, pattern string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^("+pattern+")$", "-test.v")
	cmd.Env = append(os.Environ(), "HERDTEST_HELPER=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s: want a failing test binary, it passed:\n%s", pattern, out)
	}
	return string(out)
}
