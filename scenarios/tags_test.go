package scenarios

import (
	"testing"
)

// The core schema's tags say only what a plain value already is: they are
// read as if absent.
func TestStandardTagsAccepted(t *testing.T) {
	src := `name: !!str t
duration: !!str 10s
workload: !!map {clients: !!int 10}
strategies: !!seq
  - {name: a, backoff: full, jitter: !!float 1, max_attempts: !!int 3}
thresholds: !!null
`
	p, err := checkData("tags.yaml", []byte(src), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "t" || p.Workload.Clients != 10 {
		t.Errorf("read name %q, %d clients; want t, 10", p.Name, p.Workload.Clients)
	}
}
