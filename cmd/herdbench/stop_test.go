package main

import (
	"context"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopBound is how long a stopping target or proxy may take before the
// test calls it hung: far above the milliseconds a stop takes, so that it
// fails only on a deadlock, never on a slow machine.
const stopBound = 30 * time.Second

// TestServeStopsWithNothingRecorded: a target or proxy that recorded
// nothing since its last results stops on each of the three ways to stop
// it (Ctrl-C, SIGTERM, --exit-after), saying nothing was recorded, with
// exit code 0. Its end of the recording once took the recorder's lock
// twice and hung there until SIGKILL.
func TestServeStopsWithNothingRecorded(t *testing.T) {
	upstream := []string{"--upstream", "http://127.0.0.1:9/"} // never reached: nothing is sent
	for _, tc := range []struct {
		name   string
		role   string
		signal syscall.Signal // 0: --exit-after
	}{
		{"target-ctrl-c", "target", syscall.SIGINT},
		{"target-sigterm", "target", syscall.SIGTERM},
		{"target-exit-after", "target", 0},
		{"proxy-ctrl-c", "proxy", syscall.SIGINT},
		{"proxy-sigterm", "proxy", syscall.SIGTERM},
		{"proxy-exit-after", "proxy", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr syncBuffer
			args := []string{tc.role, "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--out", out, "--no-png"}
			if tc.role == "proxy" {
				args = append(args, upstream...)
			}
			ctx := context.Background()
			if tc.signal == 0 {
				args = append(args, "--exit-after", "50ms")
			} else {
				var release func()
				ctx, release = interruptible(ctx, args, &stderr, func(int) { t.Error("a second signal was needed to exit") })
				defer release()
			}
			done := make(chan int, 1)
			go func() { done <- run(ctx, args, &stdout, &stderr) }()
			if tc.signal != 0 {
				stderr.waitFor(t, controlAddrRE)
				if err := syscall.Kill(os.Getpid(), tc.signal); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case code := <-done:
				if code != exitOK {
					t.Errorf("exit code %d, want 0\nstderr:\n%s", code, stderr.String())
				}
			case <-time.After(stopBound):
				t.Fatalf("herdbench %s still running %s after it was told to stop (hung)\nstderr:\n%s", tc.role, stopBound, stderr.String())
			}
			if want := regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} herdbench ` + tc.role + `: interrupted; stopping`); tc.signal != 0 && !want.MatchString(stderr.String()) {
				t.Errorf("the interrupt line is not written as the %s's other log lines (the time, the role):\n%s", tc.role, stderr.String())
			}
			if !strings.Contains(stderr.String(), "nothing recorded") {
				t.Errorf("stderr does not say nothing was recorded:\n%s", stderr.String())
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("%d entries written in --out, want none", len(entries))
			}
		})
	}
}
