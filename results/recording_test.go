package results

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestUnmeasuredFiguresAreNull: a run's unmeasured figures are written as
// null in their places (keys and order kept), read back without error,
// and read as null by the metric table, so a threshold on one fails
// rather than passing on the 0 the field holds.
func TestUnmeasuredFiguresAreNull(t *testing.T) {
	r := Run{Strategy: "a", Requests: 0, Attempts: 12, Amplification: 0, Outcomes: map[string]int64{"ok": 12},
		Unmeasured: []string{"requests", "amplification", "latency_ms.request"}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{`"strategy":"a","requests":null,`, `"attempts":12,"amplification":null,`, `"request":null`, `"attempt":{"p50":0,`, `"unmeasured":["requests","amplification","latency_ms.request"]`} {
		if !strings.Contains(got, want) {
			t.Errorf("JSON lacks %s:\n%s", want, got)
		}
	}
	plain, _ := json.Marshal(Run{Strategy: "a"})
	if bytes.Contains(plain, []byte("null,")) && !bytes.Contains(plain, []byte(`"recovery_s":null`)) {
		t.Errorf("a run without unmeasured figures has nulls: %s", plain)
	}
	var back Run
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("reading it back: %v", err)
	}
	if back.Attempts != 12 || len(back.Unmeasured) != 3 {
		t.Errorf("read back %+v", back)
	}
	for name, measured := range map[string]bool{"requests": false, "amplification": false, "latency_ms.request.p99": false, "attempts": true, "latency_ms.attempt.p99": true} {
		m, _ := LookupMetric(name)
		if _, ok := m.Value(&back); ok != measured {
			t.Errorf("%s: Value reports ok=%v, want %v", name, ok, measured)
		}
	}
	th, err := ParseThreshold("amplification <= 1.5")
	if err != nil {
		t.Fatal(err)
	}
	res := CheckThresholds(&Summary{Runs: []Run{back}}, []Threshold{th}, nil)
	if len(res) != 1 || res[0].Pass || res[0].Value != nil {
		t.Errorf("a threshold on an unmeasured figure: %+v; want it failed with a null value", res)
	}
}

// TestUnnumberedAttempts: an attempt whose number is not known counts in
// the attempts and by outcome, but in no attempt-number series.
func TestUnnumberedAttempts(t *testing.T) {
	for _, unshared := range []bool{false, true} {
		rec := NewRecorder(time.Second, 1)
		if unshared {
			rec.Unshared()
		}
		s := rec.Shard(0)
		s.Attempt(Attempt{Sent: 0, Latency: time.Millisecond, Outcome: OK})
		s.Attempt(Attempt{Sent: 0, Latency: time.Millisecond, Number: 2, Outcome: HTTP5xx})
		row := rec.Timeline(time.Second).Rows[0]
		if row[OK]+row[HTTP5xx] != 2 || row[SeriesFirst] != 0 || row[SeriesRetry1] != 1 {
			t.Errorf("unshared %v: row %v; want 2 attempts, none first, one retry1", unshared, row)
		}
	}
}

// TestUptoCopiesTheRecordingSoFar: Upto(end) gives the recorder of a run
// of length end: the timeline to end, its totals, the seconds' latencies;
// what the original records afterwards stays out of the copy.
func TestUptoCopiesTheRecordingSoFar(t *testing.T) {
	rec := NewRecorder(10*time.Second, 4)
	for i := range 400 {
		at := time.Duration(i) * 10 * time.Millisecond // 0 to 4 s
		rec.Shard(i).Started(at)
		rec.Shard(i).Attempt(Attempt{Sent: at, Latency: 5 * time.Millisecond, Number: 1 + i%2, Outcome: Outcome(i % 2)})
		rec.Shard(i).Ended(at+5*time.Millisecond, i%2 == 0)
	}
	c := rec.Upto(3 * time.Second)
	rec.Shard(0).Attempt(Attempt{Sent: 2 * time.Second, Latency: time.Millisecond, Number: 1, Outcome: OK}) // after the copy
	if got := c.Duration(); got != 3*time.Second {
		t.Errorf("the copy lasts %s", got)
	}
	l := c.Live()
	if l.Attempts != 300 || l.OK != 150 || l.Requests != 300 || l.Succeeded != 150 || l.Failed != 150 {
		t.Errorf("the copy's totals: %+v; want the 300 attempts of the first 3 s", l)
	}
	if rows := len(c.Timeline(Bucket).Rows); rows != 300 {
		t.Errorf("the copy has %d rows, want 300", rows)
	}
	var n int64
	for _, it := range c.Intervals() {
		n += it.Attempt.TotalCount()
	}
	if len(c.Intervals()) != 3 || n != 300 {
		t.Errorf("the copy has %d intervals with %d attempts, want 3 with 300", len(c.Intervals()), n)
	}
	r := Summarize(Cohort{Strategy: "a", Rec: c}, Window{})
	if r.Attempts != 300 || r.Requests != 300 || r.Amplification != 1 {
		t.Errorf("the copy's figures: %+v", r)
	}
}
