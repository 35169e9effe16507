package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/herdbench/herdbench/engine"
)

// folderSize is the bytes of the regular files under dir.
func folderSize(t *testing.T, dir string) uint64 {
	t.Helper()
	var n uint64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += uint64(info.Size())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOutputEstimateIsHonest compares engine.EstimateOutput with the
// folders real runs write: each between 0.5 and 1 of its estimate, so a
// run refused for want of space would not have fitted, and one that fits
// is not refused for far too little.
func TestOutputEstimateIsHonest(t *testing.T) {
	t.Parallel() // its own folders, ports and child processes
	if testing.Short() {
		t.Skip("writes several results folders")
	}
	if raceEnabled {
		// Simulated runs only, up to 20,000 clients: five times the CPU
		// under -race for nothing the race detector looks at (the
		// simulator's own tests run under it). CI runs it without -race.
		t.Skip("simulated runs only; CI runs it without -race, beside TestMemoryEstimateIsHonest")
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"10s, 100 clients, PNGs", []string{"outage", "--sim", "--duration", "10s", "--clients", "100"}},
		{"60s, 1000 clients", []string{"outage", "--sim", "--duration", "60s", "--clients", "1000", "--no-png"}},
		{"20s, 20,000 clients, 2 cohorts", []string{"outage", "--sim", "--duration", "20s", "--clients", "20000", "--strategies", "no-jitter,decorrelated", "--no-png"}},
		{"a sweep of 3 points", []string{"aws-contention", "--sim", "--clients", "10,20,30", "--no-png"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			args := append(append([]string{"scenario"}, c.args...), "--seed", "1", "--out", out, "-q")
			if code := run(context.Background(), args, &stdout, &stderr); code != exitOK && code != exitThresholds {
				t.Fatalf("exit %d\n%s", code, stderr.String())
			}
			sr, code, _ := planScenario(args[1:], &stdout, &stderr)
			if code != exitOK {
				t.Fatalf("planScenario: %d\n%s", code, stderr.String())
			}
			dpi := 120
			if sr.f.noPNG {
				dpi = 0
			}
			est := engine.EstimateOutput(sr.plans, sr.opts, dpi)
			got := folderSize(t, out)
			ratio := float64(got) / float64(est.Total)
			t.Logf("folder %d bytes, estimate %s: %.2f", got, est, ratio)
			if ratio < 0.5 || ratio > 1 {
				t.Errorf("the folder takes %d bytes, %.2f of the estimate %s; want 0.5 to 1", got, ratio, est)
			}
		})
	}
}

// A run whose results would not fit in --out's free space is refused
// before it starts (exit 2), saying how much it needs and how much is
// free. The file system is a 1 MiB tmpfs, mounted for the test: it skips
// where it cannot mount one (not root, no mount in the container).
func TestFullDiskRefusedBeforeTheRun(t *testing.T) {
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1M", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"scenario", "outage", "--sim", "--duration", "60s", "--clients", "1000", "--out", mnt, "-q"}, &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, stderr.String())
	}
	for _, want := range []string{"has 1.0 MiB free", "results folder needs about", "Nothing ran"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if entries, _ := os.ReadDir(mnt); len(entries) != 0 {
		t.Errorf("a refused run wrote %d entries", len(entries))
	}
	// A run that fits is not refused.
	stderr.Reset()
	if code := run(context.Background(), []string{"scenario", "outage", "--sim", "--duration", "10s", "--clients", "10", "--strategies", "no-jitter", "--out", mnt, "-q", "--no-png"}, &stdout, &stderr); code != exitOK && code != exitThresholds {
		t.Errorf("a small run: exit %d\n%s", code, stderr.String())
	}
}

// When the results folder cannot be written at the end after all (here
// --out became a file), the figures are not lost: summary.json goes into
// the temporary folder, and herdbench says where; where nothing can be
// written, it prints the summary.
func TestUnwritableResultsKeepTheSummary(t *testing.T) {
	sr, code, _ := planScenario([]string{"outage", "--sim", "--duration", "10s", "--clients", "10", "--strategies", "no-jitter", "--seed", "1"}, new(bytes.Buffer), new(bytes.Buffer))
	if code != exitOK {
		t.Fatal(code)
	}
	points, err := engine.Execute(context.Background(), sr.plans, sr.opts)
	if err != nil {
		t.Fatal(err)
	}
	blocked := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sr.f.out = filepath.Join(blocked, "runs") // no folder can be made under a file
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var stdout, stderr bytes.Buffer
	var dir string
	if code := finish(&stdout, &stderr, "scenario", &sr.f, points, false, &dir); code != exitFailed {
		t.Errorf("exit %d, want %d", code, exitFailed)
	}
	saved, _ := filepath.Glob(filepath.Join(tmp, "outage-*.summary.json"))
	if len(saved) != 1 || !strings.Contains(stderr.String(), "the figures are saved in "+saved[0]) {
		t.Fatalf("saved %v; stderr:\n%s", saved, stderr.String())
	}
	if s := readJSON(t, saved[0]); len(s.Runs) != 1 || s.Runs[0].Attempts == 0 {
		t.Errorf("the saved summary: %+v", s.Runs)
	}

	t.Setenv("TMPDIR", filepath.Join(blocked, "tmp"))
	stderr.Reset()
	finish(&stdout, &stderr, "scenario", &sr.f, points, false, &dir)
	if !strings.Contains(stderr.String(), "could not be saved anywhere; here it is:") || !strings.Contains(stderr.String(), `"scenario": "outage"`) {
		t.Errorf("with nowhere to write, stderr:\n%s", stderr.String())
	}
}
