package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// chainFolder writes a results folder of a chain of two tiers: one cohort
// whose gateway tries each of 30 requests twice and whose service sees
// three tries of each.
func chainFolder(t *testing.T) string {
	t.Helper()
	const dur = 3 * time.Second
	top, below := results.NewRecorder(dur, 1), results.NewRecorder(dur, 1)
	for u := range 30 {
		at := time.Duration(u) * 90 * time.Millisecond
		top.Shard(0).Started(at)
		for a := range 2 {
			sent := at + time.Duration(a)*20*time.Millisecond
			top.Shard(0).Attempt(results.Attempt{Sent: sent, Latency: 5 * time.Millisecond, Number: a + 1, Outcome: results.OK})
			below.Shard(0).Started(sent)
			for b := range 3 {
				below.Shard(0).Attempt(results.Attempt{Sent: sent + time.Duration(b)*time.Millisecond, Latency: time.Millisecond, Number: b + 1, Outcome: results.OK})
			}
			below.Shard(0).Request(results.Request{Start: sent, End: sent + 3*time.Millisecond, Succeeded: true})
		}
		top.Shard(0).Request(results.Request{Start: at, End: at + 25*time.Millisecond, Succeeded: true})
	}
	c := results.Cohort{Strategy: "every-tier", Rec: top, Tiers: []string{"gateway", "service"}, Below: []*results.Recorder{below}}
	s := &results.Summary{Scenario: "chain", Mode: "sim", Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), DurationS: dur.Seconds(),
		Workload: "open", Faults: []results.FaultWindow{}, Runs: []results.Run{results.Summarize(c, results.Window{})}}
	dir := filepath.Join(t.TempDir(), "chain")
	if err := folder.Write(dir, folder.Output{Summary: s, Cohorts: []results.Cohort{c}, Scenario: []byte("name: chain\n")}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReportOfAChain: a chain's report loads each tier's timeline and
// draws the chart of attempts per tier; a single target's has none.
func TestReportOfAChain(t *testing.T) {
	dir := chainFolder(t)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Cohorts[0]
	if len(c.Tiers) != 2 || c.Tiers[1].Name != "service" || sumAttempts(c.Tiers[1].Timeline) != 180 || sumAttempts(c.Tiers[0].Timeline) != 60 {
		t.Fatalf("tiers %+v", c.Tiers)
	}
	files, err := Render([]*Run{r}, Options{NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	html := string(files[0].Data)
	for _, want := range []string{"Attempts that reached each tier", "tiers[1].amplification"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	single := loadFixture(t, 1, 0, "single")
	if _, ok := newView([]*Run{single}).tiersSpec(); ok {
		t.Error("a single target's report has a chart of tiers")
	}

	// A broken tier timeline is refused, naming its file; a missing one
	// is a note.
	if err := os.WriteFile(filepath.Join(dir, folder.TierTimelineName), []byte("strategy,t_s,ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), folder.TierTimelineName) {
		t.Errorf("a broken %s: %v", folder.TierTimelineName, err)
	}
	if err := os.Remove(filepath.Join(dir, folder.TierTimelineName)); err != nil {
		t.Fatal(err)
	}
	r, err = Load(dir)
	if err != nil || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], folder.TierTimelineName) {
		t.Errorf("no %s: %v, notes %q", folder.TierTimelineName, err, r.Notes)
	}
}

func sumAttempts(t results.Timeline) int64 {
	var n int64
	for i := range t.Rows {
		n += attemptsOf(&t.Rows[i])
	}
	return n
}
