package scenarios

import (
	"fmt"
	"math"

	"github.com/herdbench/herdbench/results"
)

// Claim is one claim of a built-in scenario's headline, checked on a
// summary of its run.
type Claim struct {
	Text   string  // what must hold, e.g. "herd factor: no-jitter ≥ 5 × full-jitter"
	Short  string  // the same in a few characters, for a table's header: "herd nj/fj ≥ 5"
	Value  float64 // the figure the claim is about; +Inf for "never" (recovery)
	Figure string  // Value as a person reads it, e.g. "17.2×" or "never"
	Holds  bool
}

// Headline returns the checks of the claim that built-in scenario name
// demonstrates (its description says it in words), on the summary of its
// run, or, for a sweep, the summaries of its points; false if name has no
// headline. A cohort or a point the summaries lack (--strategies or an
// interrupt left it out) fails the checks that need it.
//
//   - outage: no-jitter's waves stand out (herd factor at least 5 times
//     full jitter's), full jitter knocks the recovering service down far
//     less (failed_after_fault at most a third of no-jitter's) and
//     recovers no later.
//   - grpc-outage: grpc-go's ±20% jitter leaves waves (its herd factor
//     at least 1.5 times full jitter's on the same ceilings, the example
//     policy's at least 5 times); retry throttling on a shared channel
//     stops the storm (amplification at most 1.05, herd factor at most
//     2, where full jitter's is 4) and costs success (at most 0.95 times grpc-go's without it);
//     the channels' reconnect backoff outlasts the crash (grpc-go's RPCs
//     fail at the pick after the service is back: at least 200 failed
//     attempts after the fault).
//   - metastable: naive retries never recover within the run; every
//     budgeted cohort (jitter+budget+breaker, aws-standard, grpc)
//     recovers within 2 s with an amplification of at most 1.2.
//   - aws-contention: exponential backoff without jitter makes more calls
//     than full jitter and finishes later.
//   - jitter-range (a sweep of the jitter share F): a narrow range keeps
//     the waves (herd factor at F = 0.05 at least 5 times, at F = 0.2 at
//     least twice, F = 1's) and their knock-downs (failed_after_fault at
//     F = 1 at most a third of F = 0.1's and of F = 0.2's).
//   - long-lived: never resetting the backoff costs plain exponential and
//     full jitter at least a quarter of the work a per-request reset does
//     (succeeded), and decorrelated does at least 10% more than either.
//   - layers: retrying at every tier puts at least 10 times as many
//     attempts on the bottom tier per user request as retrying only at the
//     edge, and never recovers; retrying only at the edge and a budget at
//     every tier recover within 2 s and succeed at least twice as often;
//     the budget keeps the bottom tier's amplification at most 1.5.
func Headline(name string, summaries ...*results.Summary) ([]Claim, bool) {
	if name == "jitter-range" {
		return jitterRange(summaries), true
	}
	s := &results.Summary{}
	if len(summaries) > 0 {
		s = summaries[0]
	}
	runs := map[string]*results.Run{}
	for i := range s.Runs {
		runs[s.Runs[i].Strategy] = &s.Runs[i]
	}
	switch name {
	case "long-lived":
		reset, exp, full, dec := runs["reset"], runs["exponential"], runs["full-jitter"], runs["decorrelated"]
		succeeded := func(r *results.Run) float64 { return float64(r.Succeeded) }
		return []Claim{
			ratioCheck("succeeded: exponential ≤ ¾ × reset", "exp/reset ≤ ¾", exp, reset, succeeded, 0.75, false),
			ratioCheck("succeeded: full-jitter ≤ ¾ × reset", "full/reset ≤ ¾", full, reset, succeeded, 0.75, false),
			ratioCheck("succeeded: decorrelated ≥ 1.1 × full-jitter", "dec/full ≥ 1.1", dec, full, succeeded, 1.1, true),
			ratioCheck("succeeded: decorrelated ≥ 1.1 × exponential", "dec/exp ≥ 1.1", dec, exp, succeeded, 1.1, true),
		}, true
	case "outage":
		nj, fj := runs["no-jitter"], runs["full-jitter"]
		return []Claim{
			ratioCheck("herd factor: no-jitter ≥ 5 × full-jitter", "herd nj/fj ≥ 5", nj, fj, func(r *results.Run) float64 { return r.HerdFactor }, 5, true),
			ratioCheck("failed after fault: full-jitter ≤ ⅓ × no-jitter", "failed after fj/nj ≤ ⅓", fj, nj, func(r *results.Run) float64 { return float64(r.FailedAfterFault) }, 1.0/3, false),
			recoveryNoLater("recovery: full-jitter no later than no-jitter", "recovery fj ≤ nj", fj, nj),
		}, true
	case "grpc-outage":
		return grpcOutageClaims(runs), true
	case "metastable":
		short := map[string]string{"jitter+budget+breaker": "budget+brk", "aws-standard": "aws", "grpc": "grpc"}
		checks := []Claim{neverRecovers("recovery: naive never recovers", "naive never recovers", runs["naive"])}
		for _, name := range []string{"jitter+budget+breaker", "aws-standard", "grpc"} {
			r := runs[name]
			checks = append(checks, recoversWithin("recovery: "+name+" within 2 s", short[name]+" recovery ≤ 2 s", r, 2))
			c := Claim{Text: "amplification: " + name + " ≤ 1.2", Short: short[name] + " amplif. ≤ 1.2", Value: math.NaN(), Figure: "no cohort"}
			if r != nil {
				c.Value, c.Figure, c.Holds = r.Amplification, fmt.Sprintf("%.2f", r.Amplification), r.Amplification <= 1.2
			}
			checks = append(checks, c)
		}
		return checks, true
	case "layers":
		return layersClaims(runs), true
	case "aws-contention":
		exp, full := runs["exponential"], runs["full"]
		calls := func(r *results.Run) float64 {
			if r.Calls == nil {
				return math.NaN()
			}
			return float64(*r.Calls)
		}
		completion := func(r *results.Run) float64 {
			if r.CompletionS == nil {
				return math.Inf(1) // not finished within the run
			}
			return *r.CompletionS
		}
		return []Claim{
			ratioCheck("calls: exponential > full", "calls exp/full > 1", exp, full, calls, 1, true),
			ratioCheck("completion: full < exponential", "completion full/exp < 1", full, exp, completion, 1, false),
		}, true
	}
	return nil, false
}

// grpcOutageClaims are the built-in grpc-outage's claims on its runs.
func grpcOutageClaims(runs map[string]*results.Run) []Claim {
	g, fj, th, ex := runs["grpc-go"], runs["full-jitter"], runs["grpc-go+throttling"], runs["grpc-go-example"]
	herd := func(r *results.Run) float64 { return r.HerdFactor }
	success := func(r *results.Run) float64 {
		if r.SuccessRatio == nil {
			return math.NaN()
		}
		return *r.SuccessRatio
	}
	amp := Claim{Text: "amplification: grpc-go+throttling ≤ 1.05", Short: "throttled amplif. ≤ 1.05", Value: math.NaN(), Figure: "no cohort"}
	calm := Claim{Text: "herd factor: grpc-go+throttling ≤ 2", Short: "throttled herd ≤ 2", Value: math.NaN(), Figure: "no cohort"}
	late := Claim{Text: "failed after fault: grpc-go ≥ 200 (its channels reconnect on their own backoff)", Short: "grpc failed after ≥ 200", Value: math.NaN(), Figure: "no cohort"}
	if g != nil {
		late.Value, late.Figure, late.Holds = float64(g.FailedAfterFault), fmt.Sprint(g.FailedAfterFault), g.FailedAfterFault >= 200
	}
	if th != nil {
		amp.Value, amp.Figure, amp.Holds = th.Amplification, fmt.Sprintf("%.2f", th.Amplification), th.Amplification <= 1.05
		calm.Value, calm.Figure, calm.Holds = th.HerdFactor, fmt.Sprintf("%.2f", th.HerdFactor), th.HerdFactor <= 2
	}
	return []Claim{
		ratioCheck("herd factor: grpc-go ≥ 1.5 × full-jitter", "herd grpc/fj ≥ 1.5", g, fj, herd, 1.5, true),
		ratioCheck("herd factor: grpc-go-example ≥ 5 × full-jitter", "herd example/fj ≥ 5", ex, fj, herd, 5, true),
		amp, calm,
		ratioCheck("success: grpc-go+throttling ≤ 0.95 × grpc-go", "success throttled/grpc ≤ .95", th, g, success, 0.95, false),
		late,
	}
}

// layersClaims are the built-in layers' claims on its runs.
func layersClaims(runs map[string]*results.Run) []Claim {
	every, edge, budget := runs["every-tier"], runs["edge-only"], runs["every-tier+budget"]
	bottom := func(r *results.Run) float64 {
		if b := r.Bottom(); b != nil {
			return b.Amplification
		}
		return math.NaN()
	}
	success := func(r *results.Run) float64 {
		if r.SuccessRatio == nil {
			return math.NaN() // no request ended
		}
		return *r.SuccessRatio
	}
	c := Claim{Text: "amplification at the bottom tier: every-tier+budget ≤ 1.5", Short: "budget bottom amplif. ≤ 1.5", Value: math.NaN(), Figure: "no cohort"}
	if budget != nil {
		c.Value, c.Figure, c.Holds = bottom(budget), fmt.Sprintf("%.2f", bottom(budget)), bottom(budget) <= 1.5
	}
	return []Claim{
		ratioCheck("amplification at the bottom tier: every-tier ≥ 10 × edge-only", "bottom every/edge ≥ 10", every, edge, bottom, 10, true),
		neverRecovers("recovery: every-tier never recovers", "every-tier never recovers", every),
		recoversWithin("recovery: edge-only within 2 s", "edge-only recovery ≤ 2 s", edge, 2),
		recoversWithin("recovery: every-tier+budget within 2 s", "budget recovery ≤ 2 s", budget, 2),
		ratioCheck("success: edge-only ≥ 2 × every-tier", "success edge/every ≥ 2", edge, every, success, 2, true),
		ratioCheck("success: every-tier+budget ≥ 2 × every-tier", "success budget/every ≥ 2", budget, every, success, 2, true),
		c,
	}
}

// HeadlineFigures returns what built-in scenario name's headline rests
// on, and so how a real run of it is judged (results.Limit): waves for
// outage, grpc-outage and jitter-range (herd factors and failures after the fault, in
// 10 ms buckets), counts for the others (calls, completion, successes,
// amplification, recovery within seconds). A scenario without a headline
// (a user's file) is judged by waves: its summary has a herd factor, the
// strictest figure. TestHeadlineFigures checks this against the claims.
func HeadlineFigures(name string) results.Figures {
	switch name {
	case "metastable", "aws-contention", "long-lived", "layers":
		return results.Counts
	}
	return results.Waves
}

// jitterRange checks the jitter-range sweep: the figures of its one
// cohort at each jitter share.
func jitterRange(points []*results.Summary) []Claim {
	at := func(f string) *results.Run {
		for _, s := range points {
			if len(s.Point) == 1 && s.Point[0].Value == f && len(s.Runs) == 1 && !s.Partial {
				return &s.Runs[0]
			}
		}
		return nil
	}
	herd := func(r *results.Run) float64 { return r.HerdFactor }
	failed := func(r *results.Run) float64 { return float64(r.FailedAfterFault) }
	return []Claim{
		ratioCheck("herd factor: F = 0.05 ≥ 5 × F = 1", "herd .05/1 ≥ 5", at("0.05"), at("1"), herd, 5, true),
		ratioCheck("herd factor: F = 0.2 ≥ 2 × F = 1", "herd .2/1 ≥ 2", at("0.2"), at("1"), herd, 2, true),
		ratioCheck("failed after fault: F = 1 ≤ ⅓ × F = 0.1", "failed 1/.1 ≤ ⅓", at("1"), at("0.1"), failed, 1.0/3, false),
		ratioCheck("failed after fault: F = 1 ≤ ⅓ × F = 0.2", "failed 1/.2 ≤ ⅓", at("1"), at("0.2"), failed, 1.0/3, false),
	}
}

// ratioCheck checks f(a) / f(b) against limit: at least (atLeast) or at
// most. Equality never holds for a limit of 1 ("more", "less").
func ratioCheck(claim, short string, a, b *results.Run, f func(*results.Run) float64, limit float64, atLeast bool) Claim {
	c := Claim{Text: claim, Short: short, Value: math.NaN(), Figure: "no cohort"}
	if a == nil || b == nil {
		return c
	}
	x, y := f(a), f(b)
	switch {
	case y == 0 && x == 0:
		c.Value = math.NaN()
	case y == 0:
		c.Value = math.Inf(1)
	default:
		c.Value = x / y
	}
	c.Figure = fmt.Sprintf("%.2f× (%.4g vs %.4g)", c.Value, x, y)
	if math.IsNaN(c.Value) {
		c.Figure = "undefined"
		return c
	}
	if atLeast {
		c.Holds = c.Value >= limit && (limit != 1 || c.Value > 1)
	} else {
		c.Holds = c.Value <= limit && (limit != 1 || c.Value < 1)
	}
	return c
}

func recovery(r *results.Run) float64 {
	if r.RecoveryS == nil {
		return math.Inf(1)
	}
	return *r.RecoveryS
}

func recoveryText(v float64) string {
	if math.IsInf(v, 1) {
		return "never"
	}
	return fmt.Sprintf("%.2f s", v)
}

// recoveryNoLater: a recovers, and no later than b (which may never).
func recoveryNoLater(claim, short string, a, b *results.Run) Claim {
	c := Claim{Text: claim, Short: short, Value: math.NaN(), Figure: "no cohort"}
	if a == nil || b == nil {
		return c
	}
	x, y := recovery(a), recovery(b)
	c.Value = x
	c.Figure = recoveryText(x) + " vs " + recoveryText(y)
	c.Holds = !math.IsInf(x, 1) && x <= y
	return c
}

func neverRecovers(claim, short string, r *results.Run) Claim {
	c := Claim{Text: claim, Short: short, Value: math.NaN(), Figure: "no cohort"}
	if r == nil {
		return c
	}
	c.Value = recovery(r)
	c.Figure = recoveryText(c.Value)
	c.Holds = math.IsInf(c.Value, 1)
	return c
}

func recoversWithin(claim, short string, r *results.Run, limit float64) Claim {
	c := Claim{Text: claim, Short: short, Value: math.NaN(), Figure: "no cohort"}
	if r == nil {
		return c
	}
	c.Value = recovery(r)
	c.Figure = recoveryText(c.Value)
	c.Holds = c.Value <= limit
	return c
}
