package terminal

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/cliff"
)

// TestRenderCliff: the table names each strategy's boundary, interval
// and band, a strategy that never collapses as such, the runs against a
// sweep's; then the point of no return and the real runs, a run off its
// side flagged when its verdict distrusts it; and an interrupt.
func TestRenderCliff(t *testing.T) {
	x, _ := cliff.ParseAxis("chaos[blip].for=0.5s..14s")
	sp := cliff.Spec{X: x, Strategies: []string{"naive", "budgeted"}, Seeds: 6, MaxSeeds: 6}
	var rs []cliff.Result
	for next := cliff.Next(sp, nil); len(next) > 0; next = cliff.Next(sp, rs) {
		for _, p := range next {
			rs = append(rs, cliff.Result{Probe: p, Collapsed: p.Strategy == 0 && x.Value(p.X) >= 4})
		}
	}
	sum := cliff.Summarize(sp, rs)
	rec := 1.5
	d := &cliff.Document{Search: &sum, Partial: true,
		NoReturn: &cliff.NoReturnRun{Strategy: "naive", Seed: 7, Continuations: 60, FaultStart: 5 * time.Second, FaultEnd: 11 * time.Second,
			NoReturn: cliff.NoReturn{Found: true, Instant: 10200 * time.Millisecond, Low: 10 * time.Second, High: 11 * time.Second,
				Points: []cliff.Point{{At: 10 * time.Second, Tally: cliff.Tally{Runs: 60, Collapsed: 51}}}}},
		Confirm: []cliff.Confirmation{
			{Strategy: "naive", Text: "3.9s", Expect: cliff.Recovered, RecoveryS: &rec, Landed: true, Verdict: "holds"},
			{Strategy: "naive", Text: "4s", Expect: cliff.Collapsed, RecoveryS: &rec, Verdict: "not_trustworthy"},
		}}
	var b bytes.Buffer
	if err := RenderCliff(&b, d); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"over chaos[blip].for from 0.5s to 13.9s by 0.2s", "3.9s – 4.1s", "≤ 3.9s", "≥ 4.1s", "none: recovers",
		"simulated runs; a --set sweep", "from 10.2 s on (5.2 s after the fault began); between 10 s and 11 s", "10 s 51/60",
		"landed on its side", "NOT on its side, and flagged by its verdict", "interrupted"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}
