package sim_test

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/herdbench/herdbench/sim"
)

func loadPlan(b testing.TB, name string, o scenarios.Overrides) *scenarios.Plan {
	b.Helper()
	op, err := scenarios.Open(name, o)
	if err != nil {
		b.Fatal(err)
	}
	return op.Plans[0]
}

func cohortOf(p *scenarios.Plan, strategy string, seed uint64) *sim.Cohort {
	for i := range p.Strategies {
		if p.Strategies[i].Name == strategy {
			return &sim.Cohort{Target: p.Target, Chaos: p.Chaos, Workload: &p.Workload,
				Strategy: &p.Strategies[i], Duration: p.Duration, Seed: seed, GRPC: p.GRPC, Shared: p.Shared}
		}
	}
	panic("no strategy " + strategy)
}

// BenchmarkAWSCohort is one repetition of one cohort of the AWS experiment
// at N = 100: the unit of work of the sweep, recorded as the sweep records
// it (an unshared recorder without per-second intervals). It reports
// events per repetition and nanoseconds per event.
func BenchmarkAWSCohort(b *testing.B) {
	for _, strategy := range []string{"exponential", "full", "none"} {
		b.Run(strategy, func(b *testing.B) {
			p := loadPlan(b, "aws-contention", scenarios.Overrides{})
			s := sim.New()
			rec := results.NewRecorder(p.Duration, 1).WithoutIntervals().Unshared()
			var events uint64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rec.Reset()
				events += s.Run(cohortOf(p, strategy, uint64(i)), rec).Events
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			b.ReportMetric(float64(events)/float64(b.N), "events/op")
		})
	}
}

// BenchmarkEventLoop drives a closed workload of 10,000 clients against a
// plain target with a 503 outage and per-attempt timeouts, for 10 virtual
// seconds: the event loop under load, with a large heap, recorded as a run
// whose timelines are kept.
func BenchmarkEventLoop(b *testing.B) {
	p := loadPlan(b, "outage", scenarios.Overrides{Clients: 10000, Duration: 10 * time.Second})
	co := cohortOf(p, "no-jitter", 1)
	s := sim.New()
	rec := results.NewRecorder(p.Duration, 1).Unshared()
	var events uint64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec.Reset()
		events += s.Run(co, rec).Events
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}

// BenchmarkOutageMillion is one cohort (full jitter) of the built-in outage
// scenario with a million clients: the scale goal of the simulator. Run it
// with -benchtime 1x.
func BenchmarkOutageMillion(b *testing.B) {
	p := loadPlan(b, "outage", scenarios.Overrides{Clients: 1_000_000})
	co := cohortOf(p, "full-jitter", 1)
	s := sim.New()
	var events uint64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rec := results.NewRecorder(p.Duration, 1).Unshared()
		events += s.Run(co, rec).Events
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
