package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
)

// A jitter share makes an exponential backoff; full and equal may repeat
// their own share; a preset's jittered exponential takes the strategy's.
// reset reads its three names.
func TestJitterShareAndReset(t *testing.T) {
	p, err := load(t, `name: j
strategies:
  - {name: share, jitter: 0.2}
  - {name: plain, backoff: exponential}
  - {name: full, backoff: full, jitter: 1}
  - {name: equal, backoff: equal, jitter: 0.5}
  - {name: aws, preset: botocore-standard, jitter: 0.05}
  - {name: never, backoff: decorrelated, reset: never}
  - {name: on-success, backoff: full, reset: on-success}
`, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		shape  clients.Shape
		jitter float64
		base   time.Duration
		reset  clients.Reset
	}{
		"share":      {clients.Exponential, 0.2, DefaultBase, clients.PerRequest},
		"plain":      {clients.Exponential, 0, DefaultBase, clients.PerRequest},
		"full":       {clients.Full, 1, DefaultBase, clients.PerRequest},
		"equal":      {clients.Equal, 0.5, DefaultBase, clients.PerRequest},
		"aws":        {clients.Exponential, 0.05, 500 * time.Millisecond, clients.PerRequest},
		"never":      {clients.Decorrelated, 0, DefaultBase, clients.Never},
		"on-success": {clients.Full, 0, DefaultBase, clients.OnSuccess},
	}
	for _, s := range p.Strategies {
		w := want[s.Name]
		if s.Backoff.Shape != w.shape || s.Backoff.Jitter != w.jitter || s.Backoff.Base != w.base || s.Reset != w.reset {
			t.Errorf("%s: %v jitter %v base %v reset %v, want %+v", s.Name, s.Backoff.Shape, s.Backoff.Jitter, s.Backoff.Base, s.Reset, w)
		}
	}
	for _, line := range []string{"name: share\n      backoff: exponential\n", "jitter: 0.2", "name: aws\n      backoff: exponential\n", "jitter: 0.05", "reset: never"} {
		if !strings.Contains(string(p.Resolved), line) {
			t.Errorf("the resolved scenario lacks %q:\n%s", line, p.Resolved)
		}
	}
	if strings.Contains(string(p.Resolved), "reset: per-request") {
		t.Errorf("the resolved scenario writes the default reset, which existing scenarios never had:\n%s", p.Resolved)
	}
}
