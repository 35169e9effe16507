package scenarios

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
)

// Brooker's collapse model compiles: a target whose service time grows
// with its concurrency, an open workload with a surge.
func TestContentionAndSurges(t *testing.T) {
	src := `name: collapse
target: {concurrency: 100000, queue: 0, service_time: 1s, contention: 10ms}
workload:
  kind: open
  rate: 40
  surges:
    - {at: 20s, for: 5s, rate: 80}
strategies:
  - {name: plain, backoff: none, timeout: 3s}
`
	p, err := compile(t, src, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Contention != 10*time.Millisecond {
		t.Errorf("contention %s", p.Target.Contention)
	}
	if want := []clients.Surge{{At: 20 * time.Second, For: 5 * time.Second, Rate: 80}}; len(p.Workload.Surges) != 1 || p.Workload.Surges[0] != want[0] {
		t.Errorf("surges %+v, want %+v", p.Workload.Surges, want)
	}
	bad := strings.NewReplacer("contention: 10ms", "contention: 2s", "- {at: 20s, for: 5s, rate: 80}",
		"- {at: 20s, for: 5s, rate: 80}\n    - {at: 24s, for: 0s, rate: 0}").Replace(src)
	_, err = compile(t, bad, Overrides{})
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) != 4 {
		t.Fatalf("problems: %v; want 4", err)
	}
	var paths []string
	for _, p := range e.Problems {
		paths = append(paths, p.Path)
	}
	if got := strings.Join(paths, " "); got != "target.contention workload.surges[1].for workload.surges[1].rate workload.surges[1].at" {
		t.Errorf("problems at %s", got)
	}
	closed := strings.Replace(src, "kind: open\n  rate: 40", "kind: closed", 1)
	if _, err := compile(t, closed, Overrides{}); err == nil || !strings.Contains(err.Error(), "surges change an open workload's arrival rate") {
		t.Errorf("surges on a closed workload: %v", err)
	}
}
