package telemetry

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// otelIndex is the OpenTelemetry exponential histogram's bucket of v at
// scale: the i with base^i < v <= base^(i+1), base = 2^(2^-scale).
func otelIndex(v float64, scale int32) int32 {
	return int32(math.Ceil(math.Log2(v)*math.Exp2(float64(scale)))) - 1
}

// TestExpoPointBuckets: values recorded into a native histogram come out
// of the conversion in the OpenTelemetry buckets their values belong to
// (by the specification's formula), with the count, sum and zero count,
// across gaps between spans.
func TestExpoPointBuckets(t *testing.T) {
	e := newExpoHistogram("d", "", "s")
	h := e.add(attribute.NewSet(attribute.String("k", "v")))
	values := []float64{0, 0.0001, 0.00011, 0.003, 0.003, 0.25, 0.2501, 1, 7.5, 7.5, 7.5, 120}
	want := map[int32]uint64{}
	var sum float64
	for _, v := range values {
		h.Observe(v)
		sum += v
	}
	m := e.metric(time.Now())
	p := m.Data.(metricdata.ExponentialHistogram[float64]).DataPoints[0]
	for _, v := range values {
		if v > 0 {
			want[otelIndex(v, p.Scale)]++
		}
	}
	if p.Scale != 3 || p.Count != uint64(len(values)) || p.ZeroCount != 1 || math.Abs(p.Sum-sum) > 1e-9 {
		t.Fatalf("scale %d, count %d, zero count %d, sum %v; want 3, %d, 1, %v", p.Scale, p.Count, p.ZeroCount, p.Sum, len(values), sum)
	}
	got := map[int32]uint64{}
	var n uint64
	for i, c := range p.PositiveBucket.Counts {
		if c > 0 {
			got[p.PositiveBucket.Offset+int32(i)] = c
		}
		n += c
	}
	if n != uint64(len(values)-1) || len(got) != len(want) {
		t.Fatalf("buckets %v, want %v", got, want)
	}
	for i, c := range want {
		if got[i] != c {
			t.Errorf("bucket %d holds %d, want %d (all: %v, want %v)", i, got[i], c, got, want)
		}
	}
}

// TestSwarmOTLPHistogram: a cohort's attempts reach the manual reader as
// http.client.request.duration points, one per attribute set, with the
// semantic conventions' attributes.
func TestSwarmOTLPHistogram(t *testing.T) {
	exp, reader := manualExporter()
	sw, err := NewSwarm(exp)
	if err != nil {
		t.Fatal(err)
	}
	o := sw.Cohort("full-jitter")
	if sw.Cohort("full-jitter") != o {
		t.Error("Cohort returned a second observer for the same cohort")
	}
	o.ObserveAttempt(results.Attempt{Latency: 3 * time.Millisecond, Number: 1, Outcome: results.OK, Status: 200})
	o.ObserveAttempt(results.Attempt{Latency: 4 * time.Millisecond, Number: 2, Outcome: results.HTTP5xx, Status: 503})
	o.ObserveAttempt(results.Attempt{Latency: 5 * time.Millisecond, Number: 2, Outcome: results.HTTP5xx, Status: 503})
	o.ObserveAttempt(results.Attempt{Latency: time.Second, Number: 7, Outcome: results.Timeout})
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var points []metricdata.ExponentialHistogramDataPoint[float64]
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "http.client.request.duration" {
				points = m.Data.(metricdata.ExponentialHistogram[float64]).DataPoints
			}
		}
	}
	type key struct{ attempt, status, errType string }
	got := map[key]uint64{}
	for _, p := range points {
		get := func(k string) string { v, _ := p.Attributes.Value(attribute.Key(k)); return v.String() }
		if get("herdbench.cohort") != "full-jitter" || get("http.request.method") != "POST" {
			t.Errorf("point attributes %v", p.Attributes.ToSlice())
		}
		got[key{get("herdbench.attempt"), get("http.response.status_code"), get("error.type")}] += p.Count
	}
	want := map[key]uint64{{"1", "200", ""}: 1, {"2", "503", "503"}: 2, {"4+", "", "timeout"}: 1}
	if len(got) != len(want) {
		t.Fatalf("points %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("points %v, want %v", got, want)
		}
	}
}
