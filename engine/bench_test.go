package engine

import (
	"context"
	"testing"

	"github.com/herdbench/herdbench/scenarios"
)

// BenchmarkAWSSweep is the whole AWS sweep in virtual time: N = 10..190
// step 10, five strategies, 100 repetitions each (9,500 cohort runs), on
// every core. One op is one sweep.
func BenchmarkAWSSweep(b *testing.B) {
	sc, err := scenarios.Open("aws-contention", scenarios.Overrides{})
	if err != nil {
		b.Fatal(err)
	}
	var plans []*scenarios.Plan
	for n := 10; n <= 190; n += 10 {
		p, err := sc.Compile(scenarios.Overrides{Clients: n})
		if err != nil {
			b.Fatal(err)
		}
		plans = append(plans, p)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Execute(context.Background(), plans, Options{Mode: Mode{Sim: true, Runs: 100}}); err != nil {
			b.Fatal(err)
		}
	}
}
