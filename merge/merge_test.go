package merge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/scenarios/scenariotest"
)

// shardFolders writes the 3 shards' folders of a small run into a fresh
// folder, and returns them in order.
func shardFolders(t *testing.T) []string {
	t.Helper()
	p := scenariotest.Plan(t, independentOneShot, scenarios.Overrides{})
	root := t.TempDir()
	var dirs []string
	for k := range 3 {
		dirs = append(dirs, simulate(t, p, clients.Part{Index: k, Of: 3}, filepath.Join(root, fmt.Sprintf("shard-%d", k))))
	}
	return dirs
}

// edit changes the summary.json of the folder dir.
func edit(t *testing.T, dir string, change func(s *results.Summary)) {
	t.Helper()
	s := readSummary(t, dir)
	change(s)
	b, err := folder.EncodeSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func clock(offset float64) *results.ClockOffset {
	return &results.ClockOffset{Against: "http://127.0.0.1:8081", OffsetMS: offset, UncertaintyMS: 0.05, RoundTrips: 8}
}

// TestMergeRefuses: folders that are not one run's shards, each once, are
// refused with every reason, each naming the shard.
func TestMergeRefuses(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, dirs []string) []string // returns the folders to merge
		want   []string
	}{
		{"another scenario", func(t *testing.T, d []string) []string {
			edit(t, d[1], func(s *results.Summary) { s.Scenario = "other" })
			return d
		}, []string{`shard 1/3`, `ran scenario "other"`}},
		{"another version of the scenario", func(t *testing.T, d []string) []string {
			if err := os.WriteFile(filepath.Join(d[2], "scenario.yaml"), []byte("name: independent-oneshot\n# edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return d
		}, []string{"shard 2/3", "scenario.yaml differ"}},
		{"another seed", func(t *testing.T, d []string) []string {
			edit(t, d[2], func(s *results.Summary) { s.Seed++ })
			return d
		}, []string{"shard 2/3", "seed 4"}},
		{"another T0", func(t *testing.T, d []string) []string {
			edit(t, d[1], func(s *results.Summary) { s.Shard.StartAt = s.Shard.StartAt.Add(time.Second) })
			return d
		}, []string{"shard 1/3", "started at 2026-12-01T10:30:01.000Z", "one T0"}},
		{"another N", func(t *testing.T, d []string) []string {
			edit(t, d[1], func(s *results.Summary) { s.Shard.Of = 4 })
			return d
		}, []string{"one of 4 shards"}},
		{"a missing shard", func(t *testing.T, d []string) []string { return []string{d[0], d[2]} },
			[]string{"shard(s) 1 of 3 missing"}},
		{"a shard twice", func(t *testing.T, d []string) []string { return []string{d[0], d[1], d[2], d[1]} },
			[]string{"shard 1/3 is there twice"}},
		{"a clock far off", func(t *testing.T, d []string) []string {
			edit(t, d[2], func(s *results.Summary) { s.Shard.Clock = clock(-612) })
			return d
		}, []string{"shard 2/3", "-612 ms off the target's", "more than 500ms"}},
		{"a folder that is no shard's", func(t *testing.T, d []string) []string {
			edit(t, d[0], func(s *results.Summary) { s.Shard = nil })
			return d
		}, []string{"shard-0 is not a shard's results folder"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dirs := c.change(t, shardFolders(t))
			m, _, err := Folders(dirs)
			var re *RefusedError
			if m != nil || !errors.As(err, &re) || !errors.Is(err, ErrRefused) {
				t.Fatalf("merged: %v, %v", m, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the refusal does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestMergeRefusesHostileSummaries: figures of the shards' summary.json
// that would size what merge builds, or name the folder it writes, are
// refused before they do: a duration of no run (it sizes every
// timeline), a shard count of 2^62 (it was counted shard by shard), and
// a scenario name that climbs out of --out (it names the merged folder).
func TestMergeRefusesHostileSummaries(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(s *results.Summary)
		want   string
	}{
		{"a duration of no run", func(s *results.Summary) { s.DurationS = 1e12 }, "summary.json: duration_s is 1e+12; a run lasts more than 0 s and at most a day"},
		{"2^62 shards", func(s *results.Summary) { s.Shard.Of = 1 << 62 }, "4611686018427387901 shard(s) of 4611686018427387904 missing"},
		{"a name out of --out", func(s *results.Summary) { s.Scenario = "../../herd-escape" }, `its summary.json's scenario name is "../../herd-escape" starts with "."`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dirs := shardFolders(t)
			for _, d := range dirs {
				edit(t, d, c.change)
			}
			m, _, err := Folders(dirs)
			if m != nil || err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("merged: %v, %v; want a refusal saying %q", m, err, c.want)
			}
		})
	}
}

// TestMergeWarnsOfClocks: a clock a few milliseconds off is merged with a
// warning naming the shard; clocks within 5 ms pass in silence; a clock
// not measured is said.
func TestMergeWarnsOfClocks(t *testing.T) {
	dirs := shardFolders(t)
	edit(t, dirs[0], func(s *results.Summary) { s.Shard.Clock = clock(0.4) })
	edit(t, dirs[1], func(s *results.Summary) { s.Shard.Clock = clock(7.5) })
	m, warnings, err := Folders(dirs)
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(warnings, "\n")
	if len(warnings) != 2 || !strings.Contains(joined, "shard 1/3") || !strings.Contains(joined, "7.5 ms off the target's") ||
		!strings.Contains(joined, "shard 2/3") || !strings.Contains(joined, "did not measure its clock") {
		t.Errorf("warnings:\n%s", joined)
	}
	if got := m.Output.Summary.Merged.Warnings; len(got) != 2 {
		t.Errorf("the merged summary keeps %d warnings", len(got))
	}
}

// TestExpandFindsShards: the folder the shards wrote into, named whole,
// gives its shards' folders and not another run's merged folder beside
// them; a folder without shards is refused.
func TestExpandFindsShards(t *testing.T) {
	dirs := shardFolders(t)
	parent := filepath.Dir(dirs[0])
	m, _, err := Folders(dirs)
	if err != nil {
		t.Fatal(err)
	}
	if err := folder.Write(filepath.Join(parent, "merged"), m.Output); err != nil {
		t.Fatal(err)
	}
	got, err := Expand([]string{parent})
	if err != nil || strings.Join(got, ",") != strings.Join(dirs, ",") {
		t.Fatalf("Expand(%s) = %v, %v; want %v", parent, got, err, dirs)
	}
	if _, err := Expand([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "holds no shard's results folder") {
		t.Errorf("an empty folder: %v", err)
	}
}

// A refusal counts its problems as spoken: "1 problem", "2 problems".
func TestRefusalCountsProblemsAsSpoken(t *testing.T) {
	for _, tc := range []struct {
		problems []string
		want     string
	}{{[]string{"a"}, ": 1 problem:\n  - a"}, {[]string{"a", "b"}, ": 2 problems:\n  - a\n  - b"}} {
		if got := (&RefusedError{Problems: tc.problems}).Error(); !strings.HasSuffix(got, tc.want) {
			t.Errorf("Error() = %q, want it to end %q", got, tc.want)
		}
	}
}
