package telemetry

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// The OTLP latency histograms are not recorded through the OpenTelemetry
// SDK's synchronous instruments: those take a lock per attribute set on
// every record, which the swarm's clients would contend for at every
// attempt. Each attribute set has a Prometheus native histogram instead
// (lock-free: atomic adds), and at each export a Producer reads them and
// hands them to the SDK as OpenTelemetry exponential histograms. The two
// are the same thing: a native histogram of schema s has the boundaries
// of an exponential histogram of scale s (base 2^(2^-s)); only the
// bucket numbering differs by one.

// expoOpts are the options of the histograms behind an OTLP latency
// histogram: native only (no classic buckets), at most 10% between bucket
// bounds (schema 3), at most 160 buckets, halving the resolution past
// that rather than resetting.
var expoOpts = prometheus.HistogramOpts{
	Name: "otlp", Help: "An OTLP histogram's attribute set.",
	NativeHistogramBucketFactor:     1.1,
	NativeHistogramMaxBucketNumber:  160,
	NativeHistogramMinResetDuration: 24 * time.Hour,
}

// expoHistogram is one OTLP histogram instrument: a native histogram per
// attribute set, created on the first record of that set.
type expoHistogram struct {
	name, description, unit string
	start                   time.Time

	mu     sync.Mutex
	series []expoSeries
}

type expoSeries struct {
	attrs attribute.Set
	h     prometheus.Histogram
}

func newExpoHistogram(name, description, unit string) *expoHistogram {
	return &expoHistogram{name: name, description: description, unit: unit, start: time.Now()}
}

// add returns the histogram of a new attribute set. Callers keep it (a
// sync.Map by their own key): add is not on the hot path.
func (e *expoHistogram) add(attrs attribute.Set) prometheus.Histogram {
	h := prometheus.NewHistogram(expoOpts)
	e.mu.Lock()
	e.series = append(e.series, expoSeries{attrs: attrs, h: h})
	e.mu.Unlock()
	return h
}

// metric reads every attribute set's histogram as a cumulative
// OpenTelemetry exponential histogram.
func (e *expoHistogram) metric(now time.Time) metricdata.Metrics {
	e.mu.Lock()
	series := append([]expoSeries(nil), e.series...)
	e.mu.Unlock()
	points := make([]metricdata.ExponentialHistogramDataPoint[float64], 0, len(series))
	for _, s := range series {
		var m dto.Metric
		if err := s.h.Write(&m); err != nil {
			continue
		}
		p := expoPoint(m.GetHistogram())
		p.Attributes, p.StartTime, p.Time = s.attrs, e.start, now
		points = append(points, p)
	}
	return metricdata.Metrics{
		Name: e.name, Description: e.description, Unit: e.unit,
		Data: metricdata.ExponentialHistogram[float64]{DataPoints: points, Temporality: metricdata.CumulativeTemporality},
	}
}

// expoPoint converts a Prometheus native histogram into an OpenTelemetry
// exponential histogram point. Prometheus bucket i holds (base^(i-1),
// base^i]; OpenTelemetry bucket i holds (base^i, base^(i+1)]: index i-1.
func expoPoint(h *dto.Histogram) metricdata.ExponentialHistogramDataPoint[float64] {
	p := metricdata.ExponentialHistogramDataPoint[float64]{
		Count: h.GetSampleCount(), Sum: h.GetSampleSum(), Scale: h.GetSchema(),
		ZeroCount: h.GetZeroCount(), ZeroThreshold: h.GetZeroThreshold(),
	}
	p.PositiveBucket = expoBuckets(h.GetPositiveSpan(), h.GetPositiveDelta())
	p.NegativeBucket = expoBuckets(h.GetNegativeSpan(), h.GetNegativeDelta())
	return p
}

// expoBuckets expands a native histogram's spans and delta-encoded counts
// into one dense run of counts from its first bucket.
func expoBuckets(spans []*dto.BucketSpan, deltas []int64) metricdata.ExponentialBucket {
	if len(spans) == 0 {
		return metricdata.ExponentialBucket{}
	}
	first := spans[0].GetOffset()
	var counts []uint64
	var count int64
	idx, d := first, 0
	for i, sp := range spans {
		if i > 0 {
			idx += sp.GetOffset()
		}
		for pos := first + int32(len(counts)); pos < idx; pos++ {
			counts = append(counts, 0) // the gap between spans
		}
		for range sp.GetLength() {
			if d < len(deltas) {
				count += deltas[d]
				d++
			}
			counts = append(counts, uint64(max(count, 0)))
			idx++
		}
	}
	return metricdata.ExponentialBucket{Offset: first - 1, Counts: counts}
}

// producer hands the exporter's histograms to the OpenTelemetry SDK at
// each collection (sdkmetric.Producer).
type producer struct {
	mu    sync.Mutex
	hists []*expoHistogram
}

func (p *producer) register(h *expoHistogram) {
	p.mu.Lock()
	p.hists = append(p.hists, h)
	p.mu.Unlock()
}

// Produce implements sdkmetric.Producer.
func (p *producer) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	p.mu.Lock()
	hists := append([]*expoHistogram(nil), p.hists...)
	p.mu.Unlock()
	if len(hists) == 0 {
		return nil, nil
	}
	now := time.Now()
	sm := metricdata.ScopeMetrics{Scope: instrumentation.Scope{Name: scopeName}}
	for _, h := range hists {
		sm.Metrics = append(sm.Metrics, h.metric(now))
	}
	return []metricdata.ScopeMetrics{sm}, nil
}
