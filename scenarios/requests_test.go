package scenarios

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/clients/swarm"
	"github.com/herdbench/herdbench/results"
)

// vegetaTargets are the examples of vegeta's README, "http format", as
// documented (bodies at paths of the test's own).
const vegetaTargets = `GET http://goku:9090/path/to/dragon?item=balls
GET http://user:password@goku:9090/path/to
HEAD http://goku:9090/path/to/success

GET http://user:password@goku:9090/path/to
X-Account-ID: 8675309

DELETE http://goku:9090/path/to/remove
Confirmation-Token: 90215
Authorization: Token DEADBEEF

POST http://goku:9090/things
@newthing.json

PATCH http://goku:9090/thing/71988591
@thing-71988591.json

# a comment
POST http://goku:9090/things
X-Account-ID: 99
@newthing.json
`

type sent struct{ method, uri, headers, body string }

// TestVegetaTargetsAreSentAsWritten: a vegeta targets file's examples,
// imported with targets:, arrive at the server with their methods, paths,
// headers and body bytes, and nothing else.
func TestVegetaTargetsAreSentAsWritten(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("targets.txt", vegetaTargets)
	write("newthing.json", `{"name": "new"}`+"\n")
	write("thing-71988591.json", "\x00binary{client}\xff")
	write("s.yaml", "name: v\nduration: 60s\ntargets: targets.txt\nworkload: {kind: oneshot, clients: 300}\nstrategies:\n  - name: a\n    backoff: full\n")
	basic := "Basic dXNlcjpwYXNzd29yZA=="
	want := map[sent]bool{
		{"GET", "/base/path/to/dragon?item=balls", "", ""}:                                              true,
		{"GET", "/base/path/to", "Authorization=" + basic, ""}:                                          true,
		{"HEAD", "/base/path/to/success", "", ""}:                                                       true,
		{"GET", "/base/path/to", "Authorization=" + basic + ";X-Account-Id=8675309", ""}:                true,
		{"DELETE", "/base/path/to/remove", "Authorization=Token DEADBEEF;Confirmation-Token=90215", ""}: true,
		{"POST", "/base/things", "", `{"name": "new"}` + "\n"}:                                          true,
		{"PATCH", "/base/thing/71988591", "", "\x00binary{client}\xff"}:                                 true,
		{"POST", "/base/things", "X-Account-Id=99", `{"name": "new"}` + "\n"}:                           true,
	}
	got := serveAndRun(t, filepath.Join(dir, "s.yaml"), Overrides{})
	seen := map[sent]bool{}
	for _, g := range got {
		if !want[g] {
			t.Errorf("sent %+v, which the targets file does not say", g)
		}
		seen[g] = true
	}
	for w := range want {
		if !seen[w] {
			t.Errorf("never sent %+v", w)
		}
	}
}

// TestHeaderFlagsAreSentAndRedacted: the command line's headers go on every
// request, and the resolved scenario names them without their values.
func TestHeaderFlagsAreSentAndRedacted(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte("name: v\nduration: 60s\nworkload: {kind: oneshot, clients: 5}\nrequests:\n  - {method: GET, path: /x}\nstrategies:\n  - name: a\n    backoff: full\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Overrides{Headers: []clients.Header{{Name: "Authorization", Value: "Bearer s3cret-value"}}}
	for _, g := range serveAndRun(t, p, o) {
		if g.headers != "Authorization=Bearer s3cret-value" {
			t.Errorf("sent headers %q", g.headers)
		}
	}
	op, err := Open(p, o)
	if err != nil {
		t.Fatal(err)
	}
	res := string(op.Plans[0].Resolved)
	if strings.Contains(res, "s3cret") || !strings.Contains(res, "(values redacted): Authorization") {
		t.Errorf("the resolved scenario:\n%s", res)
	}
}

// serveAndRun runs the scenario's first cohort against a server that
// records what it receives (headers but the ones every request has).
func serveAndRun(t *testing.T, path string, o Overrides) []sent {
	t.Helper()
	var mu sync.Mutex
	var got []sent
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var hs []string
		for k, v := range r.Header {
			if k != "User-Agent" && k != "Content-Length" {
				hs = append(hs, k+"="+strings.Join(v, ","))
			}
		}
		sort.Strings(hs)
		mu.Lock()
		got = append(got, sent{r.Method, r.RequestURI, strings.Join(hs, ";"), string(b)})
		mu.Unlock()
	}))
	defer srv.Close()
	o.Target = srv.URL + "/base/"
	op, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	p := op.Plans[0]
	rec := results.NewRecorder(p.Duration, 1)
	sw := &swarm.Swarm{URL: p.TargetURL, Strategy: &p.Strategies[0], Workload: &p.Workload, Seed: p.Seed, Origin: time.Now(), Duration: p.Duration, Rec: rec}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sw.Run(ctx)
	if l := rec.Live(); l.OK != l.Attempts || l.Attempts != int64(len(got)) {
		t.Errorf("%d attempts, %d ok, %d received: every attempt must succeed (the answer to a HEAD has no body)", l.Attempts, l.OK, len(got))
	}
	return got
}

// TestBodyAbove16MiBRefused: a body file above 16 MiB is refused with its
// line and field (a sparse file: no 16 MiB in the repository). An inline
// body cannot be that long: a scenario file holds at most 1 MiB.
func TestBodyAbove16MiBRefused(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(clients.MaxBody + 1); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte("name: v\nrequests:\n  - method: PUT\n    path: /x\n    body: \"@big.bin\"\nstrategies:\n  - name: a\n    backoff: full\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(p, Overrides{})
	checkRefused(t, p, err, 5, "requests[0].body: the body file big.bin is larger than 16777216 bytes (16 MiB), the most herdbench sends")
}

// TestResolvedScenarioShowsPresetRetryRules: a preset's retry_on and its
// rule for non-idempotent requests are written into the resolved
// scenario, so the results folder says what ran, and the resolved file
// compiles to the same rules; what the strategy says itself wins.
func TestResolvedScenarioShowsPresetRetryRules(t *testing.T) {
	p, err := compile(t, `name: presets
requests:
  - {method: GET, path: /a}
  - {method: POST, path: /b}
strategies:
  - {name: envoy, preset: envoy}
  - {name: finagle, preset: finagle-budget}
  - {name: aws, preset: aws-sdk-go-v2-standard}
  - {name: sre, preset: sre}
  - {name: mine, preset: envoy, retry_on: [503], retry_non_idempotent: false}
  - {name: plain, backoff: full}
`, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	no := false
	yes := true
	want := []struct {
		retryOn []string
		nonIdem *bool
	}{
		{[]string{"5xx", "reset", "refused", "timeout"}, &yes},
		{[]string{"5xx", "refused", "reset"}, &no},
		{[]string{"500", "502", "503", "504", "429", "reset", "refused", "timeout"}, &yes},
		{nil, &no}, // sre retries every failure
		{[]string{"503"}, &no},
		{nil, nil}, // no preset: the defaults, unwritten as before
	}
	again, err := Parse("resolved.yaml", p.Resolved)
	if err != nil {
		t.Fatalf("the resolved scenario does not parse: %v\n%s", err, p.Resolved)
	}
	p2, err := again.Compile(Overrides{})
	if err != nil {
		t.Fatalf("the resolved scenario does not compile: %v\n%s", err, p.Resolved)
	}
	for i, w := range want {
		sf := again.File.Strategies[i]
		if !reflect.DeepEqual(sf.RetryOn, w.retryOn) || (sf.RetryNonIdempotent == nil) != (w.nonIdem == nil) ||
			sf.RetryNonIdempotent != nil && *sf.RetryNonIdempotent != *w.nonIdem {
			t.Errorf("%s in the resolved scenario: retry_on %v, retry_non_idempotent %v; want %v, %v", sf.Name, sf.RetryOn, fmtBool(sf.RetryNonIdempotent), w.retryOn, fmtBool(w.nonIdem))
		}
		a, b := p.Strategies[i], p2.Strategies[i]
		if a.RetryOn != b.RetryOn || a.RetryNonIdempotent != b.RetryNonIdempotent || a.Requests.Requests[1].Retry != b.Requests.Requests[1].Retry {
			t.Errorf("%s differs after a round trip: retry_on %+v, non-idempotent %v; then %+v, %v", a.Name, a.RetryOn, a.RetryNonIdempotent, b.RetryOn, b.RetryNonIdempotent)
		}
	}
}

func fmtBool(b *bool) string {
	if b == nil {
		return "unset"
	}
	return strconv.FormatBool(*b)
}
