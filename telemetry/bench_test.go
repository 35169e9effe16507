package telemetry

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
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

// BenchmarkRecordAttempt is the cost of recording one attempt into a
// cohort's recorder (what every attempt pays), without live metrics
// ("off"), with the Prometheus histogram (--metrics-addr) and with the
// OpenTelemetry histogram too (--otlp), from several goroutines at once
// as the swarm's clients record.
func BenchmarkRecordAttempt(b *testing.B) {
	outcomes := []struct {
		o      results.Outcome
		status int
	}{{results.OK, 200}, {results.OK, 200}, {results.HTTP5xx, 503}, {results.Timeout, 0}}
	for _, c := range []struct {
		name       string
		prom, otel bool
	}{{"off", false, false}, {"prometheus", true, false}, {"prometheus+otlp", true, true}} {
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
				rec.Observe(sw.Cohort("bench"))
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
