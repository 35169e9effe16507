package scenarios

import (
	"strings"
	"testing"

	"github.com/herdbench/herdbench/chaos"
)

// Fault kinds that exist only in this test binary: a kind the scenario
// checks have never heard of gets the same checks as the built-in kinds
// with the same effect, because the checks ask the compiled plan what the
// target does, not which kinds of fault it holds.
type (
	testCrash     struct{} // the port closes, as an outage in mode refuse
	testCrashSpec struct{}
	testHang      struct{} // requests hang, as a blackhole
	testHangSpec  struct{}
)

func (testCrash) Apply(e *chaos.Effect)                            { e.Outage = max(e.Outage, chaos.Refuse) }
func (testHang) Apply(e *chaos.Effect)                             { e.Blackhole = true }
func (*testCrashSpec) Compile() (chaos.Fault, []*chaos.ParamError) { return testCrash{}, nil }
func (*testHangSpec) Compile() (chaos.Fault, []*chaos.ParamError)  { return testHang{}, nil }

func init() {
	chaos.Register("test-crash", func() chaos.Spec { return &testCrashSpec{} })
	chaos.Register("test-hang", func() chaos.Spec { return &testHangSpec{} })
}

func TestChecksDecideOnEffects(t *testing.T) {
	for _, c := range []struct{ name, src, path, msg string }{
		{"a port that closes answers at once, network or not", `name: x
network: {delay: 1ms}
chaos:
  - {kind: test-crash, at: 1s, for: 1s}
strategies:
  - {name: a, backoff: exponential, base: 0s, max_attempts: unlimited}
`, "strategies[0].max_attempts", "retried at the same instant, forever"},
		{"requests that hang need a timeout", `name: x
chaos:
  - {kind: test-hang, at: 1s, for: 1s}
strategies:
  - {name: a, backoff: full, timeout: 0s}
`, "strategies[0].timeout", "no per-attempt timeout"},
	} {
		_, err := Check("x.yaml", []byte("duration: 5s\n"+c.src), Overrides{})
		e, ok := err.(*Error)
		if !ok || len(e.Problems) != 1 || e.Problems[0].Path != c.path || !strings.Contains(e.Problems[0].Msg, c.msg) {
			t.Errorf("%s: %v; want one problem at %s saying %q", c.name, err, c.path, c.msg)
		}
	}
	// The same scenarios with a network delay and a timeout are fine.
	if _, err := Check("x.yaml", []byte(`name: x
duration: 5s
network: {delay: 1ms}
chaos:
  - {kind: test-hang, at: 1s, for: 1s}
strategies:
  - {name: a, backoff: exponential, base: 0s, max_attempts: unlimited, timeout: 1s}
`), Overrides{}); err != nil {
		t.Errorf("a hang with a timeout over a network: %v", err)
	}
}
