package chaos

import (
	"strings"
	"testing"
	"time"
)

// TestRetryAfterRule: every kind that sends Retry-After takes the same
// values, whole seconds from 1s to a day, and refuses the others with the
// same message.
func TestRetryAfterRule(t *testing.T) {
	kinds := map[string]func(v string) Spec{
		"outage":     func(v string) Spec { return &OutageSpec{RetryAfter: v} },
		"error-rate": func(v string) Spec { return &ErrorRateSpec{Rate: 0.5, RetryAfter: v} },
		"pushback":   func(v string) Spec { return &PushbackSpec{RetryAfter: v} },
	}
	retryAfterOf := func(f Fault) time.Duration { e := EffectOf(f); return e.RetryAfter }
	for kind, spec := range kinds {
		for _, c := range []struct {
			v    string
			want time.Duration
			err  string
		}{
			{"1s", time.Second, ""},
			{"2s", 2 * time.Second, ""},
			{"1m30s", 90 * time.Second, ""},
			{"24h", 24 * time.Hour, ""},
			{"1500ms", 0, "1500ms: the Retry-After header carries whole seconds, 1 or more"},
			{"500ms", 0, "500ms: the Retry-After header carries whole seconds, 1 or more"},
			{"0s", 0, "0s: the Retry-After header carries whole seconds, 1 or more"},
			{"-1s", 0, "-1s: the Retry-After header carries whole seconds, 1 or more"},
			{"soon", 0, `"soon" is not a duration; write whole seconds`},
			{"25h", 0, "25h is more than a day (24h)"},
		} {
			f, errs := spec(c.v).Compile()
			if c.err == "" {
				if len(errs) != 0 || retryAfterOf(f) != c.want {
					t.Errorf("%s, retry_after %s: %v, errors %v; want %s", kind, c.v, f, errs, c.want)
				}
				continue
			}
			if len(errs) != 1 || errs[0].Field != "retry_after" || !strings.Contains(errs[0].Msg, c.err) {
				t.Errorf("%s, retry_after %s: errors %v; want one on retry_after saying %q", kind, c.v, errs, c.err)
			}
		}
	}
	// Left out: none for an outage or an error rate, 1s for a pushback.
	for kind, want := range map[string]time.Duration{"outage": 0, "error-rate": 0, "pushback": time.Second} {
		if f, errs := kinds[kind]("").Compile(); errs != nil || retryAfterOf(f) != want {
			t.Errorf("%s without retry_after: %v %v; want %s", kind, f, errs, want)
		}
	}
	if _, errs := (&OutageSpec{Mode: "reset", RetryAfter: "1s"}).Compile(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "retry_after: an outage in mode reset") {
		t.Errorf("a reset outage with retry_after: %v", errs)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Second: "1", 90 * time.Second: "90", 24 * time.Hour: "86400"} {
		if got := RetryAfterHeader(d); got != want {
			t.Errorf("RetryAfterHeader(%s) = %q, want %q", d, got, want)
		}
	}
}

// TestRetryAfterCompose: overlapping faults send the longest Retry-After.
func TestRetryAfterCompose(t *testing.T) {
	p, err := NewPlan([]Timed{
		{Name: "a", At: 0, For: 2 * time.Second, Fault: Outage{Mode: Unavailable, RetryAfter: time.Second}},
		{Name: "b", At: time.Second, For: 2 * time.Second, Fault: ErrorRate{Rate: 1, Status: 429, RetryAfter: 3 * time.Second}},
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		at   time.Duration
		want time.Duration
	}{{0, time.Second}, {time.Second, 3 * time.Second}, {2500 * time.Millisecond, 3 * time.Second}, {3 * time.Second, 0}} {
		if got := p.ActiveAt(c.at).RetryAfter; got != c.want {
			t.Errorf("RetryAfter at %s = %s, want %s", c.at, got, c.want)
		}
	}
}
