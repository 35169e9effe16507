package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/target/model"
)

func TestCompileNetworkAndKind(t *testing.T) {
	p, err := openFirst("aws-contention", Overrides{Clients: 7})
	if err != nil {
		t.Fatal(err)
	}
	if p.Target.Kind != model.OCC || p.Target.Network != (dist.Dist{Kind: dist.Normal, A: 10 * time.Millisecond, B: 2 * time.Millisecond}) || p.Workload.Clients != 7 {
		t.Fatalf("%+v %+v", p.Target, p.Workload)
	}
	if len(p.Strategies) != 5 || p.Strategies[1].Backoff.Base != 5*time.Millisecond || p.Strategies[1].Backoff.Cap != 2*time.Second || p.Strategies[1].MaxAttempts != 0 || p.Strategies[1].Timeout != 0 {
		t.Fatalf("%+v", p.Strategies[1])
	}
	if !strings.Contains(string(p.Resolved), "kind: occ") || !strings.Contains(string(p.Resolved), "normal(10ms, 2ms)") {
		t.Fatalf("resolved:\n%s", p.Resolved)
	}

	sc, err := Parse("bad.yaml", []byte(`name: bad
network: {delay: "normal(10ms)"}
target: {kind: occq}
strategies: [{name: a, backoff: none}]
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = sc.Compile(Overrides{})
	msg := err.Error()
	for _, want := range []string{"bad.yaml:2: network.delay:", "bad.yaml:3: target.kind: unknown target kind \"occq\""} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}
