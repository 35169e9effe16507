package engine

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// TestSimOutputPinned: the simulator's results folder for the single-target
// built-ins, byte for byte: summary.json as the golden file, and a SHA-256
// of every other file (timelines and histogram logs). A change to the model
// that should leave a single target alone (chains of tiers, new policies,
// new fields) must leave these unmoved; a change meant to move them is
// rewritten with -update and its summary.json read by eye.
func TestSimOutputPinned(t *testing.T) {
	for _, name := range []string{"outage", "metastable", "aws-contention"} {
		t.Run(name, func(t *testing.T) {
			out := execute(t, plans(t, name, "", scenarios.Overrides{}), Options{Sim: true, Version: "pinned", Timelines: true})[0].Output
			out.Summary.Started = time.Unix(0, 0).UTC()
			out.Summary.Description = "" // prose, free to change
			dir := t.TempDir()
			if err := folder.Write(dir, out); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got strings.Builder
			for _, e := range entries {
				if e.Name() == "summary.json" || e.Name() == "scenario.yaml" {
					continue
				}
				b, err := os.ReadFile(filepath.Join(dir, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&got, "%x  %s\n", sha256.Sum256(b), e.Name())
			}
			summary, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			check(t, filepath.Join("testdata", name+".summary.json.golden"), summary)
			check(t, filepath.Join("testdata", name+".sha256.golden"), []byte(got.String()))
		})
	}
}

// check compares got with the golden file at path, or rewrites it with
// -update.
func check(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s moved (run with -update if on purpose, and read the new file by eye):\ngot:\n%.2000s", path, got)
	}
}
