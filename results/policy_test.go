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

func TestPolicySeries(t *testing.T) {
	r := results.NewRecorder(3*time.Second, 2)
	s := r.Shard(0)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	// Two clients' breakers: one open from 0.105 s to 1.5 s, the other from
	// 1.2 s to the end; a budget denial and some refusals.
	s.Policy(ms(105), results.BreakerOpened)
	s.Policy(ms(200), results.BreakerRejected)
	s.Policy(ms(205), results.BreakerRejected)
	s.Policy(ms(1200), results.BreakerOpened)
	r.Shard(1).Policy(ms(1500), results.BreakerClosed)
	s.Policy(ms(2500), results.BudgetDenied)
	s.Policy(ms(2600), results.Throttled)

	// The live totals (for --metrics-addr) count the same events.
	want := [results.NumPolicyEvents]int64{results.BudgetDenied: 1, results.BreakerRejected: 2, results.Throttled: 1, results.BreakerOpened: 2, results.BreakerClosed: 1}
	if got := r.Live().Policy; got != want {
		t.Errorf("live policy totals %v, want %v", got, want)
	}
	if results.BreakerRejected.String() != "breaker_rejected" {
		t.Errorf("BreakerRejected.String() = %q", results.BreakerRejected.String())
	}

	fine := r.Timeline(results.Bucket)
	open := fine.Column(results.SeriesOpenBreakers)
	for _, c := range []struct {
		bucket int
		want   int64
	}{{9, 0}, {10, 1}, {119, 1}, {120, 2}, {149, 2}, {150, 1}, {299, 1}} {
		if open[c.bucket] != c.want {
			t.Errorf("open_breakers at bucket %d = %d, want %d", c.bucket, open[c.bucket], c.want)
		}
	}
	coarse := r.Timeline(time.Second)
	if got := coarse.Column(results.SeriesOpenBreakers); got[0] != 1 || got[1] != 1 || got[2] != 1 {
		t.Errorf("open_breakers per second = %v, want [1 1 1] (the level at each second's end)", got)
	}
	if got := coarse.Column(results.SeriesBreakerRejected); got[0] != 2 {
		t.Errorf("breaker_rejected in second 0 = %d, want 2", got[0])
	}

	run := results.Summarize(results.Cohort{Strategy: "s", Rec: r}, results.Window{})
	if run.BudgetDenied != 1 || run.BreakerRejected != 2 || run.Throttled != 1 || run.MaxOpenBreakers != 2 {
		t.Errorf("run = denied %d, rejected %d, throttled %d, max open %d; want 1, 2, 1, 2",
			run.BudgetDenied, run.BreakerRejected, run.Throttled, run.MaxOpenBreakers)
	}
	cols := strings.Join(folder.TimelineColumns(false), ",")
	if !strings.HasSuffix(cols, "failed,calls,budget_denied,breaker_rejected,throttled,breaker_opened,breaker_closed,open_breakers") {
		t.Errorf("timeline columns %s", cols)
	}

	var buf bytes.Buffer
	run.WastedWork = 7
	if err := terminal.RenderPolicies(&buf, &results.Summary{Runs: []results.Run{run}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "budget denied") || !strings.Contains(buf.String(), "7") {
		t.Errorf("RenderPolicies wrote %q", buf.String())
	}
	buf.Reset()
	_ = terminal.RenderPolicies(&buf, &results.Summary{Runs: []results.Run{{Strategy: "plain"}}})
	if buf.Len() != 0 {
		t.Errorf("RenderPolicies wrote %q for a run without policies", buf.String())
	}
}
