package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/report"
)

// endsAfter is a context that ends at its n-th check (Err): an interrupt
// that arrives at a known point of a long read, without timing.
type endsAfter struct {
	context.Context
	left atomic.Int64
	once sync.Once
	done chan struct{}
}

func newEndsAfter(n int64) *endsAfter {
	c := &endsAfter{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(n)
	return c
}

func (c *endsAfter) Err() error {
	if c.left.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

func (c *endsAfter) Done() <-chan struct{} { return c.done }

// longTimeline makes the folder dir a run of 600 s whose timeline.csv
// (1.5 MB) is damaged on its last line: a reader that does not stop
// reading when interrupted reaches it and fails with exit code 1.
func longTimeline(t *testing.T, dir string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := folder.DecodeSummary(raw)
	if err != nil {
		t.Fatal(err)
	}
	s.DurationS = 600
	if raw, err = folder.EncodeSummary(s); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("strategy,t_s,attempts,ok,requests,succeeded\n")
	for i := range 60_000 {
		fmt.Fprintf(&b, "no-jitter,%.2f,1,1,1,1\n", float64(i)/100)
	}
	b.WriteString("no-jitter,600.00,1,damaged,1,1\n")
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "timeline.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReportAndMergeStopOnInterrupt: an interrupt (Ctrl-C or SIGTERM,
// which cancel the command's context) that arrives while herdbench report
// or merge reads a long timeline.csv stops the read at once: exit code
// 130 and nothing written, not the read to the end and its exit code 1.
func TestReportAndMergeStopOnInterrupt(t *testing.T) {
	dir := shardFolders(t, fmt.Sprintf(mergeable, "amplification <= 10"), 2)
	shards, _ := os.ReadDir(dir)
	first := filepath.Join(dir, shards[0].Name())
	for _, s := range shards {
		longTimeline(t, filepath.Join(dir, s.Name()))
	}

	var stdout, stderr strings.Builder
	if code := run(newEndsAfter(3), []string{"report", first, "--no-png"}, &stdout, &stderr); code != exitSignal || !strings.Contains(stderr.String(), "interrupted; nothing was written") {
		t.Errorf("report: exit %d, want %d\n%s", code, exitSignal, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(first, "report.html")); err == nil {
		t.Errorf("an interrupted report wrote report.html")
	}

	out := t.TempDir()
	stderr.Reset()
	if code := run(newEndsAfter(3), []string{"merge", dir, "--out", out, "--no-png", "-q"}, &stdout, &stderr); code != exitSignal || !strings.Contains(stderr.String(), "interrupted; nothing was written") {
		t.Errorf("merge: exit %d, want %d\n%s", code, exitSignal, stderr.String())
	}
	if e, _ := os.ReadDir(out); len(e) != 0 {
		t.Errorf("an interrupted merge wrote %d entries", len(e))
	}

	// Not interrupted, both read to the damaged line and say so.
	for _, args := range [][]string{{"report", first, "--no-png"}, {"merge", dir, "--out", out, "-q"}} {
		code, _, stderr := runCLI(t, args...)
		if code != exitFailed || !strings.Contains(stderr, "line 60002: ok is not a whole number") {
			t.Errorf("%s: exit %d, want %d and the damaged line\n%s", args[0], code, exitFailed, stderr)
		}
	}
}

// TestMergeStopsOnInterruptWhileWriting: an interrupt (Ctrl-C or SIGTERM,
// which cancel the command's context) that arrives once the shards are
// read, while the merged folder is written or its report drawn, stops the
// merge: exit 130, nothing written, not even a hidden folder. A merge
// once finished then and exited 0: its shards are still there to merge
// again, while a folder the user stopped is one they did not want.
func TestMergeStopsOnInterruptWhileWriting(t *testing.T) {
	dir := shardFolders(t, fmt.Sprintf(mergeable, "amplification <= 10"), 2)
	for _, when := range []string{"writing", "drawing"} {
		t.Run(when, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			draw := renderReport
			t.Cleanup(func() { renderReport = draw })
			renderReport = func(d string, o report.Options) error {
				if when == "writing" {
					cancel() // the data is written: the interrupt comes as the report begins
					return draw(d, o)
				}
				err := draw(d, o)
				cancel() // the report is drawn, the folder not yet published
				return err
			}
			out := t.TempDir()
			var stdout, stderr strings.Builder
			if code := run(ctx, []string{"merge", dir, "--out", out, "--no-png", "-q"}, &stdout, &stderr); code != exitSignal || !strings.Contains(stderr.String(), "herdbench merge: interrupted; nothing was written") {
				t.Errorf("exit %d, want %d\n%s", code, exitSignal, stderr.String())
			}
			if e, _ := os.ReadDir(out); len(e) != 0 {
				t.Errorf("an interrupted merge left %d entries in --out: %v", len(e), e)
			}
			if stdout.Len() != 0 {
				t.Errorf("an interrupted merge printed its figures:\n%s", stdout.String())
			}
		})
	}
}
