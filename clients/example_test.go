package clients_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/herdbench/herdbench/clients"
)

// A backoff is a pure function of the failures so far, the previous wait
// and a uniform draw that the caller supplies: plain exponential backoff
// waits the same for every client (the stampede), full jitter spreads the
// same ceiling over [0, v(n)] with each client's own stream.
func ExampleBackoff_Next() {
	plain := clients.Backoff{Shape: clients.Exponential, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
	jitter := clients.Backoff{Shape: clients.Full, Base: 100 * time.Millisecond, Cap: 2 * time.Second}
	rng := rand.New(rand.NewPCG(7, 1)) // one client's stream: clients.Stream(seed, id) in a run
	var prev time.Duration
	for n := 1; n <= 5; n++ { // n failed attempts so far
		prev = plain.Next(n, prev, 0)
		fmt.Printf("n=%d: exponential %v, full jitter %v\n", n, prev, jitter.Next(n, 0, rng.Float64()).Round(time.Millisecond))
	}
	// Output:
	// n=1: exponential 200ms, full jitter 98ms
	// n=2: exponential 400ms, full jitter 319ms
	// n=3: exponential 800ms, full jitter 602ms
	// n=4: exponential 1.6s, full jitter 1.111s
	// n=5: exponential 2s, full jitter 1.674s
}

// A retry budget is a state machine over elapsed time: gRPC's (A6) starts
// with 10 tokens, takes one for every failed attempt and allows retries
// while more than half are left. Its kind's Spec, from the registry, holds
// the published constants; New makes a client's (or a cohort's) state.
func ExampleGRPCTokens() {
	spec, _ := clients.Budgets.Spec("grpc")
	fmt.Printf("%s: %+v\n", clients.Budgets.Summary("grpc"), spec)
	budget := spec.New()
	for failures := 1; failures <= 6; failures++ {
		budget.Answered(0, false, 0) // an attempt failed
		_, ok := budget.Retry(0, false)
		fmt.Printf("failure %d: %.0f tokens left, retry allowed: %v\n", failures, budget.(*clients.GRPCTokens).Tokens(), ok)
	}
	// Output:
	// token bucket, gRPC A6: &{MaxTokens:10 TokenRatio:0.1}
	// failure 1: 9 tokens left, retry allowed: true
	// failure 2: 8 tokens left, retry allowed: true
	// failure 3: 7 tokens left, retry allowed: true
	// failure 4: 6 tokens left, retry allowed: true
	// failure 5: 5 tokens left, retry allowed: false
	// failure 6: 4 tokens left, retry allowed: false
}
