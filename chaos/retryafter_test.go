package chaos

import (
	"strings"
	"testing"
	"time"
)

func TestRetryAfterParams(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want Fault
		err  string
	}{
		{&OutageSpec{RetryAfter: "2s"}, Outage{Mode: Unavailable, RetryAfter: 2 * time.Second}, ""},
		{&OutageSpec{Mode: "503"}, Outage{Mode: Unavailable}, ""},
		{&OutageSpec{Mode: "reset", RetryAfter: "1s"}, nil, "retry_after: an outage in mode reset"},
		{&OutageSpec{RetryAfter: "0s"}, nil, "retry_after"},
		{&OutageSpec{RetryAfter: "soon"}, nil, "retry_after"},
		{&ErrorRateSpec{Rate: 0.5, Status: 429, RetryAfter: "1500ms"}, ErrorRate{Rate: 0.5, Status: 429, RetryAfter: 1500 * time.Millisecond}, ""},
		{&ErrorRateSpec{Rate: 0.5, RetryAfter: "-1s"}, nil, "retry_after"},
	} {
		f, errs := c.spec.Compile()
		if c.err == "" {
			if len(errs) != 0 || f != c.want {
				t.Errorf("%#v.Compile() = %#v, %v; want %#v", c.spec, f, errs, c.want)
			}
			continue
		}
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.err) {
			t.Errorf("%#v.Compile() errors %v; want one containing %q", c.spec, errs, c.err)
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
