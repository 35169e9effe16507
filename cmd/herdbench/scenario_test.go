package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
)

// TestScenarioSim: --sim --runs writes a summary in sim mode with stats;
// the same seed gives the same figures.
func TestScenarioSim(t *testing.T) {
	var prev []byte
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		code, out, errs := runCLI(t, "scenario", "aws-contention", "--sim", "--runs", "5", "--clients", "20", "--strategies", "full,none", "--out", dir, "-q", "--no-png")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if !strings.Contains(out, "calls") || !strings.Contains(out, "±") {
			t.Fatalf("no stats table:\n%s", out)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*", "summary.json"))
		if len(files) != 1 {
			t.Fatalf("summaries %v", files)
		}
		data, err := os.ReadFile(files[0])
		if err != nil {
			t.Fatal(err)
		}
		var s results.Summary
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		if s.Mode != "sim" || s.Clients != 20 || s.Repetitions != 5 || len(s.Runs) != 2 || s.Runs[0].Stats["calls"].N != 5 {
			t.Fatalf("summary: mode %s, clients %d, repetitions %d", s.Mode, s.Clients, s.Repetitions)
		}
		s.Started, s.Version = s.Started.AddDate(-s.Started.Year(), 0, 0), ""
		b, _ := json.Marshal(s.Runs)
		if prev != nil && !bytes.Equal(prev, b) {
			t.Fatal("two runs with one seed differ")
		}
		prev = b
	}
}

// TestScenarioSweep: --clients with several counts writes sweep.csv, one
// row per count and strategy, and a summary per count.
func TestScenarioSweep(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runCLI(t, "scenario", "aws-contention", "--sim", "--runs", "3", "--clients", "5,10", "--strategies", "full,none", "--out", dir, "-q")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	csv, err := filepath.Glob(filepath.Join(dir, "*", "sweep.csv"))
	if err != nil || len(csv) != 1 {
		t.Fatalf("sweep.csv: %v %v", csv, err)
	}
	data, _ := os.ReadFile(csv[0])
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[1], "5,full,3,") || !strings.HasPrefix(lines[4], "10,none,3,") {
		t.Fatalf("sweep.csv:\n%s", data)
	}
	for _, n := range []string{"5", "10"} {
		if _, err := os.Stat(filepath.Join(filepath.Dir(csv[0]), "summary-clients-"+n+".json")); err != nil {
			t.Error(err)
		}
	}
	if code, _, _ := runCLI(t, "scenario", "aws-contention", "--sim", "--runs", "0"); code != exitUsage {
		t.Errorf("--runs 0: exit %d", code)
	}
	if code, _, _ := runCLI(t, "scenario", "aws-contention", "--sim", "--clients", "0"); code != exitUsage {
		t.Errorf("--clients 0: exit %d", code)
	}
}
