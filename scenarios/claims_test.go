package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// A claim that names what the scenario lacks (a cohort, a tier, a point
// of its sweep) is a problem with its line and path, every one at once.
func TestClaimProblems(t *testing.T) {
	src := `name: bad
strategies:
  - {name: no-jitter, backoff: exponential}
  - {name: full-jitter, backoff: full}
sweep:
  strategies[full-jitter].base: [10ms, 100ms]
thresholds:
  - herd_factor[no-jiter] >= 5 * herd_factor[full-jitter]
  - tiers[db].amplification[no-jitter] <= 2
  - herd_factor[base=50ms] >= herd_factor[base=100ms]
  - herd_factor[cap=1s] >= 1
  - herd_factor[no-jitter] >= 5 * herd_factr[full-jitter]
  - herd_factor[no-jitter, base=10ms] >= 5 * herd_factor[full-jitter, base=100ms]
`
	s, err := Parse("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Expand(Overrides{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Expand: %v, want an *Error", err)
	}
	want := []struct {
		line       int
		path, text string
	}{
		{8, "thresholds[0]", `names cohort "no-jiter", which is not a strategy of this scenario (did you mean "no-jitter"?)`},
		{9, "thresholds[1]", `reads tier "db", but this scenario has one target`},
		{10, "thresholds[2]", "names the point base=50ms, but strategies[full-jitter].base takes 10ms, 100ms"},
		{11, "thresholds[3]", "names the point cap=1s, but no swept field is cap"},
		{12, "thresholds[4]", `unknown metric "herd_factr" (did you mean "herd_factor"?)`},
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

// --strategies drops the claims that read a cohort it leaves out, as it
// drops that cohort's own gates; a scenario without a sweep names no point.
func TestClaimsOfCohortsLeftOut(t *testing.T) {
	src := `name: claims
strategies:
  - {name: a, backoff: full}
  - {name: b, backoff: full}
  - {name: c, backoff: full}
thresholds:
  - herd_factor[a] >= 5 * herd_factor[b]
  - amplification[c] <= 1.5
  - amplification <= 3
`
	p, err := compile(t, src, Overrides{Strategies: []string{"a", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range p.Thresholds {
		got = append(got, th.Expr)
	}
	if strings.Join(got, "; ") != "amplification[c] <= 1.5; amplification <= 3" {
		t.Errorf("with --strategies a,c: %q", got)
	}
	_, err = compile(t, strings.Replace(src, "amplification <= 3", "amplification[a, clients=10] <= 3", 1), Overrides{})
	if err == nil || !strings.Contains(err.Error(), "the scenario sweeps nothing") {
		t.Errorf("a point without a sweep: %v", err)
	}
}
