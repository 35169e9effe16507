package folder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/golden"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestWriteIsCompleteAndAtomic(t *testing.T) {
	cohorts, s := resultstest.Fixture()
	dir := filepath.Join(t.TempDir(), DirName("fixture", s.Started))
	if err := Write(dir, Output{Summary: s, Cohorts: cohorts, Scenario: []byte("name: fixture\n")}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "full-jitter.hlog no-jitter.hlog scenario.yaml summary.json timeline.csv timeline_1s.csv" {
		t.Errorf("files: %s (no temporary file may remain)", got)
	}
	if !strings.HasSuffix(dir, "fixture-20261130T120000Z") {
		t.Errorf("folder name %s", dir)
	}
	// Writing into a folder that cannot be created fails loudly.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(blocker, "sub"), Output{Summary: s, Cohorts: cohorts}); err == nil {
		t.Error("Write into a path under a file succeeded")
	}
}

// TestEncodeGolden: summary.json and timeline_1s.csv of the fixture's run,
// byte for byte.
func TestEncodeGolden(t *testing.T) {
	cohorts, s := resultstest.Fixture()
	summary, err := EncodeSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/summary.json.golden", summary)

	coarse := []results.Timeline{cohorts[0].Rec.Timeline(time.Second), cohorts[1].Rec.Timeline(time.Second)}
	csv, err := EncodeTimeline([]string{"no-jitter", "full-jitter"}, coarse)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/timeline_1s.csv.golden", csv)
}
