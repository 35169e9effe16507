package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/spf13/pflag"
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

// TestSeedResolvedOnce: a scenario without a seed gets one drawn by the
// command, the same for every point of a sweep, recorded in every summary
// and in scenario.yaml; two such runs draw different seeds.
func TestSeedResolvedOnce(t *testing.T) {
	t.Parallel() // its own folders, ports and child processes
	scenario := writeScenario(t, "name: s\nduration: 1s\nworkload:\n  clients: 2\nstrategies:\n  - name: a\n    backoff: full\n")
	var drawn []uint64
	for range 2 {
		dir := t.TempDir()
		if code, _, errs := runCLI(t, "scenario", scenario, "--sim", "--clients", "1,2", "--out", dir, "-q"); code != exitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*", "summary-clients-*.json"))
		if len(files) != 2 {
			t.Fatalf("summaries %v", files)
		}
		var seed uint64
		for i, f := range files {
			s := readJSON(t, f)
			if i > 0 && s.Seed != seed {
				t.Fatalf("the points of one sweep ran with seeds %d and %d", seed, s.Seed)
			}
			seed = s.Seed
		}
		yaml, err := os.ReadFile(filepath.Join(filepath.Dir(files[0]), "scenario.yaml"))
		if err != nil || !strings.Contains(string(yaml), fmt.Sprintf("seed: %d\n", seed)) {
			t.Fatalf("scenario.yaml does not record seed %d (%v):\n%s", seed, err, yaml)
		}
		drawn = append(drawn, seed)
	}
	if drawn[0] == drawn[1] {
		t.Errorf("two runs without a seed both ran with seed %d", drawn[0])
	}
}

// TestScenarioSweep: --clients with several counts writes sweep.csv, one
// row per count and strategy, with the swept field's column, and a summary
// per count.
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
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "workload.clients,clients,strategy,runs,") || !strings.HasPrefix(lines[1], "5,5,full,3,") || !strings.HasPrefix(lines[4], "10,10,none,3,") {
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

// TestServerSeed: herdbench target and proxy resolve their seed as the
// scenario command does: --seed, else the scenario's, else a fresh one.
func TestServerSeed(t *testing.T) {
	withSeed := writeScenario(t, "name: x\nseed: 42\ntarget: {concurrency: 2}\n")
	noSeed := writeScenario(t, "name: x\ntarget: {concurrency: 2}\n")
	seedOf := func(args ...string) uint64 {
		t.Helper()
		var f serveFlags
		fs := pflag.NewFlagSet("target", pflag.ContinueOnError)
		f.add(fs, "127.0.0.1:0", "127.0.0.1:0", 1, "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		p, err := f.loadServerPlan(fs)
		if err != nil {
			t.Fatal(err)
		}
		return p.Seed
	}
	if s := seedOf("--scenario", withSeed, "--seed", "5"); s != 5 {
		t.Errorf("--seed 5: seed %d", s)
	}
	if s := seedOf("--scenario", withSeed); s != 42 {
		t.Errorf("the scenario's seed 42: seed %d", s)
	}
	if a, b := seedOf("--scenario", noSeed), seedOf(); a == b {
		t.Errorf("without a seed, two starts drew the same seed %d", a)
	}
}
