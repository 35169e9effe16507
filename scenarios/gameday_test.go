package scenarios

import (
	"errors"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/clients"
)

const gatedScenario = `name: gated
duration: 10s
target:
  url: http://127.0.0.1:8000/work
chaos:
  - kind: outage
    at: 2s
    for: 1s
strategies:
  - name: a
    backoff: full
    thresholds:
      - herd_factor < 3
  - name: b
    backoff: exponential
    thresholds:
      - recovery_s <= 5s
thresholds:
  - amplification <= 1.5
  - latency.request.p99 < 2s
`

func compile(t *testing.T, src string, o Overrides) (*Plan, error) {
	t.Helper()
	s, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return s.Compile(o)
}

func TestThresholdsCompile(t *testing.T) {
	p, err := compile(t, gatedScenario, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range p.Thresholds {
		got = append(got, th.Cohort+"|"+th.Metric+th.Op.String())
	}
	want := "|amplification<=, |latency_ms.request.p99<, a|herd_factor<, b|recovery_s<="
	if strings.Join(got, ", ") != want {
		t.Errorf("thresholds %v, want %s", got, want)
	}
	// --strategies drops the gates of cohorts not run.
	p, err = compile(t, gatedScenario, Overrides{Strategies: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Thresholds) != 3 || p.Thresholds[2].Cohort != "b" {
		t.Errorf("with --strategies b: %+v", p.Thresholds)
	}
	if !strings.Contains(string(p.Resolved), "amplification <= 1.5") {
		t.Errorf("the resolved scenario lost its thresholds:\n%s", p.Resolved)
	}
}

// TestThresholdProblems: each bad threshold is reported with its line and
// path, all at once.
func TestThresholdProblems(t *testing.T) {
	src := `name: bad
strategies:
  - name: a
    backoff: full
    thresholds:
      - herd_factr < 3
thresholds:
  - amplification 1.5
  - latency.request.p99 < 2000
`
	_, err := compile(t, src, Overrides{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Compile: %v, want an *Error", err)
	}
	want := []struct {
		line       int
		path, text string
	}{
		{6, "strategies[0].thresholds[0]", `unknown metric "herd_factr" (did you mean "herd_factor"?)`},
		{8, "thresholds[0]", "no comparison"},
		{9, "thresholds[1]", "no unit"},
	}
	if len(e.Problems) != len(want) {
		t.Fatalf("problems:\n%v\nwant %d", err, len(want))
	}
	for i, w := range want {
		p := e.Problems[i]
		if p.Line != w.line || p.Path != w.path || !strings.Contains(p.Msg, w.text) {
			t.Errorf("problem %d = %s; want line %d, %s, containing %q", i, p, w.line, w.path, w.text)
		}
	}
}

func TestTargetURL(t *testing.T) {
	p, err := compile(t, gatedScenario, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.TargetURL != "http://127.0.0.1:8000/work" || p.Target.Concurrency != DefaultConcurrency {
		t.Errorf("TargetURL %q, concurrency %d", p.TargetURL, p.Target.Concurrency)
	}
	p, err = compile(t, gatedScenario, Overrides{Target: "http://localhost:9/", AllowRemote: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.TargetURL != "http://localhost:9/" || !p.AllowRemote || !strings.Contains(string(p.Resolved), "url: http://localhost:9/") {
		t.Errorf("--target override: %q, allow %v, resolved:\n%s", p.TargetURL, p.AllowRemote, p.Resolved)
	}
	_, err = compile(t, strings.Replace(gatedScenario, "http://127.0.0.1:8000/work", "127.0.0.1:8000", 1), Overrides{})
	if err == nil || !strings.Contains(err.Error(), "test.yaml:4: target.url:") {
		t.Errorf("a URL with no scheme: %v", err)
	}
	_, err = compile(t, gatedScenario, Overrides{Target: "ftp://x/"})
	if err == nil || !strings.Contains(err.Error(), "--target") {
		t.Errorf("a bad --target: %v", err)
	}
}

// A wrong URL gets a message that says what is wrong and suggests the URL
// it probably means, never a doubled scheme.
func TestTargetURLMessages(t *testing.T) {
	for _, c := range []struct{ raw, want string }{
		{`http://127.0.0.1\x`, "has backslashes; a URL is written with forward slashes, e.g. http://127.0.0.1/x"},
		{`http:\\127.0.0.1:8000\`, "e.g. http://127.0.0.1:8000/"},
		{`\\127.0.0.1:8000\work`, "e.g. http://127.0.0.1:8000/work"},
		{"127.0.0.1:8000", "write the scheme too, e.g. http://127.0.0.1:8000/"},
		{"localhost:8000", "write the scheme too, e.g. http://localhost:8000/"},
		{"http:127.0.0.1", "e.g. http://127.0.0.1/"},
		{"http:/127.0.0.1:8000", "has no host; write e.g. http://127.0.0.1:8000/"},
		{"http://[::1", "is not a URL (missing ']' in host)"},
		{"http://a b/", "has spaces or control characters"},
		{"ftp://x/", "write an http:// or https:// URL"},
		{"mailto:x@y", "write an http:// or https:// URL"},
	} {
		got := checkTargetURL(c.raw)
		if !strings.Contains(got, c.want) || strings.Contains(got, "http://http") {
			t.Errorf("checkTargetURL(%q) = %q; want it to say %q", c.raw, got, c.want)
		}
	}
	if got := checkTargetURL("http://127.0.0.1:8000/ok"); got != "" {
		t.Errorf("a good URL: %q", got)
	}
}

// TestShardRefusals: compiled for one shard of a split run, a scenario
// needs an external target, and a policy shared by the whole cohort is
// refused at its line unless it says scope: shard; every problem at once.
func TestShardRefusals(t *testing.T) {
	const file = `name: split
duration: 10s
workload: {kind: closed, clients: 10}
strategies:
  - name: sidecar
    backoff: full
    budget: {kind: grpc, scope: cohort}
  - name: per-machine
    backoff: full
    breaker: {scope: shard}
  - name: sdk
    backoff: full
    throttle: {kind: sre}
`
	s, err := Parse("split.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Compile(Overrides{Shard: true})
	var se *Error
	if !errors.As(err, &se) || len(se.Problems) != 2 {
		t.Fatalf("want 2 problems, got %v", err)
	}
	if p := se.Problems[0]; p.Path != "target.url" || !strings.Contains(p.Msg, "external service") {
		t.Errorf("first problem: %+v", p)
	}
	if p := se.Problems[1]; p.Line != 7 || p.Path != "strategies[0].budget.scope" || !strings.Contains(p.Msg, "write scope: shard") {
		t.Errorf("second problem: %+v", p)
	}
	_, err = s.Compile(Overrides{Shard: true, Target: "http://127.0.0.1:8080/"})
	if err == nil || !strings.Contains(err.Error(), "strategies[0].budget.scope") || strings.Contains(err.Error(), "target.url") {
		t.Fatalf("with a target: %v", err)
	}
	fixed := strings.Replace(file, "scope: cohort", "scope: shard", 1)
	s, _ = Parse("split.yaml", []byte(fixed))
	p, err := s.Compile(Overrides{Shard: true, Target: "http://127.0.0.1:8080/"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Strategies[0].Budget.Scope != clients.PerShard || p.Strategies[1].Breaker.Scope != clients.PerShard || p.Strategies[2].Throttle.Scope != clients.PerClient {
		t.Errorf("scopes: %v %v %v", p.Strategies[0].Budget.Scope, p.Strategies[1].Breaker.Scope, p.Strategies[2].Throttle.Scope)
	}
	// An open workload's default scope is the cohort's: refused too.
	open := "name: o\nduration: 5s\nworkload: {kind: open, rate: 10}\ntarget: {url: \"http://127.0.0.1:8080/\"}\nstrategies:\n  - {name: a, backoff: full, budget: {kind: grpc}}\n"
	s, _ = Parse("o.yaml", []byte(open))
	if _, err := s.Compile(Overrides{Shard: true}); err == nil || !strings.Contains(err.Error(), "write scope: shard") {
		t.Errorf("an open workload's default scope: %v", err)
	}
	if _, err := s.Compile(Overrides{}); err != nil {
		t.Errorf("the same file, not split: %v", err)
	}
	// A chain of tiers embeds every tier: a shard would have its own.
	chain, err := openFirst("layers", Overrides{Shard: true})
	if err == nil || !strings.Contains(err.Error(), "herdbench proxy --retry") {
		t.Errorf("layers split over shards: %v, %v", chain, err)
	}
}
