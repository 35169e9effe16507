package results_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestTierRuns(t *testing.T) {
	c := resultstest.ChainFixture()
	r := results.Summarize(c, results.Window{FirstStart: 500 * time.Millisecond, LastEnd: time.Second})
	if len(r.Tiers) != 2 {
		t.Fatalf("%d tiers", len(r.Tiers))
	}
	g, s := r.Tiers[0], *r.Bottom()
	if g.Tier != "gateway" || g.Attempts != 20 || g.Requests != 10 || g.Amplification != 2 || g.Attempts != r.Attempts {
		t.Errorf("gateway: %+v", g)
	}
	if s.Tier != "service" || s.Attempts != 60 || s.Requests != 20 || s.Amplification != 6 || s.Succeeded != 20 {
		t.Errorf("service: %+v, want 60 attempts, 6 per user request, from 20 calls", s)
	}
	// From 1 s on (after the fault), two of every three tries at the service failed.
	if s.Outcomes["http_5xx"] != 20 || s.Outcomes["ok"] != 40 || s.FailedAfterFault != 20 {
		t.Errorf("service's outcomes %v, failed after fault %d", s.Outcomes, s.FailedAfterFault)
	}
	if (&results.Run{}).Bottom() != nil {
		t.Error("a single target has a bottom tier")
	}
	// A single target's summary has no tiers at all.
	single := results.Summarize(results.Cohort{Strategy: "x", Rec: c.Rec}, results.Window{})
	b, _ := json.Marshal(single)
	if single.Tiers != nil || bytes.Contains(b, []byte(`"tiers"`)) {
		t.Errorf("a single target's run has tiers: %s", b)
	}
}

// A tier is a view of a Run: its name, then what reached it, then the
// InTiers figures in Run's order; none of the cohort-only fields.
func TestTierViewJSON(t *testing.T) {
	rec := 1.5
	r := results.Run{Strategy: "s", Requests: 10, Attempts: 30, Calls: new(int64), Tiers: []results.Run{{Tier: "api", Strategy: "s", Requests: 10, Attempts: 30, Amplification: 3, RecoveryS: &rec, MaxOpenBreakers: 4, WastedWork: 2, Outcomes: map[string]int64{"ok": 30}}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Tiers []json.RawMessage }
	if err := json.Unmarshal(b, &got); err != nil || len(got.Tiers) != 1 {
		t.Fatalf("%s: %v", b, err)
	}
	want := `{"tier":"api","attempts":30,"amplification":3,"requests":10,"succeeded":0,"failed":0,"unfinished":0,"success_ratio":null,"peak_attempts_per_s":0,"herd_factor":0,"failed_after_fault":0,"recovery_s":1.5,"outcomes":{"ok":30},` +
		`"latency_ms":{"attempt":{"p50":0,"p90":0,"p99":0,"p999":0,"max":0},"request":{"p50":0,"p90":0,"p99":0,"p999":0,"max":0}},"budget_denied":0,"breaker_rejected":0,"throttled":0,"wasted_work":2}`
	if string(got.Tiers[0]) != want {
		t.Errorf("tier\n%s\nwant\n%s", got.Tiers[0], want)
	}
	if strings.Contains(string(b[:strings.Index(string(b), `"tiers"`)]), `"tier"`) {
		t.Errorf("runs[] entry names a tier: %s", b)
	}
}

// A recording's unmeasured figures are missing values: null in place,
// every other figure as it is, objects included.
func TestUnmeasuredIsNull(t *testing.T) {
	r := results.Run{Strategy: "s", Requests: 5, Attempts: 7, Unmeasured: []string{"requests", "latency_ms.request"}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"requests":null`, `"attempts":7`, `"request":null`, `"attempt":{"p50":0`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
	m, _ := results.LookupMetric("requests")
	if v, ok := m.Value(&r); ok {
		t.Errorf("requests %v, want missing", v)
	}
}
