package report

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// TestLongTimelineReadWithinItsBudget: a run's timeline of more 10 ms rows
// than a report keeps (rowBudget) is read at a coarser step, its rows
// summed as they are read: three hours of one cohort (1,080,001 rows,
// 27 MB of CSV) keep 540,001 rows of 20 ms, every count intact, and Load
// allocates about what it keeps, not every row (report of a 178 MB
// timeline once peaked at 1.65 GB). A run within the budget keeps its
// 10 ms rows.
func TestLongTimelineReadWithinItsBudget(t *testing.T) {
	dir := fixture(t, t.TempDir(), 1, 0)
	raw, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := folder.DecodeSummary(raw)
	if err != nil {
		t.Fatal(err)
	}
	const hours = 3
	s.DurationS = hours * 3600
	s.Runs = s.Runs[:1]
	if raw, err = folder.EncodeSummary(s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	rows := folder.TimelineBuckets(s.DurationS)
	var b strings.Builder
	b.WriteString("strategy,t_s,ok,requests,succeeded\n")
	for i := range rows {
		fmt.Fprintf(&b, "%s,%.2f,%d,1,1\n", s.Runs[0].Strategy, float64(i)/100, i%3)
	}
	if err := os.WriteFile(filepath.Join(dir, "timeline.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	r, err := Load(dir)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	tl := r.Cohorts[0].Timeline
	if tl.Resolution != 20*time.Millisecond || len(tl.Rows) != (rows+1)/2 {
		t.Fatalf("%d rows of %s; want %d of 20ms", len(tl.Rows), tl.Resolution, (rows+1)/2)
	}
	var ok, requests int64
	for _, row := range tl.Rows {
		ok += row[results.OK]
		requests += row[results.SeriesRequests]
	}
	if want := int64(rows/3*3) + int64(rows%3)*int64(rows%3-1)/2; ok != want || requests != int64(rows) {
		t.Errorf("ok %d, requests %d; want %d and %d, every row counted", ok, requests, want, rows)
	}
	kept := uint64(len(tl.Rows)) * uint64(results.NumSeries) * 8
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > kept+kept/2+64<<20 {
		t.Errorf("Load allocated %d MiB for %d MiB of rows kept; want about what it keeps", alloc>>20, kept>>20)
	}
	short, err := Load(fixture(t, t.TempDir(), 1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if res := short.Cohorts[0].Timeline.Resolution; res != results.Bucket {
		t.Errorf("a 6 s run read at %s, want its 10 ms rows", res)
	}
	for _, c := range []struct {
		durationS float64
		keys      int
		want      time.Duration
	}{{6, 2, 10 * time.Millisecond}, {3600, 2, 10 * time.Millisecond}, {3 * 3600, 1, 20 * time.Millisecond}, {86400, 1, 100 * time.Millisecond}, {900, 300, 500 * time.Millisecond}, {86400, 1000, time.Second}} {
		if got := timelineBin(c.durationS, c.keys); got != c.want {
			t.Errorf("timelineBin(%g s, %d) = %s, want %s", c.durationS, c.keys, got, c.want)
		}
	}
}
