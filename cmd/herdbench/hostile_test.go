package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileDir holds results files a hostile or damaged folder may hold, each
// with a figure no run has that sizes what a reader keeps.
const hostileDir = "../../results/testdata/hostile"

// hostileFiles says, for each file of hostileDir, which file of a results
// folder it replaces and what the refusal says.
var hostileFiles = map[string]struct{ replaces, want string }{
	"interval-1e10s.hlog":          {"no-jitter.hlog", "an interval at 10000034530 s, after the run's end"},
	"timeline-rows-beyond-run.csv": {"timeline.csv", "line 303: cohort no-jitter: more than the 301 rows of 10 ms of a 3 s run"},
	"timeline-extra-cohorts.csv":   {"timeline.csv", "line 12: more than the 1 cohort of the run's summary.json"},
}

// TestHostileResultsFiles: herdbench report and herdbench merge refuse
// each hostile file of the corpus (in one shard's folder, for merge) with
// exit code 1 and a message naming the file and what is wrong, before it
// sizes anything: an interval at t = 10^10 s once made merge grow a slice
// to that index and die of Go's fatal out-of-memory.
func TestHostileResultsFiles(t *testing.T) {
	entries, err := os.ReadDir(hostileDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(hostileFiles) {
		t.Errorf("%s holds %d files, hostileFiles names %d", hostileDir, len(entries), len(hostileFiles))
	}
	for _, e := range entries {
		c, ok := hostileFiles[e.Name()]
		if !ok {
			t.Errorf("%s/%s has no expected refusal in hostileFiles", hostileDir, e.Name())
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(hostileDir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			dir := shardFolders(t, fmt.Sprintf(mergeable, "amplification <= 10"), 2)
			shards, _ := os.ReadDir(dir)
			bad := filepath.Join(dir, shards[1].Name())
			if err := os.WriteFile(filepath.Join(bad, c.replaces), data, 0o644); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			code, _, stderr := runCLI(t, "merge", dir, "--out", out, "--no-png", "-q")
			if code != exitFailed || !strings.Contains(stderr, filepath.Join(bad, c.replaces)) || !strings.Contains(stderr, c.want) {
				t.Errorf("merge: exit %d, want %d and %q\n%s", code, exitFailed, c.want, stderr)
			}
			if e, _ := os.ReadDir(out); len(e) != 0 {
				t.Errorf("a refused merge wrote %d entries", len(e))
			}
			code, _, stderr = runCLI(t, "report", bad, "--no-png")
			if code != exitFailed || !strings.Contains(stderr, filepath.Join(bad, c.replaces)) || !strings.Contains(stderr, c.want) {
				t.Errorf("report: exit %d, want %d and %q\n%s", code, exitFailed, c.want, stderr)
			}
		})
	}
}
