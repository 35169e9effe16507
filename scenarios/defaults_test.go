package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLimitsDocNamesEveryDefault: docs/limits.md's table of defaults says
// what a field left out means, with the values Compile fills in; a new
// user once found a scenario without a workload accepted and run with 100
// clients no page mentioned.
func TestLimitsDocNamesEveryDefault(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "limits.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Defaults\n")
	if !ok {
		t.Fatal("docs/limits.md has no section \"## Defaults\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for field, value := range map[string]any{
		"`duration`":                  DefaultDuration,
		"`target.concurrency`":        DefaultConcurrency,
		"`target.queue`":              DefaultQueue,
		"`target.queue_timeout`":      DefaultQueueTimeout,
		"`target.service_time`":       DefaultServiceTime,
		"`workload.clients`":          DefaultClients,
		"`workload.think`":            DefaultThink,
		"a strategy's `base`":         DefaultBase,
		"a strategy's `cap`":          DefaultCap,
		"a strategy's `max_attempts`": DefaultMaxAttempts,
		"a strategy's `timeout`":      DefaultTimeout,
	} {
		if row := fmt.Sprintf("| %s | `%v` |", field, value); !strings.Contains(section, row) {
			t.Errorf("docs/limits.md's defaults lack the row %q", row)
		}
	}
}

// TestDefaultsAreWhatCompileFillsIn: the defaults the table documents are
// the ones a scenario that leaves everything out runs with.
func TestDefaultsAreWhatCompileFillsIn(t *testing.T) {
	p, err := compile(t, "name: bare\nstrategies:\n  - {name: a, backoff: exponential}\n", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Strategies[0]
	if p.Duration != DefaultDuration || p.Target.Concurrency != DefaultConcurrency || p.Target.Queue != DefaultQueue ||
		p.Target.QueueTimeout != DefaultQueueTimeout || p.Workload.Clients != DefaultClients ||
		s.Backoff.Base != DefaultBase || s.Backoff.Cap != DefaultCap || s.Backoff.Multiplier != 2 ||
		s.MaxAttempts != DefaultMaxAttempts || s.Timeout != DefaultTimeout {
		t.Errorf("a bare scenario compiled to duration %v, target %+v, %d clients, strategy %+v", p.Duration, p.Target, p.Workload.Clients, s)
	}
}
