package results

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// notMetrics are the fields of a run that hold no figure of their own:
// the stats over repetitions of the metrics, and the simulator's reference
// figures beside a real run's (with and without its lateness, and the
// factor of less lateness at which they hold).
var notMetrics = []string{"stats", "sim", "sim_with_lateness", "lateness_needs"}

// numbersOfType returns the summary.json paths of every number a Run can
// hold, from its type: a map of numbers gives "<path>.*".
func numbersOfType(t reflect.Type, prefix string, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() || prefix == "" && slices.Contains(notMetrics, name) {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case isNumber(ft.Kind()):
			*out = append(*out, prefix+name)
		case ft.Kind() == reflect.Map && isNumber(ft.Elem().Kind()):
			*out = append(*out, prefix+name+".*")
		case ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}):
			numbersOfType(ft, prefix+name+".", out)
		}
	}
}

// fill sets every number of v to 1, allocates every pointer and puts every
// outcome in a map, so that the JSON of a Run shows every field it can.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.Type().Elem() == reflect.TypeOf(time.Time{}) {
			return
		}
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Map:
		if !isNumber(v.Type().Elem().Kind()) {
			return
		}
		v.Set(reflect.MakeMap(v.Type()))
		for o := Outcome(0); o < NumOutcomes; o++ {
			v.SetMapIndex(reflect.ValueOf(o.String()), reflect.ValueOf(int64(1)).Convert(v.Type().Elem()))
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint64:
		v.SetUint(1)
	case reflect.Float64:
		v.SetFloat(1)
	}
}

// numbersOfJSON returns the paths of every number in a JSON object.
func numbersOfJSON(v any, prefix string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if prefix == "" && slices.Contains(notMetrics, k) {
				continue
			}
			numbersOfJSON(e, prefix+k+".", out)
		}
	case float64:
		*out = append(*out, strings.TrimSuffix(prefix, "."))
	}
}

// TestMetricTableCoversRun: every number a run can carry in summary.json
// has exactly one entry in the metric table, found both from Run's type
// and from the JSON of a Run with every field set; and every entry names
// such a number. A field added to Run without an entry fails here.
func TestMetricTableCoversRun(t *testing.T) {
	names := map[string]int{}
	for _, m := range metricTable() {
		names[m.Name]++
	}
	for n, c := range names {
		if c > 1 {
			t.Errorf("the metric table has %d entries named %s", c, n)
		}
	}
	var fromType []string
	numbersOfType(reflect.TypeOf(Run{}), "", &fromType)
	for _, p := range fromType {
		if prefix, ok := strings.CutSuffix(p, "*"); ok {
			n := 0
			for name := range names {
				if strings.HasPrefix(name, prefix) {
					n++
				}
			}
			if n == 0 {
				t.Errorf("Run has a map of figures %s, and the metric table no entry for its keys", p)
			}
			continue
		}
		if names[p] == 0 {
			t.Errorf("Run has a number %s (from its type) without an entry in the metric table (results/run.go)", p)
		}
	}
	var r Run
	fill(reflect.ValueOf(&r).Elem())
	for _, m := range computedMetrics() {
		m.at.set(&r, 1, true) // no field of Run: a value the entry computed
	}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var fromJSON []string
	numbersOfJSON(doc, "", &fromJSON)
	sort.Strings(fromJSON)
	for _, p := range fromJSON {
		if names[p] == 0 {
			t.Errorf("a run's summary.json holds a number %s without an entry in the metric table (results/run.go)", p)
		}
	}
	for name := range names {
		if !slices.Contains(fromJSON, name) {
			t.Errorf("the metric table names %s, which is no number of a run's summary.json", name)
		}
		if v, ok := LookupMetric(name); !ok || v.Name != name {
			t.Errorf("LookupMetric(%q) = %+v, %v", name, v, ok)
		}
	}
	if len(fromJSON) != len(names) {
		t.Errorf("summary.json has %d numbers per run, the metric table %d entries", len(fromJSON), len(names))
	}
}

// TestMetricValues: each metric reads its own field; a null or absent
// figure reads as absent, a count nothing was counted in as 0.
func TestMetricValues(t *testing.T) {
	rec, calls := 2.5, int64(7)
	r := Run{Requests: 10, Amplification: 1.5, RecoveryS: &rec, Calls: &calls, Outcomes: map[string]int64{"reset": 3},
		LatencyMS: Latencies{Request: Percentiles{P99: 812.5}}, SendLagMS: &Lag{P99: 1.25}}
	for _, c := range []struct {
		name string
		want float64
		ok   bool
	}{
		{"requests", 10, true}, {"amplification", 1.5, true}, {"recovery_s", 2.5, true}, {"calls", 7, true},
		{"outcomes.reset", 3, true}, {"outcomes.ok", 0, true}, {"latency_ms.request.p99", 812.5, true},
		{"send_lag_ms.p99", 1.25, true}, {"target_drift_ms.p99", 0, false}, {"completion_s", 0, false},
	} {
		m, ok := LookupMetric(c.name)
		if !ok {
			t.Fatalf("no metric %s", c.name)
		}
		if v, ok := m.Value(&r); v != c.want || ok != c.ok {
			t.Errorf("%s = %v, %v; want %v, %v", c.name, v, ok, c.want, c.ok)
		}
	}
	if _, ok := LookupMetric("strategy"); ok {
		t.Error("strategy is not a number, yet the table has it")
	}
}

// TestMetricTableRules: every metric says how to show and combine it
// consistently: the repetitions table's columns are stats (their means are
// what it shows), in places 1..n; units match the names' suffixes.
func TestMetricTableRules(t *testing.T) {
	var at []int
	for _, m := range metricTable() {
		if m.Help == "" {
			t.Errorf("%s has no help", m.Name)
		}
		if c := m.Column; c != nil {
			at = append(at, c.At)
			if m.Reps != RepStats || c.Head == "" || c.Text == nil {
				t.Errorf("%s: a column of the repetitions table must be a RepStats metric with a heading and a format", m.Name)
			}
		}
		last := m.Name[strings.LastIndexByte(m.Name, '.')+1:]
		switch {
		case strings.HasSuffix(last, "_s") && !strings.HasSuffix(last, "per_s") && m.Unit != Seconds,
			strings.Contains(m.Name, "_ms.") && m.Unit != Millis,
			strings.HasSuffix(last, "_ratio") && m.Unit != Ratio:
			t.Errorf("%s has unit %s, which its name contradicts", m.Name, m.Unit)
		}
	}
	sort.Ints(at)
	for i, a := range at {
		if a != i+1 {
			t.Fatalf("the repetitions table's columns are at %v; want 1 to %d, once each", at, len(at))
		}
	}
}

// TestShardRules: split one cohort's clients over two recorders (two
// shards) and record the whole cohort in a third. Every metric whose rule
// is a sum, a maximum or a ratio of sums gives from the shards' figures
// exactly the whole cohort's. (Timeline and histogram metrics are
// recomputed from merged data, which the whole cohort's recorder is.)
func TestShardRules(t *testing.T) {
	const dur = 5 * time.Second
	rng := rand.New(rand.NewPCG(3, 4))
	whole, shard := NewRecorder(dur, 1), [2]*Recorder{NewRecorder(dur, 1), NewRecorder(dur, 1)}
	for client := range 300 {
		s := shard[client%2]
		at := time.Duration(rng.Int64N(int64(4 * time.Second)))
		for _, r := range []*Recorder{whole, s} {
			r.Shard(0).Started(at)
		}
		n := 1 + rng.IntN(4)
		for a := 1; a <= n; a++ {
			att := Attempt{Sent: at, Latency: time.Duration(1+rng.IntN(900)) * time.Millisecond, Number: a, Outcome: Outcome(rng.IntN(int(NumOutcomes)))}
			if a == n {
				att.Outcome = OK
			}
			att.Hedge = a > 1 && a%2 == 0 // a hedging strategy's hedges, some of which win
			att.Won = att.Hedge && att.Outcome == OK
			call, event := rng.IntN(3) == 0, PolicyEvent(rng.IntN(int(BreakerOpened)))
			opens := att.Outcome != OK && rng.IntN(3) == 0 // a breaker open for 300 ms
			for _, r := range []*Recorder{whole, s} {
				r.Shard(0).Attempt(att)
				if call {
					r.Call(at)
				}
				r.Shard(0).Policy(at, event)
				if opens {
					r.Shard(0).Policy(at, BreakerOpened)
					r.Shard(0).Policy(at+300*time.Millisecond, BreakerClosed)
				}
			}
			at += att.Latency + time.Duration(rng.IntN(200))*time.Millisecond
		}
		for _, r := range []*Recorder{whole, s} {
			r.Shard(0).Request(Request{Start: at - time.Second, End: at, Succeeded: true})
		}
	}
	w := Window{FirstStart: time.Second, LastEnd: 2 * time.Second}
	sum := func(rec *Recorder, wasted int64) Run {
		r := Summarize(Cohort{Strategy: "s", Rec: rec, OCC: true, OneShot: true, Hedged: true}, w)
		r.WastedWork = wasted
		return r
	}
	all, a, b := sum(whole, 30), sum(shard[0], 10), sum(shard[1], 20)
	byName := func(r *Run, name string) float64 {
		m, _ := LookupMetric(name)
		v, _ := m.Value(r)
		return v
	}
	// The ratios: numerator, denominator, and the decimals summary.json keeps.
	ratios := map[string]struct {
		num, den string
		digits   int
	}{"success_ratio": {"succeeded", "requests", 4}, "amplification": {"attempts", "requests", 3}}
	checked := 0
	for _, m := range metricTable() {
		if m.Shards != ShardSum && m.Shards != ShardMax && m.Shards != ShardRatio {
			continue
		}
		want, ok := m.Value(&all)
		if !ok {
			t.Fatalf("%s: the whole cohort has no figure", m.Name)
		}
		va, _ := m.Value(&a)
		vb, _ := m.Value(&b)
		var got float64
		switch m.Shards {
		case ShardSum:
			got = va + vb
		case ShardMax:
			got = max(va, vb)
		case ShardRatio:
			r, ok := ratios[m.Name]
			if !ok {
				t.Errorf("%s is a ratio of summed counts, and this test does not know which", m.Name)
				continue
			}
			got = round((byName(&a, r.num)+byName(&b, r.num))/(byName(&a, r.den)+byName(&b, r.den)), r.digits)
		}
		checked++
		if got != want {
			t.Errorf("%s (%s): the shards give %v, the whole cohort %v", m.Name, m.Shards, got, want)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d metrics only", checked)
	}
	// The figures the test relies on are there to be checked.
	if all.Attempts == 0 || *all.Calls == 0 || all.BudgetDenied == 0 || all.Outcomes["reset"] == 0 || all.CompletionS == nil || all.MaxOpenBreakers < 2 {
		t.Fatalf("the fixture records too little: %+v", all)
	}
}

// TestMetricsDocumented: docs/results.md names every metric (or its
// object: `latency_ms.request` for latency_ms.request.p99).
func TestMetricsDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range metricTable() {
		group := m.Name
		if i := strings.LastIndexByte(group, '.'); i > 0 {
			group = group[:i]
		}
		if !strings.Contains(string(doc), "`"+m.Name+"`") && !strings.Contains(string(doc), "`"+group+"`") {
			t.Errorf("docs/results.md does not document %s", m.Name)
		}
	}
}

// success_ratio is over the requests that ended: requests still in a
// backoff wait (or on the wire) when the run ended are unfinished, in
// neither side, so a cohort with no failure has 100%, however many
// requests it left unfinished.
func TestSuccessRatioOverEndedRequests(t *testing.T) {
	for _, c := range []struct {
		name                       string
		started, succeeded, failed int64
		wantRatio                  *float64
		wantUnfinished             int64
	}{
		{"no failure, 141 asleep in a backoff", 4195, 4054, 0, new(1.0), 141},
		{"every request ended", 1000, 940, 60, new(0.94), 0},
		{"some failed, some unfinished", 1000, 600, 200, new(0.75), 200},
		{"nothing ended", 50, 0, 0, nil, 50},
		{"nothing started", 0, 0, 0, nil, 0},
		{"every ended request failed", 10, 0, 4, new(0.0), 6},
		{"rounded to 4 decimals", 3, 2, 1, new(0.6667), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := NewRecorder(time.Second, 1)
			sh := rec.Shard(0)
			for i := int64(0); i < c.started; i++ {
				sh.Started(0)
			}
			for i := int64(0); i < c.succeeded+c.failed; i++ {
				sh.Request(Request{Start: 0, End: time.Millisecond, Succeeded: i < c.succeeded})
			}
			r := Summarize(Cohort{Strategy: "s", Rec: rec}, Window{})
			if (r.SuccessRatio == nil) != (c.wantRatio == nil) || r.SuccessRatio != nil && *r.SuccessRatio != *c.wantRatio {
				t.Errorf("success_ratio %s, want %s", ratioOf(r.SuccessRatio), ratioOf(c.wantRatio))
			}
			if r.Unfinished != c.wantUnfinished {
				t.Errorf("unfinished %d, want %d", r.Unfinished, c.wantUnfinished)
			}
			if r.Succeeded+r.Failed+r.Unfinished != r.Requests {
				t.Errorf("succeeded %d + failed %d + unfinished %d != requests %d", r.Succeeded, r.Failed, r.Unfinished, r.Requests)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			if c.wantRatio == nil && !strings.Contains(string(b), `"success_ratio":null`) {
				t.Errorf("summary.json writes %s, want success_ratio null", b)
			}
		})
	}
}

// ratioOf writes a ratio that may be absent.
func ratioOf(r *float64) string {
	if r == nil {
		return "absent"
	}
	return fmt.Sprint(*r)
}
