package clients

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// TestRetryRules: retry_on, success and idempotency decide whether a failed
// attempt is retried; the zero values retry every failure, as before.
func TestRetryRules(t *testing.T) {
	on := func(items ...string) RetryOn {
		var r RetryOn
		for _, it := range items {
			if !r.Add(it) {
				t.Fatalf("Add(%q) refused", it)
			}
		}
		return r
	}
	post := NewMix([]Request{{Method: "POST", Path: "/", Weight: 1}})
	keyed := NewMix([]Request{{Method: "POST", Path: "/", Weight: 1, Retry: true}})
	for _, c := range []struct {
		name    string
		s       Strategy
		outcome results.Outcome
		status  int
		retried bool
		ok      bool
	}{
		{"default retries a 503", Strategy{}, results.HTTP5xx, 503, true, false},
		{"default retries a 404", Strategy{}, results.HTTP4xx, 404, true, false},
		{"default retries a reset", Strategy{}, results.Reset, 0, true, false},
		{"5xx retries a 503", Strategy{RetryOn: on("5xx")}, results.HTTP5xx, 503, true, false},
		{"5xx leaves a 429", Strategy{RetryOn: on("5xx")}, results.HTTP429, 429, false, false},
		{"5xx leaves a reset", Strategy{RetryOn: on("5xx")}, results.Reset, 0, false, false},
		{"reset retries a reset", Strategy{RetryOn: on("5xx", "reset")}, results.Reset, 0, true, false},
		{"503 leaves a 500", Strategy{RetryOn: on("503")}, results.HTTP5xx, 500, false, false},
		{"gateway-error retries a 504", Strategy{RetryOn: on("gateway-error")}, results.HTTP5xx, 504, true, false},
		{"timeout", Strategy{RetryOn: on("timeout")}, results.Timeout, 0, true, false},
		{"a POST is not retried", Strategy{Requests: post}, results.HTTP5xx, 503, false, false},
		{"a keyed POST is retried", Strategy{Requests: keyed}, results.HTTP5xx, 503, true, false},
		{"404 as success", Strategy{Success: Success{Set: true, Statuses: statusesOf(t, "2xx", "404")}}, results.HTTP4xx, 404, false, true},
		{"a 204 outside success fails", Strategy{Success: Success{Set: true, Statuses: statusesOf(t, "200")}}, results.OK, 204, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			s.Backoff = Backoff{Shape: Constant, Base: 10 * ms, Cap: 10 * ms}
			s.MaxAttempts = 3
			sink := &fakeSink{}
			cl := NewClient(0, &s, &Workload{Kind: OneShot, Clients: 1}, time.Minute, seeds.Stream(1, 0), sink)
			cl.Traffic(1)
			cl.Begin()
			a := cl.Result(Reply{Latency: ms, Outcome: c.outcome, Status: c.status})
			if got := a.Op == Send; got != c.retried {
				t.Errorf("retried = %v, want %v (%+v)", got, c.retried, a)
			}
			if got := sink.attempts[0].Outcome == results.OK; got != c.ok {
				t.Errorf("recorded outcome %v, want ok = %v", sink.attempts[0].Outcome, c.ok)
			}
		})
	}
}

func statusesOf(t *testing.T, items ...string) statusSet {
	var s Success
	for _, it := range items {
		if !s.AddSuccess(it) {
			t.Fatalf("AddSuccess(%q) refused", it)
		}
	}
	return s.Statuses
}

// TestMixWeightsThatOverflowKeepTheirShares: weights whose sum overflows a
// float64 (two of 1e308) keep their shares of the mix; summed as they
// were, every draw picked the last request.
func TestMixWeightsThatOverflowKeepTheirShares(t *testing.T) {
	for _, c := range []struct {
		weights []float64
		shares  []float64 // of 10,000 evenly spaced draws
	}{
		{[]float64{1e308, 1e308}, []float64{0.5, 0.5}},
		{[]float64{1.5e308, 0.5e308}, []float64{0.75, 0.25}},
		{[]float64{1e308, 1e308, 1e308, 1e308}, []float64{0.25, 0.25, 0.25, 0.25}},
		{[]float64{1.7e308, 1.7e308, 1e-300}, []float64{0.5, 0.5, 0}},
		{[]float64{1, 3}, []float64{0.25, 0.75}},
	} {
		reqs := make([]Request, len(c.weights))
		for i, w := range c.weights {
			reqs[i] = Request{Method: "GET", Path: "/", Weight: w}
		}
		m := NewMix(reqs)
		const draws = 10_000
		got := make([]int, len(reqs))
		for k := range draws {
			got[m.Pick((float64(k)+0.5)/draws)]++
		}
		for i, want := range c.shares {
			if share := float64(got[i]) / draws; share < want-0.001 || share > want+0.001 {
				t.Errorf("weights %v: request %d drawn %.4f of the time, want %.2f", c.weights, i, share, want)
			}
		}
	}
}
