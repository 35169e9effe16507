package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/clients"
)

const secretHeader = "name: s\nduration: 10s\nseed: 1\nworkload: {kind: closed, clients: 2}\n"

// compileWith compiles src with o and returns the plan or the problems.
func compileWith(t *testing.T, src string, o Overrides) (*Plan, string) {
	t.Helper()
	s, err := Parse("s.yaml", []byte(src))
	if err == nil {
		var p *Plan
		if p, err = s.Compile(o); err == nil {
			return p, ""
		}
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v is not an *Error", err)
	}
	return nil, e.Error()
}

// The resolved scenario (the results folder's scenario.yaml, the report's
// "scenario as run") wrote the target URL's password and the request mix's
// header values in clear.
func TestResolvedScenarioMasksPasswordAndHeaderValues(t *testing.T) {
	p, errs := compileWith(t, secretHeader+`target: {url: "http://alice:pw-s3cret@127.0.0.1:9000/"}
requests:
  - {method: POST, path: /a, headers: {Content-Type: application/json, X-Api-Key: key-s3cret}}
strategies:
  - name: a
    backoff: full
    requests:
      - {method: GET, path: /b, headers: {Cookie: session=cookie-s3cret, Accept: text/plain}}
`, Overrides{})
	if errs != "" {
		t.Fatal(errs)
	}
	res := string(p.Resolved)
	if strings.Contains(res, "s3cret") {
		t.Errorf("the resolved scenario holds a secret:\n%s", res)
	}
	for _, want := range []string{"http://alice:xxxxx@127.0.0.1:9000/", "X-Api-Key: xxxxx", "Cookie: xxxxx", "Content-Type: application/json", "Accept: text/plain"} {
		if !strings.Contains(res, want) {
			t.Errorf("the resolved scenario lacks %q:\n%s", want, res)
		}
	}
	if p.TargetURL != "http://alice:pw-s3cret@127.0.0.1:9000/" || p.Strategies[0].Requests == nil {
		t.Errorf("the plan itself lost its credentials: %q", p.TargetURL)
	}
}

// A standalone target's or proxy's recording wrote its scenario file as
// written, a secret header value and a URL password included.
func TestServerScenarioMasksItsSecrets(t *testing.T) {
	src := secretHeader + "target: {url: \"http://bob:pw-s3cret@127.0.0.1:9000/\"}\n" +
		"requests:\n  - {method: POST, path: /a, headers: {X-Service-Key: key-s3cret}}\n"
	s, err := Parse("s.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.compileServer(Overrides{Server: true})
	if err != nil {
		t.Fatal(err)
	}
	if res := string(p.Resolved); strings.Contains(res, "s3cret") || !strings.Contains(res, "bob:xxxxx@") {
		t.Errorf("a server's scenario:\n%s", res)
	}
	plain := secretHeader + "# as written\n"
	s, _ = Parse("s.yaml", []byte(plain))
	if p, err = s.compileServer(Overrides{Server: true}); err != nil || string(p.Resolved) != plain {
		t.Errorf("a scenario without secrets is no longer kept as written: %q, %v", p.Resolved, err)
	}
}

// A URL's user and password together with an Authorization header:
// herdbench sent both (the URL's first), so a server read one of them and
// the other was silently dropped. Now refused, naming both.
func TestTwoSourcesOfAuthorizationAreRefused(t *testing.T) {
	bearer := []clients.Header{{Name: "Authorization", Value: "Bearer tok-s3cret"}}
	for _, c := range []struct {
		name, src string
		o         Overrides
		want      []string
	}{
		{"--target with a password and --header-file", secretHeader, Overrides{Target: "http://alice:pw-s3cret@127.0.0.1:9000/", Headers: bearer},
			[]string{"the user and password of --target http://alice:xxxxx@127.0.0.1:9000/", "an Authorization header from --header or --header-file"}},
		{"target.url with a password and a request's own", secretHeader + "target: {url: \"http://alice:pw-s3cret@127.0.0.1:9000/\"}\nrequests:\n  - {method: GET, path: /x, headers: {Authorization: Basic abc}}\n", Overrides{},
			[]string{"s.yaml:7: requests[0]", "the user and password of target.url http://alice:xxxxx@127.0.0.1:9000/", "the request's own Authorization header"}},
		{"a request's own and --header", secretHeader + "requests:\n  - {method: GET, path: /x, headers: {Authorization: Basic abc}}\n", Overrides{Headers: bearer},
			[]string{"the request's own Authorization header and an Authorization header from --header or --header-file"}},
	} {
		_, errs := compileWith(t, c.src+"strategies:\n  - {name: a, backoff: full}\n", c.o)
		for _, w := range append(c.want, "two sources of Authorization") {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: the problems lack %q:\n%s", c.name, w, errs)
			}
		}
		if strings.Contains(errs, "s3cret") {
			t.Errorf("%s: the problem quotes a secret:\n%s", c.name, errs)
		}
		if strings.Count(errs, "two sources") != 1 {
			t.Errorf("%s: said more than once:\n%s", c.name, errs)
		}
	}
	// One source is fine: a password in the URL alone, or a header alone.
	for _, o := range []Overrides{{Target: "http://alice:pw@127.0.0.1:9000/"}, {Target: "http://127.0.0.1:9000/", Headers: bearer}} {
		if _, errs := compileWith(t, secretHeader+"strategies:\n  - {name: a, backoff: full}\n", o); errs != "" {
			t.Errorf("%+v: %s", o, errs)
		}
	}
}

// A targets file whose target has a user and password, with an
// Authorization from --header-file: two sources as well.
func TestTargetsFileAuthorizationAndHeaderFileAreRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.txt"), []byte("GET http://carol:pw-s3cret@x/y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte(secretHeader+"targets: t.txt\nstrategies:\n  - {name: a, backoff: full}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(p, Overrides{Headers: []clients.Header{{Name: "Authorization", Value: "Bearer x"}}})
	if err == nil || !strings.Contains(err.Error(), "a target's Authorization in the targets file") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("got %v", err)
	}
}

// A scenario.yaml copied from a results folder would send the mask as
// the password or header value: refused, saying what to do.
func TestMaskedValuesAreRefused(t *testing.T) {
	_, errs := compileWith(t, secretHeader+"target: {url: \"http://alice:xxxxx@127.0.0.1:9000/\"}\nrequests:\n  - {method: GET, path: /x, headers: {X-Api-Key: xxxxx}}\nstrategies:\n  - {name: a, backoff: full}\n", Overrides{})
	for _, want := range []string{"target.url: http://alice:xxxxx@127.0.0.1:9000/: its password is xxxxx, the mask", "requests[0].headers.X-Api-Key: the value is xxxxx, the mask"} {
		if !strings.Contains(errs, want) {
			t.Errorf("the problems lack %q:\n%s", want, errs)
		}
	}
}

// An error about a target URL quoted it whole, password included.
func TestTargetURLErrorsMaskThePassword(t *testing.T) {
	for _, raw := range []string{"alice:pw-s3cret@127.0.0.1:9000", "ftp://alice:pw-s3cret@127.0.0.1/", `http:\\alice:pw-s3cret@127.0.0.1\`, "http://alice:pw-s3cret@127.0.0.1/#frag", "http://alice:pw-s3cret@127.0.0.1:99999x/"} {
		_, errs := compileWith(t, secretHeader+"strategies:\n  - {name: a, backoff: full}\n", Overrides{Target: raw})
		if errs == "" || strings.Contains(errs, "s3cret") {
			t.Errorf("--target %s: %q", raw, errs)
		}
	}
}

// A header value with a malformed placeholder was quoted from the brace
// on: part of a secret.
func TestPlaceholderErrorInASecretHeaderQuotesNothing(t *testing.T) {
	_, errs := compileWith(t, secretHeader+"requests:\n  - {method: GET, path: /x, headers: {Authorization: \"Bearer ab{cd-s3cret\"}}\nstrategies:\n  - {name: a, backoff: full}\n", Overrides{})
	if !strings.Contains(errs, "starts no placeholder") || strings.Contains(errs, "s3cret") {
		t.Errorf("got %q", errs)
	}
}
