package herdtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// TestResultsFolderStaysInOut: herdtest's results folder is built with
// the results folders' one name rule (folder.FolderIn): a scenario name
// that climbs out of Options.Out is refused where the path is built, and
// nothing is written outside it.
func TestResultsFolderStaysInOut(t *testing.T) {
	top := t.TempDir()
	out := filepath.Join(top, "a", "b")
	sum := &results.Summary{Scenario: "../../herd-escape", Started: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), DurationS: 1}
	if dir, err := write(t, Options{Out: out}, folder.Output{Summary: sum}); !errors.Is(err, folder.ErrFolderName) {
		t.Errorf("wrote %q (%v); want ErrFolderName", dir, err)
	}
	entries, _ := os.ReadDir(top)
	if len(entries) != 1 || entries[0].Name() != "a" {
		t.Errorf("written beside --out: %v", entries)
	}
}
