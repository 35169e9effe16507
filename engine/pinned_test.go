package engine

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/golden"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
)

// TestSimOutputPinned: the simulator's results folder for the single-target
// built-ins, byte for byte: summary.json as the golden file, and a SHA-256
// of every other file (timelines and histogram logs). A change to the model
// that should leave a single target alone (chains of tiers, new policies,
// new fields) must leave these unmoved; a change meant to move them is
// rewritten with -update and its summary.json read by eye.
func TestSimOutputPinned(t *testing.T) {
	for _, name := range []string{"outage", "metastable", "aws-contention"} {
		t.Run(name, func(t *testing.T) {
			out := execute(t, plans(t, name, "", scenarios.Overrides{}), Options{Version: "pinned", Mode: Mode{Sim: true, Timelines: true}})[0].Output
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
			golden.Check(t, filepath.Join("testdata", name+".summary.json.golden"), summary)
			golden.Check(t, filepath.Join("testdata", name+".sha256.golden"), []byte(got.String()))
		})
	}
}
