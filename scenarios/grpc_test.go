package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
)

const grpcScenario = `name: g
target: {protocol: grpc, method: /echo.Echo/Call}
workload: {kind: closed, clients: 10}
strategies:
  - name: grpc-go
    client: grpc-go
    timeout: 1s
    channel: cohort
    service_config: |
      {"methodConfig": [{"name": [{"service": "echo.Echo"}], "retryPolicy": {"maxAttempts": 7,
        "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE"]}}],
       "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}
  - name: own
    backoff: full
`

// TestGRPCGoCohortCompiles: a client: grpc-go strategy compiles to
// grpc-go's model, its throttler shared as its channel says, and its
// resolved scenario compiles again to the same.
func TestGRPCGoCohortCompiles(t *testing.T) {
	p, e := compilePolicyYAML(t, grpcScenario)
	if e != nil {
		t.Fatal(e)
	}
	g := p.Strategies[0]
	if g.GRPC == nil || g.GRPC.Retry.MaxAttempts != clients.GRPCMaxAttempts || g.MaxAttempts != clients.GRPCMaxAttempts || g.Timeout != time.Second {
		t.Fatalf("grpc-go strategy %+v", g)
	}
	if g.Budget == nil || g.Budget.Scope != clients.PerCohort || g.Budget.Kind != "grpc-go" {
		t.Errorf("its throttler: %+v, want grpc-go's, shared by the cohort (channel: cohort)", g.Budget)
	}
	if p.Strategies[1].GRPC != nil {
		t.Errorf("herdbench's loop compiled as grpc-go's")
	}
	again, e := compilePolicyYAML(t, string(p.Resolved))
	if e != nil {
		t.Fatalf("the resolved scenario does not compile: %v\n%s", e, p.Resolved)
	}
	if a := again.Strategies[0]; a.GRPC.JSON != g.GRPC.JSON || a.Budget.Scope != g.Budget.Scope || a.Timeout != g.Timeout {
		t.Errorf("resolved: %+v, want %+v", a, g)
	}
}

func TestGRPCGoCohortRefusals(t *testing.T) {
	for _, tc := range []struct{ edit, want string }{
		{"channel: cohort\n", ""},
		{"channel: client\n", ""},
		{"budget: {kind: grpc}\n", "strategies[0].budget: budget configures herdbench's own retry loop"},
		{"channel: everyone\n", `strategies[0].channel: unknown scope "everyone"`},
		{"channel: cohort\n", "target.protocol: ftp"},
	} {
		src := strings.Replace(grpcScenario, "channel: cohort\n", tc.edit, 1)
		if tc.want == "target.protocol: ftp" {
			src = strings.Replace(src, "protocol: grpc", "protocol: ftp", 1)
			tc.want = `target.protocol: unknown protocol "ftp"`
		}
		_, e := compilePolicyYAML(t, src)
		switch {
		case tc.want == "" && e != nil:
			t.Errorf("%q: %v", tc.edit, e)
		case tc.want != "" && (e == nil || !strings.Contains(e.Error(), tc.want)):
			t.Errorf("%q: %v; want %q", tc.edit, e, tc.want)
		}
	}
	_, e := compilePolicyYAML(t, "name: t\ntarget: {protocol: grpc}\nstrategies:\n  - {name: a, service_config: '{}'}\n")
	if e == nil || !strings.Contains(e.Error(), "strategies[0].service_config: is grpc-go's; add client: grpc-go") {
		t.Errorf("service_config without client: %v", e)
	}
	_, e = compilePolicyYAML(t, "name: t\ntarget: {url: \"http://127.0.0.1:9/\"}\nstrategies:\n  - {name: a, client: grpc-go, service_config: '{}'}\n")
	if e != nil {
		t.Errorf("grpc-go against an external target: %v", e)
	}
}

// TestGRPCRequestBodiesAreRefusedNotDropped: a requests: section with
// bodies on a gRPC target once validated, and the service received empty
// messages (0 non-empty of 2,868): every call is the target's method with
// an empty message, so the section is refused, for the scenario's requests
// and a strategy's alike, an http target keeping them.
func TestGRPCRequestBodiesAreRefusedNotDropped(t *testing.T) {
	const mix = `[{method: POST, path: /orders, body: '{"item": 1}'}]`
	for _, c := range []struct {
		name, yaml string
		refused    bool
	}{
		{"scenario's", "name: x\ntarget: {protocol: grpc}\nrequests: " + mix + "\nstrategies: [{name: a, backoff: full}]\n", true},
		{"strategy's", "name: x\ntarget: {protocol: grpc}\nstrategies: [{name: a, backoff: full, requests: " + mix + "}]\n", true},
		{"http target", "name: x\nrequests: " + mix + "\nstrategies: [{name: a, backoff: full}]\n", false},
	} {
		_, e := compilePolicyYAML(t, c.yaml)
		msg := ""
		if e != nil {
			msg = e.Error()
		}
		if got := strings.Contains(msg, "a grpc target is called with its method (target.method) and an empty message"); got != c.refused {
			t.Errorf("%s requests: refused %v, want %v (%q)", c.name, got, c.refused, msg)
		}
	}
}
