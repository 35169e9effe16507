package results_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
	"github.com/herdbench/herdbench/results/terminal"
)

// A transport's re-send is an attempt (by outcome, by number) and its own
// timeline column; transport_resends counts them; timeline.csv has the
// column only when some cohort re-sent; both terminal tables show it only
// then; a restored recorder (the merge) keeps it.
func TestTransportResends(t *testing.T) {
	for _, unshared := range []bool{false, true} {
		rec := results.NewRecorder(2*time.Second, 2)
		if unshared {
			rec.Unshared()
		}
		sh := rec.Shard(0)
		sh.Started(0)
		// The first try, reset at the crash, and net/http's re-send of it.
		sh.Attempt(results.Attempt{Sent: 100 * time.Millisecond, Latency: 5 * time.Millisecond, Number: 1, Outcome: results.Reset})
		sh.Attempt(results.Attempt{Sent: 105 * time.Millisecond, Latency: time.Millisecond, Number: 1, Outcome: results.Refused, Resend: true})
		sh.Attempt(results.Attempt{Sent: 1500 * time.Millisecond, Latency: time.Millisecond, Number: 2, Outcome: results.OK})
		sh.Request(results.Request{Start: 0, End: 1501 * time.Millisecond, Succeeded: true})
		tl := rec.Timeline(results.Bucket)
		if got := tl.Rows[10][results.SeriesTransportResends]; got != 1 {
			t.Errorf("unshared %v: transport_resends in the 100 ms bucket = %d, want 1", unshared, got)
		}
		if got := tl.Rows[10][results.SeriesFirst]; got != 2 {
			t.Errorf("unshared %v: first tries in the 100 ms bucket = %d, want 2 (the re-send repeats attempt 1)", unshared, got)
		}
		run := results.Summarize(results.Cohort{Strategy: "net/http", Rec: rec}, results.Window{})
		m, _ := results.LookupMetric("transport_resends")
		if v, ok := m.Value(&run); !ok || v != 1 || run.Attempts != 3 || run.Amplification != 3 {
			t.Errorf("unshared %v: transport_resends %v (%v), attempts %d, amplification %v; want 1, 3, 3", unshared, v, ok, run.Attempts, run.Amplification)
		}
		csv, err := folder.EncodeTimeline([]string{"net/http"}, []results.Timeline{tl})
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(csv), "\n")
		if !strings.HasSuffix(head, ",open_breakers,transport_resends") {
			t.Errorf("header %q, want transport_resends last", head)
		}
		_, back, err := folder.DecodeTimeline(csv)
		if err != nil {
			t.Fatal(err)
		}
		restored, err := results.Restore(2*time.Second, back[0], nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := restored.TransportResends(); got != 1 {
			t.Errorf("restored: %d transport resends, want 1", got)
		}
		th, err := results.ParseThreshold("transport_resends < 1")
		if err != nil {
			t.Fatal(err)
		}
		if res := results.CheckThresholds(&results.Summary{Runs: []results.Run{run}}, []results.Threshold{th}, nil); len(res) != 1 || res[0].Pass || res[0].Value == nil || *res[0].Value != 1 {
			t.Errorf("unshared %v: the threshold transport_resends < 1 gave %+v; want it failed at 1", unshared, res)
		}
		var b bytes.Buffer
		if err := terminal.RenderTable(&b, &results.Summary{Runs: []results.Run{run}}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "resends") {
			t.Errorf("the table has no resends column:\n%s", b.String())
		}
	}

	rec := results.NewRecorder(time.Second, 1)
	rec.Shard(0).Attempt(results.Attempt{Sent: 0, Latency: time.Millisecond, Number: 1, Outcome: results.OK})
	csv, err := folder.EncodeTimeline([]string{"swarm"}, []results.Timeline{rec.Timeline(results.Bucket)})
	if err != nil {
		t.Fatal(err)
	}
	if head, _, _ := strings.Cut(string(csv), "\n"); strings.Contains(head, "transport_resends") || !strings.HasSuffix(head, ",open_breakers") {
		t.Errorf("without re-sends the header is %q: want the columns it always had", head)
	}
	run := results.Summarize(results.Cohort{Strategy: "swarm", Rec: rec}, results.Window{})
	var b bytes.Buffer
	if err := terminal.RenderTable(&b, &results.Summary{Runs: []results.Run{run}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "resends") {
		t.Errorf("the table shows a resends column with none:\n%s", b.String())
	}
	b.Reset()
	run = results.Aggregate([]results.Run{run, run})
	if err := terminal.RenderStatsTable(&b, []*results.Summary{{Runs: []results.Run{run}, Repetitions: 2}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "resends") {
		t.Errorf("the repetitions table shows a resends column with none:\n%s", b.String())
	}
}
