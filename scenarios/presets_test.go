package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
)

// A preset named for one library while it modelled another (aws-standard,
// botocore's design, picked for a Go service) is refused by its old name,
// naming what replaced it, in a scenario and for a proxy's --retry.
func TestRenamedPresetsAreRefusedNamingTheirSuccessors(t *testing.T) {
	for old, want := range map[string][]string{
		"aws-standard":    {"botocore-standard is botocore's standard retry mode", "aws-sdk-go-v2-standard is the AWS SDK for Go v2's"},
		"aws-standard-v2": {"renamed, for the library it models: aws-sdk-go-v2-standard"},
		"finagle":         {"finagle-budget"},
	} {
		_, e := compilePolicyYAML(t, policyHeader+"strategies:\n  - {name: a, preset: "+old+"}\n")
		if e == nil {
			t.Errorf("preset %s: compiled", old)
			continue
		}
		for _, w := range append(want, "strategies[0].preset", "was renamed") {
			if !strings.Contains(e.Error(), w) {
				t.Errorf("preset %s: the problem lacks %q:\n%s", old, w, e)
			}
		}
		s, err := Parse("s.yaml", []byte(policyHeader))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RetryStrategy(old, "", Overrides{}); err == nil || !strings.Contains(err.Error(), want[0]) {
			t.Errorf("--retry %s: %v", old, err)
		}
	}
}

// The Go libraries' presets compile to the designs their sources name.
func TestGoLibraryPresetsCompile(t *testing.T) {
	p, e := compilePolicyYAML(t, policyHeader+`strategies:
  - {name: rh, preset: go-retryablehttp}
  - {name: c4, preset: cenkalti-backoff-v4}
  - {name: c5, preset: cenkalti-backoff-v5}
  - {name: sv, preset: sethvargo-go-retry-fibonacci}
`)
	if e != nil {
		t.Fatal(e)
	}
	rh, c4, c5, sv := p.Strategies[0], p.Strategies[1], p.Strategies[2], p.Strategies[3]
	if rh.Backoff.Shape != clients.Exponential || rh.Backoff.Jitter != 0 || rh.MaxAttempts != 5 || !rh.RetryAfter.Honor || rh.RetryAfter.Cap != 0 {
		t.Errorf("go-retryablehttp compiled to %+v", rh)
	}
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second} {
		if got := rh.Backoff.Next(n+1, 0, 0.5); got != want {
			t.Errorf("go-retryablehttp: wait before retry %d %s, want %s", n+1, got, want)
		}
	}
	for _, c := range []clients.Strategy{c4, c5} {
		if c.MaxAttempts != 0 || c.Backoff.Multiplier != 1.5 {
			t.Errorf("%s compiled to %+v", c.Name, c)
		}
		// U(0.5, 1.5) × 500 ms × 1.5^(n-1) before retry n.
		for n, iv := range []float64{500, 750, 1125} {
			lo, hi := c.Backoff.Next(n+1, 0, 0), c.Backoff.Next(n+1, 0, 0.999999999)
			if d := time.Duration(iv*float64(time.Millisecond)) / 2; lo != d || hi < 3*d-time.Microsecond || hi > 3*d {
				t.Errorf("%s: retry %d waits from %s to %s, want %s to %s", c.Name, n+1, lo, hi, d, 3*d)
			}
		}
	}
	if sv.Backoff.Shape != clients.Fibonacci || sv.MaxAttempts != 0 || sv.Backoff.Next(4, 0, 0) != 5*time.Second {
		t.Errorf("sethvargo-go-retry-fibonacci compiled to %+v", sv)
	}
	if res := string(p.Resolved); !strings.Contains(res, "max_attempts: unlimited") || !strings.Contains(res, "retry_after: honor") {
		t.Errorf("the resolved scenario does not say what ran:\n%s", res)
	}
}
