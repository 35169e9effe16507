package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/clients"
)

const good = `name: good
duration: 10s
seed: 5
target:
  concurrency: 4
chaos:
  - kind: outage
    mode: reset
    at: 2s
    for: 1s
workload:
  kind: closed
  clients: 10
strategies:
  - name: a
    backoff: full
    base: 10ms
    cap: 1s
  - name: b
    backoff: exponential
`

func load(t *testing.T, src string, o Overrides) (*Plan, error) {
	t.Helper()
	s, err := Parse("test.yaml", []byte(src))
	if err != nil {
		return nil, err
	}
	return s.Compile(o)
}

func TestGoodScenarioCompiles(t *testing.T) {
	p, err := load(t, good, Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Duration != 10*time.Second || p.Seed != 5 || p.Target.Concurrency != 4 || p.Target.Queue != DefaultQueue {
		t.Errorf("plan: %+v", p)
	}
	if len(p.Strategies) != 2 || p.Strategies[1].Backoff.Base != DefaultBase || p.Strategies[1].MaxAttempts != DefaultMaxAttempts {
		t.Errorf("strategies: %+v", p.Strategies)
	}
	if e := p.Chaos.ActiveAt(2500 * time.Millisecond); e.Outage != chaos.Reset {
		t.Errorf("effect at 2.5s: %+v", e)
	}
	if p.Workload.Kind != clients.Closed || p.Workload.Clients != 10 {
		t.Errorf("workload: %+v", p.Workload)
	}
	// The resolved scenario is itself a valid scenario with the same plan.
	again, err := load(t, string(p.Resolved), Overrides{})
	if err != nil {
		t.Fatalf("the resolved scenario does not load: %v\n%s", err, p.Resolved)
	}
	if fmt.Sprint(again.Strategies) != fmt.Sprint(p.Strategies) || again.Seed != p.Seed {
		t.Errorf("resolved scenario differs:\n%+v\n%+v", again.Strategies, p.Strategies)
	}
}

// TestCompileDrawsNoSeed: compiling is pure. A scenario without a seed
// compiles to seed 0 every time (the command resolves a run's seed before
// compiling); an override or the file's seed is taken as it is.
func TestCompileDrawsNoSeed(t *testing.T) {
	noSeed := strings.Replace(good, "seed: 5\n", "", 1)
	if noSeed == good {
		t.Fatal("the fixture has no seed line to remove")
	}
	for range 2 {
		p, err := load(t, noSeed, Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Seed != 0 || !strings.Contains(string(p.Resolved), "seed: 0") {
			t.Fatalf("a scenario without a seed compiled to seed %d; want 0, recorded", p.Seed)
		}
	}
	seed := uint64(1 << 60)
	if p, err := load(t, noSeed, Overrides{Seed: &seed}); err != nil || p.Seed != seed {
		t.Fatalf("override: %v, seed %d", err, p.Seed)
	}
}

func TestOverrides(t *testing.T) {
	seed := uint64(99)
	p, err := load(t, good, Overrides{Seed: &seed, Duration: 20 * time.Second, Strategies: []string{"b"}, Clients: 3})
	if err != nil {
		t.Fatal(err)
	}
	if p.Seed != 99 || p.Duration != 20*time.Second || len(p.Strategies) != 1 || p.Strategies[0].Name != "b" || p.Workload.Clients != 3 {
		t.Errorf("overrides not applied: %+v", p)
	}
	if !strings.Contains(string(p.Resolved), "seed: 99") || strings.Contains(string(p.Resolved), "name: a") {
		t.Errorf("resolved scenario does not show the overrides:\n%s", p.Resolved)
	}
	_, err = load(t, good, Overrides{Strategies: []string{"c"}})
	if err == nil || !strings.Contains(err.Error(), `"c"`) || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("unknown --strategies name: %v", err)
	}
	// A shorter duration that cuts a fault is caught.
	_, err = load(t, good, Overrides{Duration: 2500 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "past the end of the run") {
		t.Errorf("duration override cutting a fault: %v", err)
	}
}

// badScenarios are refused with a message that names the line and says
// what is wrong. They seed the fuzz target too.
var badScenarios = []struct {
	name string
	src  string
	line int
	want string // a part of the message
}{
	{"unknown field", "name: x\nstrategies:\n  - name: a\n    backoff: full\n    retries: 3\n", 5, `unknown field "retries"`},
	{"typo with suggestion", "name: x\nduraton: 5s\nstrategies:\n  - {name: a, backoff: full}\n", 2, `did you mean "duration"`},
	{"bad YAML syntax", "name: x\nstrategies:\n  - name: a\n   backoff: full\n", 3, "YAML syntax"},
	{"wrong type", "name: x\nworkload:\n  clients: many\nstrategies:\n  - {name: a, backoff: full}\n", 3, `"many" is text, but this field takes a whole number`},
	{"negative duration", "name: x\nduration: -5s\nstrategies:\n  - {name: a, backoff: full}\n", 2, "negative"},
	{"not a duration", "name: x\nstrategies:\n  - name: a\n    backoff: full\n    base: fast\n", 5, "not a duration"},
	{"cap below base", "name: x\nstrategies:\n  - name: a\n    backoff: full\n    base: 1s\n    cap: 100ms\n", 6, "below base"},
	{"unknown backoff", "name: x\nstrategies:\n  - name: a\n    backoff: jitter\n", 4, `unknown backoff "jitter"`},
	{"zero clients", "name: x\nworkload:\n  clients: 0\nstrategies:\n  - {name: a, backoff: full}\n", 3, "0 clients"},
	{"fault outside the run", "name: x\nduration: 10s\nchaos:\n  - kind: outage\n    at: 8s\n    for: 5s\nstrategies:\n  - {name: a, backoff: full}\n", 6, "past the end of the run"},
	{"no strategies", "name: x\nduration: 10s\n", 1, "no strategies"},
	{"duplicate cohort names", "name: x\nstrategies:\n  - {name: a, backoff: full}\n  - {name: a, backoff: equal}\n", 4, "already the name of strategies[0]"},
	{"unknown fault kind", "name: x\nchaos:\n  - kind: outtage\n    at: 1s\n    for: 1s\nstrategies:\n  - {name: a, backoff: full}\n", 3, `did you mean "outage"`},
	{"unknown fault parameter", "name: x\nchaos:\n  - kind: blip\n    at: 1s\n    for: 1s\n    delay: 5ms\n    jitter: 2ms\n", 7, `unknown field "jitter"`},
	{"bad outage mode", "name: x\nchaos:\n  - kind: outage\n    mode: crash\n    at: 1s\n    for: 1s\nstrategies:\n  - {name: a, backoff: full}\n", 4, `unknown outage mode "crash"`},
	{"error rate above 1", "name: x\nchaos:\n  - kind: error-rate\n    rate: 1.5\n    at: 1s\n    for: 1s\nstrategies:\n  - {name: a, backoff: full}\n", 4, "not a fraction"},
	{"max attempts zero", "name: x\nstrategies:\n  - name: a\n    backoff: full\n    max_attempts: 0\n", 5, "1 or more, or unlimited"},
	{"bad distribution", "name: x\ntarget:\n  service_time: gaussian(5ms)\nstrategies:\n  - {name: a, backoff: full}\n", 3, `unknown kind "gaussian"`},
	{"blackhole without timeout", "name: x\nchaos:\n  - {kind: blip, mode: blackhole, at: 1s, for: 1s}\nstrategies:\n  - {name: a, backoff: full, timeout: 0}\n", 5, "no per-attempt timeout"},
	{"missing name", "strategies:\n  - {name: a, backoff: full}\n", 1, "name: missing"},
	{"empty file", "", 0, "the file is empty"},
	{"fraction of a client", "name: x\nworkload:\n  clients: 50.5\nstrategies:\n  - {name: a, backoff: full}\n", 3, "50.5 is not a whole number"},
	{"list for a duration", "name: x\nstrategies:\n  - name: a\n    backoff: full\n    cap: [1s]\n", 5, "this is a list, but this field takes a single value"},
	{"not a mapping", "- a\n- b\n", 1, "a scenario is a mapping"},
	{"open workload with clients", "name: x\nworkload:\n  kind: open\n  clients: 5\n  rate: 10\nstrategies:\n  - {name: a, backoff: full}\n", 4, "arrivals, not clients"},
	{"jitter above 1", "name: x\nstrategies:\n  - name: a\n    backoff: exponential\n    jitter: 1.5\n", 5, "jitter: 1.5; write the share of the backoff drawn at random, from 0"},
	{"negative jitter", "name: x\nstrategies:\n  - {name: a, jitter: -0.1}\n", 3, "-0.1; write the share"},
	{"jitter not a number", "name: x\nstrategies:\n  - {name: a, backoff: exponential, jitter: half}\n", 3, `"half" is text, but this field takes a number`},
	{"jitter beside full", "name: x\nstrategies:\n  - name: a\n    backoff: full\n    jitter: 0.3\n", 5, "backoff full is exponential with jitter 1, not 0.3; write backoff: exponential (or leave backoff out) with jitter: 0.3"},
	{"jitter beside decorrelated", "name: x\nstrategies:\n  - name: a\n    backoff: decorrelated\n    jitter: 0.3\n", 5, "backoff decorrelated draws its own wait"},
	{"jitter beside grpc's preset", "name: x\nstrategies:\n  - name: a\n    preset: grpc\n    jitter: 0.3\n", 5, "backoff grpc draws its own wait"},
	{"unknown reset", "name: x\nstrategies:\n  - name: a\n    backoff: full\n    reset: always\n", 5, `unknown reset "always"; write per-request`},
	{"reset in a one-shot workload", "name: x\nworkload: {kind: oneshot, clients: 5}\nstrategies:\n  - name: a\n    backoff: full\n    reset: never\n", 6, "in a oneshot workload each client makes one request"},
}

func TestBadScenarios(t *testing.T) {
	for _, c := range badScenarios {
		t.Run(c.name, func(t *testing.T) {
			_, err := load(t, c.src, Overrides{})
			checkRefused(t, "test.yaml", err, c.line, c.want)
		})
	}
}

// checkRefused checks that err lists a problem on line that mentions want.
func checkRefused(t *testing.T, file string, err error, line int, want string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v, want an *Error", err)
	}
	var found *Problem
	for i, p := range e.Problems {
		if strings.Contains(p.String(), want) {
			found = &e.Problems[i]
		}
		if strings.Contains(p.Msg, "invalid fault window") {
			t.Errorf("a follow-on problem of an unreadable field: %s", p)
		}
	}
	if found == nil {
		t.Fatalf("no problem mentions %q:\n%v", want, err)
	}
	if found.Line != line {
		t.Errorf("problem %q is on line %d, want %d", found, found.Line, line)
	}
	if line > 0 && !strings.Contains(err.Error(), fmt.Sprintf("%s:%d:", file, line)) {
		t.Errorf("the message does not name the line:\n%v", err)
	}
}

// badFiles are the hostile inputs of testdata/bad: each validated (or
// passed validation and then crashed a run, filled the memory or failed
// after it) before herdbench checked every number, name and byte. Each is
// refused with its line and what is wrong. They seed the fuzz targets,
// here and in package engine.
var badFiles = map[string]struct {
	line int
	want string
}{
	"aws-huge":                         {4, "tokens: 2000000000000; write from 1 to 1000000000"},
	"yaml-flow-braces":                 {6, `YAML syntax: did not find expected ',' or '}' (inside a { } or [ ] that starts on this line, a value holding braces, brackets, a comma or ": " needs quotes, e.g. {path: "/users/{client}"}`},
	"yaml-key-dedented":                {6, "YAML syntax: did not find expected key (YAML nests by indentation: check this line and the ones below it"},
	"binary":                           {2, "a NUL byte: this looks like a binary file"},
	"breaker-nan":                      {4, "failure_rate: NaN"},
	"brownout-nan":                     {3, "chaos[0].capacity: NaN is not a capacity cut"},
	"budget-nan":                       {4, "max_tokens: NaN tokens"},
	"cap-2000000h":                     {3, "cap: 2000000h is more than a day"},
	"clients-1e30":                     {3, "1e30 is far too large"},
	"clients-2e64":                     {3, "is far too large"},
	"clients-maxint":                   {3, "workload.clients: 9223372036854775807 clients; write from 1 to 10000000"},
	"cold-start-nan":                   {3, "target.cold_start.from: NaN is not a fraction"},
	"concurrency-huge":                 {3, "the target serves from 1 to 1000000"},
	"concurrency-zero":                 {3, "target.concurrency: 0 requests at once serves nothing"},
	"tab-indent":                       {4, "a tab in this line's indentation"},
	"control-character":                {2, "column 7: the control character U+0001"},
	"duration-1000h":                   {2, "duration: 1000h is more than a day"},
	"envoy-nan":                        {4, "budget_percent: NaN"},
	"error-rate-nan":                   {3, "chaos[0].rate: NaN is not a fraction"},
	"fault-at-for-2000000h":            {3, "chaos[0].at: 2000000h is more than a day"},
	"fault-at-for-23h":                 {4, "at or after the end of the run at 1m0s"},
	"max-attempts-huge":                {3, "write from 1 to 1000000 attempts"},
	"multiplier-inf":                   {3, "multiplier: +Inf"},
	"multiplier-nan":                   {4, "multiplier: NaN"},
	"name-control":                     {1, "holds the control character U+001B"},
	"name-dot":                         {1, "starts with \".\""},
	"name-long":                        {1, "201 bytes long; a name has at most 200"},
	"name-newline":                     {1, "holds a line break"},
	"name-nul":                         {1, "name: \"a\\x00b\" holds the control character U+0000"},
	"name-slash":                       {1, "\"a/b\" holds '/'"},
	"tag-binary":                       {3, "strategies[0].name: the YAML tag !!binary is refused: no field"},
	"tag-key":                          {3, "workload.clients: the YAML tag !!python/name:x is refused"},
	"tag-local":                        {2, "duration: the YAML tag !local is refused"},
	"tag-python":                       {1, "name: the YAML tag !!python/object:os.system is refused"},
	"tag-set":                          {2, "strategies: the YAML tag !!set is refused"},
	"server-name-escape":               {1, "name: \"../../herd-escape\" starts with \".\""},
	"network-delay-25h":                {3, "is more than a day (24h)"},
	"not-utf8":                         {3, "column 17: byte 0xE9 is not UTF-8 text"},
	"queue-huge":                       {3, "the target queues from 0 to 10000000"},
	"rate-huge":                        {2, "workload.rate: 1e+12 arrivals per second"},
	"rate-inf":                         {2, "workload.rate: +Inf arrivals per second"},
	"rate-nan":                         {2, "workload.rate: NaN arrivals per second"},
	"rate-tiny":                        {2, "workload.rate: 1e-12 arrivals per second"},
	"retry-after-25h":                  {3, "more than a day (24h), the longest wait"},
	"transport-unknown":                {5, "unknown transport \"net/http/2\"; write herdbench"},
	"transport-at-tier":                {9, "transport belongs to the cohort, not to one of its tiers"},
	"second-document":                  {3, "a second YAML document"},
	"seed-2e64":                        {2, "seed: 18446744073709551616 is too large; this field takes a whole number from 0 to 18446744073709551615"},
	"seed-negative":                    {2, "seed: -1 is negative; this field takes a whole number from 0 to 18446744073709551615"},
	"spin-at-one-instant":              {3, "unlimited attempts with a backoff that never waits: a call answered at once"},
	"spin-refused":                     {6, "is retried at the same instant, forever"},
	"sweep-one-count":                  {2, "sweep.clients: 1 value; a sweep lists two or more"},
	"sweep-bad-counts":                 {3, "sweep.clients[2]: 10 is listed twice"},
	"runs-huge":                        {2, "runs: 20000 runs; repeat each cohort from 1 to 10000 times"},
	"sweep-open":                       {3, "workload.clients: an open workload has arrivals, not clients to count or sweep"},
	"service-time-2000000h":            {3, "is more than a day (24h)"},
	"strategy-name-newline":            {3, "strategies[0].name: \"a\\nb\" holds a line break"},
	"threshold-inf":                    {5, "inf"},
	"threshold-nan-percent":            {5, "\"nan%\" is not a percentage"},
	"throttle-inf":                     {4, "k: +Inf"},
	"timeout-25h":                      {3, "timeout: 25h is more than a day"},
	"url-backslash":                    {2, "has backslashes; a URL is written with forward slashes, e.g. http://127.0.0.1:8000/"},
	"utf16":                            {1, "the file is UTF-16 text"},
	"request-body-missing":             {8, "requests[0].body: the body file no-such-body.json is not in the folder "},
	"request-body-unreadable":          {8, "requests[0].body: the body file . is a folder, not a regular file"},
	"request-header-name-crlf":         {8, `header name "X-A\r\nX-B" holds "\r"`},
	"request-header-value-crlf":        {9, "the value of header X-A holds CR, LF or NUL"},
	"request-host-header":              {9, "header Host: the target URL (--target, target.url) decides where load goes"},
	"request-method-unknown":           {6, `requests[0].method: unknown method "FETCH"; valid: GET`},
	"request-placeholder-unknown":      {7, "placeholder {user} is unknown; valid: {client}, {request}, {rand:A:B}, {uuid}"},
	"request-weight-nan":               {8, "requests[0].weight: NaN; a weight is a share of the mix above 0"},
	"request-weight-negative":          {8, "requests[0].weight: -1; a weight"},
	"request-weight-zero":              {8, "requests[0].weight: 0; a weight"},
	"request-weights-sum-zero":         {11, "requests[1].weight: 0; a weight"},
	"targets-missing":                  {2, "targets: the targets file no-such-targets.txt is not in the folder "},
	"targets-not-a-file":               {2, "targets: the targets file testdata is a folder, not a regular file"},
	"targets-absolute":                 {2, "targets: the targets file /proc/self/environ is an absolute path: a file is named relative to the folder "},
	"targets-climbs-out":               {2, "targets: the targets file ../../../../../../../../etc/passwd climbs out of the folder "},
	"request-body-absolute":            {8, "requests[0].body: the body file /etc/shadow is an absolute path: a file is named relative to the folder "},
	"request-body-climbs-out":          {8, "requests[0].body: the body file ../../../../../../../../etc/shadow climbs out of the folder "},
	"requests-occ-target":              {3, "requests: an occ target serves its own read and write; requests are for a plain target or an external one"},
	"idempotency-header-bad":           {5, `strategies[0].idempotency_header: header name "Idem Key" holds " "`},
	"retry-on-unknown":                 {5, `strategies[0].retry_on[1]: unknown retry_on "resets" (did you mean "reset"?); write status codes (503), classes of them (5xx, 4xx) or failures: 5xx, 4xx`},
	"success-unknown":                  {5, `strategies[0].success[0]: "2xy" is not a status`},
	"grpc-pushback-minus":              {4, "chaos[0].pushback_ms: -250: a negative pushback is the wire's \"do not retry\"; write pushback_ms: stop"},
	"grpc-pushback-nan":                {4, `chaos[0].pushback_ms: ".nan" is not a whole number of milliseconds`},
	"grpc-pushback-http":               {3, "chaos[0].pushback_ms: is gRPC's grpc-retry-pushback-ms, and the target speaks HTTP"},
	"grpc-code-unknown":                {6, `strategies[0].service_config: grpc-go refuses it: invalid code: "\"UNAVAILABEL\""`},
	"grpc-max-attempts-1":              {6, "strategies[0].service_config: methodConfig[0].retryPolicy.maxAttempts: grpc-go refuses it: invalid retry policy"},
	"grpc-not-json":                    {8, "strategies[0].service_config: not JSON (line 2 of the service config): invalid character 'm'"},
	"grpc-http-target":                 {4, "strategies[0].client: grpc-go speaks gRPC, and the embedded target speaks HTTP; add target.protocol: grpc"},
	"grpc-with-backoff":                {6, "strategies[0].backoff: backoff configures herdbench's own retry loop"},
	"grpc-service-config-rejected":     {6, "strategies[0].service_config: methodConfig[0].retryPolicy.maxAttempts: grpc-go refuses it: invalid retry policy"},
	"grpc-service-config-json":         {4, "strategies[0].service_config: not JSON (line 1 of the service config): unexpected end of JSON input"},
	"grpc-config-other-service":        {6, "strategies[0].service_config: methodConfig: none applies to /helloworld.Greeter/SayHello, the method the cohort calls (they name grpc.examples.echo.Echo), so grpc-go would never retry it"},
	"grpc-method":                      {4, `target.method: "SayHello" is not a gRPC method name; write /package.Service/Method`},
	"grpc-requests-body":               {4, "requests: a grpc target is called with its method (target.method) and an empty message"},
	"grpc-client-http":                 {4, "strategies[0].client: grpc-go speaks gRPC, and the embedded target speaks HTTP; add target.protocol: grpc"},
	"grpc-pushback-negative":           {4, "chaos[0].retry_after: -1s"},
	"grpc-shared-throttled-per-client": {5, "strategies[0].channel: client: each client its own grpc-go channel and retry throttler, and connections.shared puts 10 clients on a channel"},
	"grpc-protocol-h2c":                {2, "protocol: protocol h2c: a gRPC target (target.protocol: grpc) speaks grpc-go's own HTTP/2 in cleartext; remove protocol"},
	"grpc-rate-nan":                    {4, "chaos[0].rate: NaN is not a fraction of requests"},
	"protocol-unknown":                 {2, `protocol: unknown protocol "http3"`},
	"shared-http1":                     {2, "connections.shared: HTTP/1.1 carries one request at a time on a connection"},
	"shared-zero":                      {3, "connections.shared: 0 clients per connection; write from 1 to 10000"},
	"shared-negative":                  {3, "connections.shared: -3 clients per connection"},
	"shared-huge":                      {3, "connections.shared: 1000000 clients per connection"},
	"shared-open":                      {3, "connections.shared: an open workload's arrivals take connections from a pool"},
	"h2-cleartext-url":                 {2, "protocol: protocol h2 speaks https, but the target is http://127.0.0.1:9000"},
	"h2c-tiers":                        {2, "protocol: protocol h2c: the tiers of a chain call each other over HTTP/1.1 only"},
	"h2c-occ":                          {2, "protocol: protocol h2c: the OCC target's read-then-write is sent over HTTP/1.1 only"},
}

func TestBadScenarioFiles(t *testing.T) {
	entries, err := os.ReadDir("testdata/bad")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".yaml")
		seen[name] = true
		c, ok := badFiles[name]
		if !ok {
			t.Errorf("testdata/bad/%s has no expected problem in badFiles", e.Name())
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata/bad", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			_, err = checkData(e.Name(), data, Overrides{})
			checkRefused(t, e.Name(), err, c.line, c.want)
		})
	}
	for name := range badFiles {
		if !seen[name] {
			t.Errorf("badFiles names %s, which testdata/bad lacks", name)
		}
	}
}

// TestServerRefusesFolderNames: the scenario of herdbench target and proxy
// names their recordings' results folders too, so compileServer refuses
// the names the swarm's Compile refuses (one rule, folder.NameProblem),
// with the line and the field: a game day's file without strategies named
// ../../herd-escape once wrote its recordings two levels above --out.
func TestServerRefusesFolderNames(t *testing.T) {
	for name, c := range badFiles {
		if !strings.HasPrefix(name, "name-") && !strings.HasPrefix(name, "server-name-") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			file := name + ".yaml"
			data, err := os.ReadFile(filepath.Join("testdata/bad", file))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Parse(file, data)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.compileServer(Overrides{})
			checkRefused(t, file, err, c.line, c.want)
		})
	}
}

// Every problem is reported at once, not only the first: unknown fields,
// wrong types and meaningless values together (Check), but a field that
// failed to read is not reported twice.
func TestAllProblemsAtOnce(t *testing.T) {
	src := `name: x
duration: -1s
duraton: 5s
workload: {clients: many}
strategies:
  - {name: a, backoff: jitter}
  - {name: a, backoff: full, base: 2s, cap: 1s}
`
	_, err := checkData("test.yaml", []byte(src), Overrides{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range e.Problems {
		msgs = append(msgs, p.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"line 2: duration: -1s is negative", `line 3: duraton: unknown field "duraton"`, `line 4: workload.clients: "many" is text`,
		`line 6: strategies[0].backoff: unknown backoff "jitter"`, "line 7: strategies[1].name", "line 7: strategies[1].cap: cap 1s is below base 2s"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "0 clients") {
		t.Errorf("the unreadable clients field is reported twice:\n%s", all)
	}
	for i := 1; i < len(e.Problems); i++ {
		if e.Problems[i].Line < e.Problems[i-1].Line {
			t.Errorf("problems are not in line order: %v", err)
		}
	}
	// Parse alone stops at what it cannot read.
	if _, err := Parse("test.yaml", []byte(src)); !errors.Is(err, ErrInvalid) {
		t.Errorf("Parse: %v", err)
	}
}

func TestBuiltinsAreValid(t *testing.T) {
	bs, err := Builtins()
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) == 0 {
		t.Fatal("no built-in scenarios")
	}
	for _, b := range bs {
		if b.Description == "" {
			t.Errorf("%s has no description", b.Name)
		}
		for _, arg := range []string{b.Name, b.Name + ".yaml"} {
			if _, err := openFirst(arg, Overrides{}); err != nil {
				t.Errorf("%s: %v", arg, err)
			}
		}
	}
	if _, err := openFirst("no-such-scenario", Overrides{}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "outage") {
		t.Errorf("unknown name: %v", err)
	}
}

// TestMisspeltBuiltinIsSuggested: a typo of a built-in's name (with or
// without .yaml) is answered with the name it is near, and a name near none
// with no guess.
func TestMisspeltBuiltinIsSuggested(t *testing.T) {
	for arg, want := range map[string]string{"outgae": `(did you mean "outage"?)`, "metastabel.yaml": `(did you mean "metastable"?)`, "grpc-outage2": `(did you mean "grpc-outage"?)`} {
		if _, err := openFirst(arg, Overrides{}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want ErrNotFound saying %s", arg, err, want)
		}
	}
	if _, err := openFirst("frobnicate", Overrides{}); !errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("frobnicate: %v; want ErrNotFound without a guess", err)
	}
}

func TestOutageHasTheCohortsTheStoryNeeds(t *testing.T) {
	p, err := openFirst("outage.yaml", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]clients.Shape{}
	for _, s := range p.Strategies {
		names[s.Name] = s.Backoff.Shape
	}
	if names["no-jitter"] != clients.Exponential || names["full-jitter"] != clients.Full {
		t.Errorf("outage cohorts: %v", names)
	}
}

func FuzzParseCompile(f *testing.F) {
	f.Add(good)
	for _, c := range badScenarios {
		f.Add(c.src)
	}
	entries, err := os.ReadDir("testdata/bad")
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/bad", e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, b := range []string{"outage"} {
		_, data, err := find(b)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("name: x\nstrategies: [{name: a, backoff: full, max_attempts: unlimited}]\n")
	f.Add("name: x\nchaos: [{kind: blip, at: 1s, for: 1s, delay: 'uniform(1ms, 2ms)'}]\nstrategies: [{name: a, backoff: full}]\n")
	f.Add("a: &x {b: 1}\nc: *x\n<<: *x\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse("fuzz.yaml", []byte(src))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("Parse error is not a non-empty *Error: %v", err)
			}
			return
		}
		p, err := s.Compile(Overrides{})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("Compile error is not a non-empty *Error: %v", err)
			}
			return
		}
		if p.Duration <= 0 || len(p.Strategies) == 0 || p.Chaos == nil {
			t.Fatalf("a valid plan without duration, strategies or chaos plan: %+v", p)
		}
		for _, st := range p.Strategies {
			if st.Backoff.Cap < st.Backoff.Base {
				t.Fatalf("cap below base passed validation: %+v", st)
			}
		}
	})
}

// A folder named like a built-in scenario (a results folder, say) does not
// hide it; a folder with no built-in of its name is an error that says so.
func TestFindSkipsAFolderOfTheSameName(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, d := range []string{"outage", "nothing-built-in"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	name, data, err := find("outage")
	if err != nil || name != "outage.yaml (built-in)" || len(data) == 0 {
		t.Errorf("find(outage) beside a folder outage = %q, %d bytes, %v; want the built-in", name, len(data), err)
	}
	if _, _, err := find("nothing-built-in"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Find of a folder with no built-in of its name = %v; want a read error", err)
	}
}

// checkData opens a scenario given as text and returns its first plan.
func checkData(name string, data []byte, o Overrides) (*Plan, error) {
	op, err := OpenData(name, data, o)
	if err != nil {
		return nil, err
	}
	return op.Plans[0], nil
}

// openFirst opens a scenario by name and returns its first plan.
func openFirst(arg string, o Overrides) (*Plan, error) {
	op, err := Open(arg, o)
	if err != nil {
		return nil, err
	}
	return op.Plans[0], nil
}

// transport: net/http gives the cohort net/http's re-send; without it a
// strategy sends with herdbench's own transport.
func TestStrategyTransport(t *testing.T) {
	p, err := checkData("t.yaml", []byte("name: x\nstrategies:\n  - {name: a, backoff: full, transport: net/http}\n  - {name: b, backoff: full}\n"), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Strategies[0].Transport; got != clients.NetHTTP {
		t.Errorf("a: transport %s, want net/http", got)
	}
	if got := p.Strategies[1].Transport; got != clients.RawTransport {
		t.Errorf("b: transport %s, want herdbench", got)
	}
}
