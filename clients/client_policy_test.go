package clients

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// eventSink records everything a client reports, as text, in order.
type eventSink struct{ log []string }

func (s *eventSink) Started(at time.Duration) { s.log = append(s.log, fmt.Sprintf("start@%s", at)) }
func (s *eventSink) Attempt(a results.Attempt) {
	s.log = append(s.log, fmt.Sprintf("attempt%d@%s=%s", a.Number, a.Sent, a.Outcome))
}
func (s *eventSink) Request(q results.Request) {
	s.log = append(s.log, fmt.Sprintf("request@%s ok=%v", q.End, q.Succeeded))
}

var policyEventNames = map[results.PolicyEvent]string{
	results.BudgetDenied: "denied", results.BreakerRejected: "breaker-refused", results.Throttled: "throttled",
	results.BreakerOpened: "breaker-opened", results.BreakerClosed: "breaker-closed",
}

func (s *eventSink) Policy(at time.Duration, e results.PolicyEvent) {
	s.log = append(s.log, fmt.Sprintf("%s@%s", policyEventNames[e], at))
}

func (s *eventSink) String() string { return strings.Join(s.log, " ") }

var oneShotWorkload = &Workload{Kind: OneShot, Clients: 1}

func actionString(a Action) string {
	if a.Op == Stop {
		return "stop"
	}
	return fmt.Sprintf("send%d@%s", a.Attempt, a.At)
}

// replyTo answers the attempt a with outcome o after latency 10 ms.
func replyTo(c *Client, a Action, o results.Outcome, retryAfter time.Duration) Action {
	return c.Result(Reply{Sent: a.At, Latency: 10 * time.Millisecond, Outcome: o, RetryAfter: retryAfter})
}

func constantBackoff(d time.Duration) Backoff { return Backoff{Shape: Constant, Base: d, Cap: d} }

func TestBudgetDenialEndsTheRequestAtOnce(t *testing.T) {
	s := &Strategy{Name: "s", Backoff: constantBackoff(100 * time.Millisecond), MaxAttempts: 5,
		Budget: &Policy[Budget]{Kind: "grpc", Spec: &GRPCBudgetConfig{MaxTokens: 4, TokenRatio: 0.1}}}
	sink := &eventSink{}
	c := NewClient(0, s, oneShotWorkload, time.Minute, seeds.Stream(1, 0), sink)
	a := c.Begin()
	var acts []string
	for a.Op == Send {
		acts = append(acts, actionString(a))
		a = replyTo(c, a, results.HTTP5xx, 0)
	}
	// Tokens 4 -> 3 (> 2: retry) -> 2 (not > 2: denied, the request fails).
	if got, want := strings.Join(acts, " "), "send1@0s send2@110ms"; got != want {
		t.Errorf("actions %s, want %s", got, want)
	}
	want := "start@0s attempt1@0s=http_5xx attempt2@110ms=http_5xx denied@120ms request@120ms ok=false"
	if sink.String() != want {
		t.Errorf("records\n %s\nwant\n %s", sink, want)
	}
}

func TestBreakerRefusalsNeverReachTheDriver(t *testing.T) {
	for _, tt := range []struct {
		name    string
		openFor time.Duration
		acts    string
		records string
	}{
		{
			name: "open for longer than the retries last", openFor: time.Second,
			acts:    "send1@0s",
			records: "start@0s attempt1@0s=timeout breaker-opened@10ms breaker-refused@110ms breaker-refused@210ms breaker-refused@310ms request@310ms ok=false",
		},
		{
			name: "half-open in time for a trial", openFor: 150 * time.Millisecond,
			acts:    "send1@0s send3@210ms",
			records: "start@0s attempt1@0s=timeout breaker-opened@10ms breaker-refused@110ms attempt3@210ms=ok breaker-closed@220ms request@220ms ok=true",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Strategy{Name: "s", Backoff: constantBackoff(100 * time.Millisecond), MaxAttempts: 4,
				Breaker: &Policy[Breaker]{Kind: "standard", Spec: &StandardBreakerConfig{ConsecutiveFailures: 1, OpenFor: tt.openFor, HalfOpenCalls: 1}}}
			sink := &eventSink{}
			c := NewClient(0, s, oneShotWorkload, time.Minute, seeds.Stream(1, 0), sink)
			a := c.Begin()
			var acts []string
			first := true
			for a.Op == Send {
				acts = append(acts, actionString(a))
				o := results.OK
				if first {
					o, first = results.Timeout, false
				}
				a = replyTo(c, a, o, 0)
			}
			if got := strings.Join(acts, " "); got != tt.acts {
				t.Errorf("actions %s, want %s", got, tt.acts)
			}
			if sink.String() != tt.records {
				t.Errorf("records\n %s\nwant\n %s", sink, tt.records)
			}
		})
	}
}

func TestThrottledCallsAreRecorded(t *testing.T) {
	s := &Strategy{Name: "s", Backoff: constantBackoff(100 * time.Millisecond), MaxAttempts: 2, Throttle: &Policy[Throttle]{Kind: "sre", Spec: &SREThrottleConfig{K: 2, Window: time.Minute}}}
	sink := &eventSink{}
	c := NewClient(0, s, oneShotWorkload, time.Minute, seeds.Stream(1, 0), sink)
	th := c.pol.throttle.(*SREThrottle)
	for range 1_000_000 {
		th.Allow(0, 1) // a million requests, no accepts: p is 1 - 1e-6
	}
	if a := c.Begin(); a.Op != Stop {
		t.Fatalf("Begin = %s, want stop: both attempts throttled", actionString(a))
	}
	if want := "start@0s throttled@0s throttled@100ms request@100ms ok=false"; sink.String() != want {
		t.Errorf("records %s, want %s", sink, want)
	}
}

func TestRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		honor      RetryAfter
		retryAfter time.Duration
		want       string
	}{
		{RetryAfter{}, 3 * time.Second, "send2@110ms"}, // ignored: the backoff
		{RetryAfter{Honor: true}, 3 * time.Second, "send2@3.01s"},
		{RetryAfter{Honor: true, Cap: 2 * time.Second}, 3 * time.Second, "send2@2.01s"},
		{RetryAfter{Honor: true}, 0, "send2@110ms"}, // no header: the backoff
	} {
		s := &Strategy{Name: "s", Backoff: constantBackoff(100 * time.Millisecond), MaxAttempts: 3, RetryAfter: tt.honor}
		c := NewClient(0, s, oneShotWorkload, time.Minute, seeds.Stream(1, 0), &eventSink{})
		if got := actionString(replyTo(c, c.Begin(), results.HTTP429, tt.retryAfter)); got != tt.want {
			t.Errorf("%+v with Retry-After %s: %s, want %s", tt.honor, tt.retryAfter, got, tt.want)
		}
	}
}

func TestCohortSharesItsBudget(t *testing.T) {
	quota := func(scope Scope) *Strategy {
		return &Strategy{Name: "s", Backoff: constantBackoff(100 * time.Millisecond), MaxAttempts: 3,
			Budget: &Policy[Budget]{Kind: "aws", Scope: scope, Spec: &AWSBudgetConfig{Tokens: 5, RetryCost: 5, TimeoutRetryCost: 10, NoRetryIncrement: 1}}}
	}
	for _, tt := range []struct {
		scope Scope
		want  string // what each of two clients does after its first failure
	}{
		{PerClient, "send2@110ms send2@110ms"},
		{PerCohort, "send2@110ms stop"}, // the first client's retry emptied the shared quota
	} {
		k := NewCohort(quota(tt.scope))
		var got []string
		for id := range 2 {
			c := k.NewClient(id, oneShotWorkload, time.Minute, seeds.Stream(1, uint64(id)), &eventSink{})
			got = append(got, actionString(replyTo(c, c.Begin(), results.HTTP5xx, 0)))
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("scope %s: %s, want %s", tt.scope, strings.Join(got, " "), tt.want)
		}
	}
}

func TestNewClientRefusesCohortScope(t *testing.T) {
	s := &Strategy{Name: "sidecar", Breaker: &Policy[Breaker]{Kind: "standard", Scope: PerCohort, Spec: &StandardBreakerConfig{ConsecutiveFailures: 1, OpenFor: time.Second, HalfOpenCalls: 1}}}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "NewCohort") {
			t.Fatalf("recovered %v; want a panic that points to NewCohort", r)
		}
	}()
	NewClient(0, s, oneShotWorkload, time.Minute, seeds.Stream(1, 0), &eventSink{})
}

// A closed-loop client's requests go on after a denied retry, with the
// per-client budget's state carried from one request to the next.
func TestClosedLoopKeepsItsBudget(t *testing.T) {
	s := &Strategy{Name: "s", Backoff: constantBackoff(100 * time.Millisecond), MaxAttempts: 3,
		Budget: &Policy[Budget]{Kind: "aws", Spec: &AWSBudgetConfig{Tokens: 10, RetryCost: 5, TimeoutRetryCost: 10, NoRetryIncrement: 1}}}
	w := &Workload{Kind: Closed, Clients: 1}
	sink := &eventSink{}
	c := NewClient(0, s, w, time.Minute, seeds.Stream(1, 0), sink)
	a := c.Begin()
	var n int
	for a.Op == Send && n < 8 {
		a = replyTo(c, a, results.Timeout, 0)
		n++
	}
	// 10 tokens pay for one timeout retry: attempts 1, 2 of request one
	// (the second denied a retry), then every request has one attempt.
	if got := strings.Count(sink.String(), "denied@"); got != 7 {
		t.Errorf("%d denials in 8 timeouts, want 7:\n%s", got, sink)
	}
	if got := strings.Count(sink.String(), "attempt2@"); got != 1 {
		t.Errorf("%d second attempts, want 1:\n%s", got, sink)
	}
}

// Without policies the step function is what it always was: back off,
// retry, give up after max_attempts, and record no policy event.
func TestNoPolicyClient(t *testing.T) {
	s := &Strategy{Name: "s", Backoff: Backoff{Shape: Exponential, Base: 100 * time.Millisecond, Cap: time.Second, Multiplier: 2}, MaxAttempts: 3}
	sink := &eventSink{}
	c := NewClient(0, s, oneShotWorkload, time.Minute, seeds.Stream(1, 0), sink)
	if c.pol != nil {
		t.Fatal("a strategy without policies got policy state")
	}
	a := c.Begin()
	var acts []string
	for a.Op == Send {
		acts = append(acts, actionString(a))
		a = replyTo(c, a, results.Reset, 0)
	}
	if got, want := strings.Join(acts, " "), "send1@0s send2@210ms send3@620ms"; got != want {
		t.Errorf("actions %s, want %s", got, want)
	}
	if want := "start@0s attempt1@0s=reset attempt2@210ms=reset attempt3@620ms=reset request@630ms ok=false"; sink.String() != want {
		t.Errorf("records %s, want %s", sink, want)
	}
}

// Clients of one cohort on many goroutines share its policies safely (run
// with -race), and the shared budget's accounts add up.
func TestCohortConcurrentUse(t *testing.T) {
	s := &Strategy{Name: "s", Backoff: constantBackoff(time.Millisecond), MaxAttempts: 3,
		Budget:   &Policy[Budget]{Kind: "envoy", Scope: PerCohort, Spec: &EnvoyBudgetConfig{BudgetPercent: 20, MinRetryConcurrency: 3}},
		Breaker:  &Policy[Breaker]{Kind: "standard", Scope: PerCohort, Spec: &StandardBreakerConfig{FailureRate: 0.5, Window: time.Second, MinCalls: 10, OpenFor: 10 * time.Millisecond, HalfOpenCalls: 2}},
		Throttle: &Policy[Throttle]{Kind: "sre", Scope: PerCohort, Spec: &SREThrottleConfig{K: 2, Window: time.Second}}}
	k := NewCohort(s)
	done := make(chan struct{})
	for g := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 500 {
				c := k.NewClient(g*1000+i, oneShotWorkload, time.Hour, seeds.Stream(1, uint64(g*1000+i)), &eventSink{})
				a := c.BeginAt(time.Duration(i) * time.Millisecond)
				for a.Op == Send {
					o := results.OK
					if (i+g)%3 == 0 {
						o = results.HTTP5xx
					}
					a = replyTo(c, a, o, 0)
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	e := k.budget.(lockedBudget).b.(*EnvoyBudget)
	if e.active != 0 || e.retries != 0 {
		t.Fatalf("after every request ended: %d active, %d retries outstanding; want 0, 0", e.active, e.retries)
	}
}

func BenchmarkClientStep(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    *Strategy
	}{
		{"no-policy", &Strategy{Name: "s", Backoff: constantBackoff(time.Millisecond), MaxAttempts: 3}},
		{"client-scope", &Strategy{Name: "s", Backoff: constantBackoff(time.Millisecond), MaxAttempts: 3,
			Budget:   &Policy[Budget]{Kind: "grpc", Spec: &GRPCBudgetConfig{MaxTokens: 10, TokenRatio: 0.1}},
			Breaker:  &Policy[Breaker]{Kind: "standard", Spec: &StandardBreakerConfig{ConsecutiveFailures: 5, OpenFor: time.Second, HalfOpenCalls: 1}},
			Throttle: &Policy[Throttle]{Kind: "sre", Spec: &SREThrottleConfig{K: 2, Window: time.Minute}}}},
		{"cohort-scope", &Strategy{Name: "s", Backoff: constantBackoff(time.Millisecond), MaxAttempts: 3,
			Budget:   &Policy[Budget]{Kind: "grpc", Scope: PerCohort, Spec: &GRPCBudgetConfig{MaxTokens: 10, TokenRatio: 0.1}},
			Breaker:  &Policy[Breaker]{Kind: "standard", Scope: PerCohort, Spec: &StandardBreakerConfig{ConsecutiveFailures: 5, OpenFor: time.Second, HalfOpenCalls: 1}},
			Throttle: &Policy[Throttle]{Kind: "sre", Scope: PerCohort, Spec: &SREThrottleConfig{K: 2, Window: time.Minute}}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			k := NewCohort(bc.s)
			c := k.NewClient(0, &Workload{Kind: Closed, Clients: 1}, time.Duration(1<<62), seeds.Stream(1, 0), nopSink{})
			a := c.Begin()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				o := results.OK
				if i%4 == 0 {
					o = results.HTTP5xx
				}
				a = c.Result(Reply{Sent: a.At, Latency: time.Millisecond, Outcome: o})
			}
		})
	}
}

type nopSink struct{}

func (nopSink) Started(time.Duration)                     {}
func (nopSink) Attempt(results.Attempt)                   {}
func (nopSink) Request(results.Request)                   {}
func (nopSink) Policy(time.Duration, results.PolicyEvent) {}

// A closed-loop client whose breaker stays open goes through request after
// request without a call reaching the driver, iteratively.
func TestClosedLoopUnderAnOpenBreaker(t *testing.T) {
	s := &Strategy{Name: "s", Backoff: constantBackoff(time.Millisecond), MaxAttempts: 2,
		Breaker: &Policy[Breaker]{Kind: "standard", Spec: &StandardBreakerConfig{ConsecutiveFailures: 1, OpenFor: time.Hour, HalfOpenCalls: 1}}}
	w := &Workload{Kind: Closed, Clients: 1} // think time 0
	sink := &eventSink{}
	c := NewClient(0, s, w, 10*time.Second, seeds.Stream(1, 0), sink)
	a := replyTo(c, c.Begin(), results.HTTP5xx, 0) // opens the breaker at 10ms
	if a.Op != Stop {
		t.Fatalf("%s, want stop: every later call is refused until the run ends", actionString(a))
	}
	// The first request's retry is refused at 11 ms and it fails. Then one
	// request starts each millisecond from 11 ms, is refused at once and
	// again 1 ms later, and fails; the one starting at 9.999 s is cut by
	// the end of the run before it fails.
	if got := strings.Count(sink.String(), "ok=false"); got != 1+9988 {
		t.Errorf("%d failed requests, want %d", got, 1+9988)
	}
	if got := strings.Count(sink.String(), "breaker-refused@"); got != 1+2*9988+1 {
		t.Errorf("%d refusals, want %d", got, 1+2*9988+1)
	}
}
