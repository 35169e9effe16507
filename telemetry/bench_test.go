package telemetry

import (
	"context"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// manualExporter is an Exporter whose metrics are read by hand, never
// sent: what recording costs, without the network.
func manualExporter() (*Exporter, *sdkmetric.ManualReader) {
	prod := &producer{}
	r := sdkmetric.NewManualReader(sdkmetric.WithProducer(prod))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r), sdkmetric.WithView(exponentialView()))
	return &Exporter{provider: mp, meter: mp.Meter("bench"), producer: prod}, r
}

// sdkObserver records into the OpenTelemetry SDK's synchronous histogram
// beside the Prometheus one: what the export would cost through the
// SDK's instruments (a lock per attribute set), for comparison.
type sdkObserver struct {
	results.Observer
	h    metric.Float64Histogram
	opts [results.NumOutcomes][]metric.RecordOption
}

func (o *sdkObserver) ObserveAttempt(a results.Attempt) {
	o.Observer.ObserveAttempt(a)
	o.h.Record(context.Background(), a.Latency.Seconds(), o.opts[a.Outcome]...)
}

// BenchmarkRecordAttempt is the cost of recording one attempt into a
// cohort's recorder (what every attempt pays), without live metrics
// ("off"), with the Prometheus histogram (--metrics-addr), with the
// OpenTelemetry histogram too (--otlp), and, for comparison, with the
// SDK's own synchronous histogram instead, from several goroutines at
// once as the swarm's clients record.
func BenchmarkRecordAttempt(b *testing.B) {
	outcomes := []struct {
		o      results.Outcome
		status int
	}{{results.OK, 200}, {results.OK, 200}, {results.HTTP5xx, 503}, {results.Timeout, 0}}
	for _, c := range []struct {
		name       string
		prom, otel bool
		sdk        bool
	}{{"off", false, false, false}, {"prometheus", true, false, false}, {"prometheus+otlp", true, true, false}, {"prometheus+otel-sdk-histogram", true, false, true}} {
		b.Run(c.name, func(b *testing.B) {
			rec := results.NewRecorder(time.Minute, 8)
			if c.prom {
				var exp *Exporter
				if c.otel {
					exp, _ = manualExporter()
				}
				sw, err := NewSwarm(exp)
				if err != nil {
					b.Fatal(err)
				}
				obs := sw.Cohort("bench")
				if c.sdk {
					exp, _ := manualExporter()
					h, err := exp.meter.Float64Histogram("http.client.request.duration")
					if err != nil {
						b.Fatal(err)
					}
					so := &sdkObserver{Observer: obs, h: h}
					for o := range so.opts {
						so.opts[o] = []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("herdbench.outcome", results.Outcome(o).String())))}
					}
					obs = so
				}
				rec.Observe(obs)
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					oc := outcomes[i%len(outcomes)]
					rec.Shard(i).Attempt(results.Attempt{
						Sent: time.Duration(i%50000) * time.Millisecond, Latency: time.Duration(1+i%997) * 37 * time.Microsecond,
						Number: 1 + i%5, Outcome: oc.o, Status: oc.status,
					})
					i++
				}
			})
		})
	}
}
