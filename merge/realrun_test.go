package merge

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// TestMergedMatchesSingle compares, on real sockets, a run merged from its
// shards with the same scenario run by one process: .ci/run runs both
// against a standalone target and names the two results folders in
// HERDBENCH_SINGLE and HERDBENCH_MERGED (the test is skipped without
// them). Real time is not exact, so the figures are compared within
// bounds: the totals within 5%, and requests and attempts per second
// outside the waves (from the first fault to 3 s after the last) within
// 10% in the median second. One second's figure is the machine's as much
// as the run's (.ci/run runs this beside the race detector's tests, and a
// process that falls behind for a second sends half as much in it and
// makes it up after), so a single second is logged, not judged; a merge
// that shifted or lost a shard's timeline moves most seconds, and the
// totals. The herd factor is not compared: four processes on two cores
// blur the waves it measures.
func TestMergedMatchesSingle(t *testing.T) {
	single, merged := os.Getenv("HERDBENCH_SINGLE"), os.Getenv("HERDBENCH_MERGED")
	if single == "" || merged == "" {
		t.Skip("HERDBENCH_SINGLE and HERDBENCH_MERGED name the results folders to compare (.ci/run sets them)")
	}
	s, m := readSummary(t, single), readSummary(t, merged)
	if m.Merged == nil || len(m.Merged.Shards) < 2 || s.Merged != nil || s.Scenario != m.Scenario || s.Seed != m.Seed {
		t.Fatalf("%s is not a merged run of %s's scenario: %+v", merged, single, m.Merged)
	}
	st, mt := seconds(t, single), seconds(t, merged)
	w := window(s)
	from, to := int(w.FirstStart/time.Second), int(math.Ceil(w.LastEnd.Seconds()))+3
	for i := range s.Runs {
		sr, mr := s.Runs[i], m.Runs[i]
		for _, c := range []struct {
			name string
			a, b int64
		}{{"requests", sr.Requests, mr.Requests}, {"attempts", sr.Attempts, mr.Attempts}, {"succeeded", sr.Succeeded, mr.Succeeded}} {
			if d := rel(c.a, c.b); d > 0.05 {
				t.Errorf("%s %s: single %d, merged %d: %.1f%% apart, more than 5%%", sr.Strategy, c.name, c.a, c.b, 100*d)
			} else {
				t.Logf("%s %s: single %d, merged %d (%.1f%%)", sr.Strategy, c.name, c.a, c.b, 100*d)
			}
		}
		a, b := st[i], mt[i]
		compared, worst := 0, 0.0
		var diffs []float64
		for sec := 1; sec < min(len(a.Rows), len(b.Rows))-1; sec++ { // the first and last seconds are partial
			if sec >= from && sec < to {
				continue
			}
			for _, col := range []struct {
				name string
				x, y int64
			}{
				{"requests/s", a.Rows[sec][results.SeriesRequests], b.Rows[sec][results.SeriesRequests]},
				{"attempts/s", attempts(a.Rows[sec]), attempts(b.Rows[sec])},
			} {
				d := rel(col.x, col.y)
				if d > 0.15 {
					t.Logf("%s second %d: %s single %d, merged %d: %.0f%% apart", sr.Strategy, sec, col.name, col.x, col.y, 100*d)
				}
				worst = max(worst, d)
				diffs = append(diffs, d)
			}
			compared++
		}
		slices.Sort(diffs)
		median := 0.0
		if len(diffs) > 0 {
			median = diffs[len(diffs)/2]
		}
		t.Logf("%s: %d seconds outside the waves (%d s to %d s excluded), per second %.1f%% apart in the median, at most %.1f%%", sr.Strategy, compared, from, to, 100*median, 100*worst)
		if median > 0.10 {
			t.Errorf("%s: per second %.1f%% apart in the median, more than 10%%", sr.Strategy, 100*median)
		}
		if compared < 5 {
			t.Errorf("%s: only %d seconds outside the waves to compare", sr.Strategy, compared)
		}
	}
}

func seconds(t *testing.T, dir string) []results.Timeline {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "timeline_1s.csv"))
	if err != nil {
		t.Fatal(err)
	}
	_, tl, err := folder.DecodeTimeline(b)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func attempts(row [results.NumSeries]int64) int64 {
	var n int64
	for o := 0; o < int(results.NumOutcomes); o++ {
		n += row[o]
	}
	return n
}

// rel is |a - b| relative to a (0 when both are 0).
func rel(a, b int64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(float64(a-b)) / math.Max(1, float64(a))
}
