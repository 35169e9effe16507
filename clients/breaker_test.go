package clients

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// breakerStep is one event in a breaker's life, in virtual time: a call asking to
// go out ("call"), or the answer to one ("ok", "fail").
type breakerStep struct {
	at   time.Duration
	do   string
	want string // "allow"/"refuse" for calls; the transition for answers
}

func msec(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func runBreaker(t *testing.T, cfg StandardBreakerConfig, steps []breakerStep) {
	t.Helper()
	b := NewStandardBreaker(cfg)
	for i, s := range steps {
		var got string
		switch s.do {
		case "call":
			got = map[bool]string{true: "allow", false: "refuse"}[b.Allow(s.at)]
		case "ok", "fail":
			got = map[Transition]string{NoTransition: "-", Tripped: "tripped", Recovered: "recovered", Retripped: "retripped"}[b.Record(s.at, s.do == "fail")]
		default:
			t.Fatalf("bad breakerStep %q", s.do)
		}
		if got != s.want {
			t.Fatalf("breakerStep %d (%s at %s): %s, want %s; state now %s", i, s.do, s.at, got, s.want, b.State(s.at))
		}
	}
}

func TestBreakerConsecutiveFailures(t *testing.T) {
	cfg := StandardBreakerConfig{ConsecutiveFailures: 3, OpenFor: time.Second, HalfOpenCalls: 2}
	runBreaker(t, cfg, []breakerStep{
		{msec(0), "call", "allow"}, {msec(10), "fail", "-"},
		{msec(20), "call", "allow"}, {msec(30), "fail", "-"},
		{msec(40), "call", "allow"}, {msec(50), "ok", "-"}, // a success resets the run
		{msec(60), "call", "allow"}, {msec(70), "fail", "-"},
		{msec(80), "call", "allow"}, {msec(90), "fail", "-"},
		{msec(100), "call", "allow"}, {msec(110), "fail", "tripped"}, // third in a row
		{msec(120), "fail", "-"}, // an answer to a call sent before it opened: ignored
		{msec(500), "call", "refuse"},
		{msec(1109), "call", "refuse"}, // open for 1 s from 110 ms
		{msec(1110), "call", "allow"},  // half-open: trial 1 of 2
		{msec(1111), "call", "allow"},  // trial 2
		{msec(1112), "call", "refuse"}, // no more trials until they are answered
		{msec(1120), "ok", "-"},
		{msec(1121), "fail", "retripped"}, // a trial failed: open again, for another second
		{msec(2120), "call", "refuse"},
		{msec(2121), "call", "allow"}, {msec(2122), "call", "allow"},
		{msec(2130), "ok", "-"}, {msec(2131), "ok", "recovered"}, // both trials passed
		{msec(2140), "call", "allow"}, {msec(2150), "fail", "-"}, // counting starts afresh
		{msec(2160), "call", "allow"},
	})
}

func TestBreakerFailureRate(t *testing.T) {
	cfg := StandardBreakerConfig{FailureRate: 0.5, Window: time.Second, MinCalls: 4, OpenFor: 500 * time.Millisecond, HalfOpenCalls: 1}
	runBreaker(t, cfg, []breakerStep{
		{msec(0), "fail", "-"}, {msec(10), "fail", "-"}, {msec(20), "fail", "-"}, // 3 calls: below min_calls
		{msec(30), "ok", "tripped"}, // 4 calls, 3 failed: 75% >= 50%
		{msec(100), "call", "refuse"},
		{msec(530), "call", "allow"}, {msec(540), "ok", "recovered"},
		// The window restarted when it closed: 2 of 4 is exactly 50%.
		{msec(600), "ok", "-"}, {msec(610), "fail", "-"}, {msec(620), "ok", "-"}, {msec(630), "fail", "tripped"},
	})
	// Failures that age out of the window no longer count.
	runBreaker(t, cfg, []breakerStep{
		{msec(0), "fail", "-"}, {msec(10), "fail", "-"}, {msec(20), "fail", "-"},
		{msec(1500), "ok", "-"}, {msec(1510), "ok", "-"}, {msec(1520), "ok", "-"}, {msec(1530), "fail", "-"}, // 1 of 4 within the last second
	})
}

func TestBreakerStates(t *testing.T) {
	b := NewStandardBreaker(StandardBreakerConfig{ConsecutiveFailures: 1, OpenFor: time.Second, HalfOpenCalls: 1})
	var seq []string
	at := func(d time.Duration) { seq = append(seq, fmt.Sprintf("%s:%s", d, b.State(d))) }
	at(0)
	b.Record(0, true)
	at(0)
	at(999 * time.Millisecond)
	at(time.Second)
	b.Allow(time.Second)
	b.Record(time.Second, false)
	at(time.Second)
	if got, want := strings.Join(seq, " "), "0s:closed 0s:open 999ms:open 1s:half-open 1s:closed"; got != want {
		t.Fatalf("states %s, want %s", got, want)
	}
}

func TestDefaultBreakerIsResilience4j(t *testing.T) {
	d := defaultSpec(t, Breakers, "standard").(*StandardBreakerConfig)
	if d.FailureRate != 0.5 || d.MinCalls != 100 || d.OpenFor != time.Minute || d.HalfOpenCalls != 10 || d.ConsecutiveFailures != 0 {
		t.Fatalf("the standard breaker's defaults = %+v; want resilience4j's 50%%, 100 calls, 60 s, 10 trials", d)
	}
}
