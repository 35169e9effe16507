package folder

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// writeRun writes a run's results folder as one unit, as the command does:
// Stage, Write, Publish.
func writeRun(dir string, o Output) (string, error) {
	st, err := Stage(dir)
	if err != nil {
		return "", err
	}
	if err := Write(st.Dir, o); err != nil {
		st.Discard()
		return "", err
	}
	return st.Publish()
}

func TestStagedFolderIsOneUnit(t *testing.T) {
	out := t.TempDir()
	rec := results.NewRecorder(time.Second, 1)
	rec.Shard(0).Started(0)
	rec.Shard(0).Attempt(results.Attempt{Sent: 0, Latency: time.Millisecond, Number: 1, Outcome: results.OK})
	o := Output{
		Summary:  &results.Summary{Scenario: "s", Partial: true, Runs: []results.Run{results.Summarize(results.Cohort{Strategy: "a", Rec: rec}, results.Window{})}},
		Cohorts:  []results.Cohort{{Strategy: "a", Rec: rec}},
		Scenario: []byte("name: s\n"),
	}
	dir := filepath.Join(out, "s-20250101T000000Z")
	got, err := writeRun(dir, o)
	if err != nil || got != dir {
		t.Fatalf("writeRun = %q, %v; want %q", got, err, dir)
	}
	again, err := writeRun(dir, o)
	if err != nil || again != dir+"-2" {
		t.Fatalf("second writeRun = %q, %v; want %q", again, err, dir+"-2")
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"s-20250101T000000Z", "s-20250101T000000Z-2"}) {
		t.Errorf("results folder holds %v; want the two run folders and nothing hidden", names)
	}
	files, _ := os.ReadDir(dir)
	var fileNames []string
	for _, f := range files {
		fileNames = append(fileNames, f.Name())
	}
	for _, want := range []string{"scenario.yaml", "summary.json", "timeline.csv", "timeline_1s.csv"} {
		if !slices.Contains(fileNames, want) {
			t.Errorf("run folder lacks %s: %v", want, fileNames)
		}
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o755 {
		t.Errorf("run folder mode: %v, %v", st.Mode(), err)
	}
}

func TestLiveCountsByAttempt(t *testing.T) {
	rec := results.NewRecorder(time.Second, 4)
	for id, n := range []int{1, 2, 3, 4, 7} {
		rec.Shard(id).Attempt(results.Attempt{Number: n, Outcome: results.HTTP5xx})
	}
	rec.Shard(0).Attempt(results.Attempt{Number: 1, Outcome: results.OK})
	rec.Shard(1).InFlight(1)
	rec.Shard(2).InFlight(1)
	rec.Shard(2).InFlight(-1)
	l := rec.Live()
	want := [results.AttemptGroups]int64{1, 1, 1, 2}
	if l.ByAttempt[results.HTTP5xx] != want || l.ByAttempt[results.OK] != [results.AttemptGroups]int64{1} || l.InFlight != 1 || l.Attempts != 6 {
		t.Errorf("Live = %+v", l)
	}
	if results.AttemptGroupName(0) != "1" || results.AttemptGroupName(3) != "4+" {
		t.Errorf("group names %q %q", results.AttemptGroupName(0), results.AttemptGroupName(3))
	}
}

// A staged folder is invisible until published, and a discarded one
// leaves nothing behind.
func TestStagePublishDiscard(t *testing.T) {
	out := t.TempDir()
	dir := filepath.Join(out, "s-20250101T000000Z")
	st, err := Stage(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(st.Dir, "report.html"), []byte("<html>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the results folder is visible before Publish: %v", err)
	}
	got, err := st.Publish()
	if err != nil || got != dir {
		t.Fatalf("Publish = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Errorf("the published folder lacks its file: %v", err)
	}
	st, err = Stage(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Discard()
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 {
		t.Errorf("after Discard the folder holds %d entries, want only the published one", len(entries))
	}
}

func TestCheckWritable(t *testing.T) {
	out := t.TempDir()
	if err := CheckWritable(filepath.Join(out, "new", "runs")); err != nil {
		t.Errorf("a new folder: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(out, "new", "runs")); len(entries) != 0 {
		t.Errorf("the check left %d files behind", len(entries))
	}
	file := filepath.Join(out, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable(file); err == nil || !strings.Contains(err.Error(), "is a file, not a folder") {
		t.Errorf("a file: %v", err)
	}
	if err := CheckWritable(filepath.Join(file, "runs")); err == nil {
		t.Error("a folder under a file: no error")
	}
	if _, err := os.Stat("/proc/self"); err == nil { // Linux: no one creates folders in /proc, root neither
		if err := CheckWritable("/proc/self/herdbench-runs"); err == nil || !strings.Contains(err.Error(), "cannot create") {
			t.Errorf("a folder that cannot be created: %v", err)
		}
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(out, "ro")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		if err := CheckWritable(ro); err == nil || !strings.Contains(err.Error(), "cannot write") {
			t.Errorf("a read-only folder: %v", err)
		}
	}
}

func TestPublishedName(t *testing.T) {
	for dir, want := range map[string]string{
		"runs/outage-20261201T200000Z":                     "outage-20261201T200000Z",
		"runs/.outage-20261201T200000Z.partial-1234567":    "outage-20261201T200000Z",
		"/tmp/x/.outage-20261201T200000Z.partial-1234567/": "outage-20261201T200000Z",
		"runs/outage.partial-1":                            "outage.partial-1",
		"runs/.hidden":                                     ".hidden",
	} {
		if got := PublishedName(dir); got != want {
			t.Errorf("PublishedName(%q) = %q, want %q", dir, got, want)
		}
	}
	// The folder Stage makes is named by the one it publishes.
	s, err := Stage(filepath.Join(t.TempDir(), "outage-20261201T200000Z"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Discard()
	if got := PublishedName(s.Dir); got != "outage-20261201T200000Z" {
		t.Errorf("PublishedName(%s) = %q", s.Dir, got)
	}
}

// A run whose folder name is taken (two runs in one second) draws its
// report in a hidden folder named by the folder it is published as, so
// the report's heading names its own folder, not the other run's.
func TestStageNamesTheFolderItPublishes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s-20250101T000000Z")
	for i, want := range []string{"s-20250101T000000Z", "s-20250101T000000Z-2", "s-20250101T000000Z-3"} {
		st, err := Stage(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := PublishedName(st.Dir); got != want {
			t.Errorf("run %d: staged as %q, want %q", i+1, got, want)
		}
		got, err := st.Publish()
		if err != nil || filepath.Base(got) != want {
			t.Errorf("run %d: Publish = %q, %v; want %s", i+1, got, err, want)
		}
	}
}

// DiscardUnpublished removes the hidden folders staged and not yet
// published (a second Ctrl-C left ".<name>.partial-*" behind in --out),
// and nothing else: a folder published before stays, and one published
// after fails rather than appear half removed.
func TestDiscardUnpublished(t *testing.T) {
	out := t.TempDir()
	done, err := Stage(filepath.Join(out, "a-20250101T000000Z"))
	if err != nil {
		t.Fatal(err)
	}
	published, err := done.Publish()
	if err != nil {
		t.Fatal(err)
	}
	dropped, err := Stage(filepath.Join(out, "b-20250101T000000Z"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dropped.Dir, "summary.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := DiscardUnpublished(); n != 1 {
		t.Errorf("DiscardUnpublished removed %d folders, want 1", n)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || filepath.Join(out, entries[0].Name()) != published {
		t.Errorf("left %v in the output folder, want only %s", entries, published)
	}
	if dir, err := dropped.Publish(); err == nil {
		t.Errorf("Publish after DiscardUnpublished = %q, want an error", dir)
	}
	if n := DiscardUnpublished(); n != 0 {
		t.Errorf("a second DiscardUnpublished removed %d folders, want 0", n)
	}
}
