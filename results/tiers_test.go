package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// chainFixture is one cohort of a chain of two tiers: 10 user requests,
// each tried twice at the gateway (20 attempts), each of which the gateway
// tried three times at the service (60 attempts), the service failing all
// but the last try of each call from 1 s on.
func chainFixture() Cohort {
	const dur = 3 * time.Second
	top, below := NewRecorder(dur, 1), NewRecorder(dur, 1)
	for u := range 10 {
		at := time.Duration(u) * 200 * time.Millisecond
		top.Shard(u).Started(at)
		for a := range 2 {
			sent := at + time.Duration(a)*50*time.Millisecond
			below.Shard(0).Started(sent)
			for b := range 3 {
				o := OK
				if sent >= time.Second && b < 2 {
					o = HTTP5xx
				}
				below.Shard(0).Attempt(Attempt{Sent: sent + time.Duration(b)*10*time.Millisecond, Latency: time.Millisecond, Number: b + 1, Outcome: o})
			}
			below.Shard(0).Request(Request{Start: sent, End: sent + 30*time.Millisecond, Succeeded: true})
			o := OK
			if a == 0 {
				o = HTTP5xx
			}
			top.Shard(u).Attempt(Attempt{Sent: sent, Latency: 31 * time.Millisecond, Number: a + 1, Outcome: o})
		}
		top.Shard(u).Request(Request{Start: at, End: at + 81*time.Millisecond, Succeeded: true})
	}
	return Cohort{Strategy: "every-tier", Rec: top, Tiers: []string{"gateway", "service"}, Below: []*Recorder{below}}
}

func TestTierRuns(t *testing.T) {
	c := chainFixture()
	r := Summarize(c, Window{FirstStart: 500 * time.Millisecond, LastEnd: time.Second})
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
	if (&Run{}).Bottom() != nil {
		t.Error("a single target has a bottom tier")
	}
	// A single target's summary has no tiers at all.
	single := Summarize(Cohort{Strategy: "x", Rec: c.Rec}, Window{})
	b, _ := json.Marshal(single)
	if single.Tiers != nil || bytes.Contains(b, []byte(`"tiers"`)) {
		t.Errorf("a single target's run has tiers: %s", b)
	}
}

func TestTierTimeline(t *testing.T) {
	c := chainFixture()
	data, err := EncodeTierTimeline([]Cohort{c}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0][:5], ","); got != "strategy,tier,t_s,attempts,ok" {
		t.Errorf("header %s", got)
	}
	if len(rows) != 1+2*3 {
		t.Fatalf("%d rows, want a header and 3 seconds for each of 2 tiers", len(rows))
	}
	// The service's second second: users 5 to 9, 2 calls × 3 tries each.
	if r := rows[5]; r[0] != "every-tier" || r[1] != "service" || r[2] != "1.00" || r[3] != "30" {
		t.Errorf("service at 1 s: %v", r)
	}
	// The gateway's rows are the cohort's timeline.
	want, _ := EncodeTimeline([]string{"every-tier"}, []Timeline{c.Rec.Timeline(time.Second)})
	wrows, _ := csv.NewReader(bytes.NewReader(want)).ReadAll()
	for i := 1; i <= 3; i++ {
		if strings.Join(rows[i][3:], ",") != strings.Join(wrows[i][2:], ",") {
			t.Errorf("gateway row %d: %v, timeline.csv %v", i, rows[i], wrows[i])
		}
	}
}

func TestRenderTiers(t *testing.T) {
	c := chainFixture()
	s := &Summary{Faults: []FaultWindow{{Name: "f", AtS: 1, ForS: 1}}, Runs: []Run{Summarize(c, Window{FirstStart: time.Second, LastEnd: 2 * time.Second})}}
	var b bytes.Buffer
	if err := RenderTiers(&b, s); err != nil {
		t.Fatal(err)
	}
	golden(t, "tiers.golden", b.Bytes())
	lines := Explain(s)
	if last := lines[len(lines)-1]; !strings.Contains(last, "amplification at the bottom tier (service)") || !strings.Contains(last, "every-tier 6.00") {
		t.Errorf("explain: %q", last)
	}
	b.Reset()
	if err := RenderTiers(&b, &Summary{Runs: []Run{{Strategy: "x"}}}); err != nil || b.Len() != 0 {
		t.Errorf("a single target's tiers table: %q", b.String())
	}
}

func TestTierTimelineRoundTrip(t *testing.T) {
	c := chainFixture()
	data, err := EncodeTierTimeline([]Cohort{c, {Strategy: "other", Rec: c.Rec, Tiers: c.Tiers, Below: c.Below}}, Bucket)
	if err != nil {
		t.Fatal(err)
	}
	cohorts, tiers, timelines, err := DecodeTierTimeline(data)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cohorts, ",") != "every-tier,other" || strings.Join(tiers[1], ",") != "gateway,service" {
		t.Fatalf("cohorts %v, tiers %v", cohorts, tiers)
	}
	want := c.Below[0].Timeline(Bucket)
	got := timelines[0][1]
	if got.Resolution != Bucket || len(got.Rows) != len(want.Rows) || got.Rows[100] != want.Rows[100] {
		t.Errorf("the service's timeline did not come back: %v rows at %s", len(got.Rows), got.Resolution)
	}
	if _, _, _, err := DecodeTierTimeline([]byte("strategy,t_s,ok\nx,0.00,1\n")); err == nil || !strings.Contains(err.Error(), "lacks tier") {
		t.Errorf("a timeline without tiers: %v", err)
	}
}

// A tier is a view of a Run: its name, then what reached it, then the
// InTiers figures in Run's order; none of the cohort-only fields.
func TestTierViewJSON(t *testing.T) {
	rec := 1.5
	r := Run{Strategy: "s", Requests: 10, Attempts: 30, Calls: new(int64), Tiers: []Run{{Tier: "api", Strategy: "s", Requests: 10, Attempts: 30, Amplification: 3, RecoveryS: &rec, MaxOpenBreakers: 4, WastedWork: 2, Outcomes: map[string]int64{"ok": 30}}}}
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
	r := Run{Strategy: "s", Requests: 5, Attempts: 7, Unmeasured: []string{"requests", "latency_ms.request"}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"requests":null`, `"attempts":7`, `"request":null`, `"attempt":{"p50":0`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("no %s in %s", want, b)
		}
	}
	if v, ok := metricTable()[metricIndex()["requests"]].Value(&r); ok {
		t.Errorf("requests %v, want missing", v)
	}
}
