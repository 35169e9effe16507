package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/textproto"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/safefile"
	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/target/model"
)

// RequestFile is one request of a mix as written (docs/traffic.md).
type RequestFile struct {
	Method  string            `yaml:"method,omitempty"`
	Path    string            `yaml:"path,omitempty"`
	Headers map[string]string `yaml:"headers,omitempty"`
	// Body is the body inline, or @file: a file relative to the
	// scenario's folder and inside it (safefile's rule), sent byte for
	// byte.
	Body   string   `yaml:"body,omitempty"`
	Weight *float64 `yaml:"weight,omitempty"`
}

// RouteFile is a route of the embedded target with its own service time.
type RouteFile struct {
	Method      string `yaml:"method,omitempty"`
	Path        string `yaml:"path"`
	ServiceTime string `yaml:"service_time"`
}

// forbiddenHeaders are headers herdbench writes itself, or, for Host,
// never lets a scenario write: the loopback interlock decides where load
// goes, from the target URL alone.
var forbiddenHeaders = map[string]string{
	"Host":              "the target URL (--target, target.url) decides where load goes, never a header; remove it",
	"Content-Length":    "herdbench writes it from the body; remove it",
	"Transfer-Encoding": "herdbench sends bodies with a Content-Length; remove it",
}

// mix compiles a list of requests (the scenario's, or a strategy's, at
// base), the headers of the command line appended to each, for strategy
// st, whose idempotency rule says which it may retry. It returns nil
// for no requests and no headers: the probe.
func (c *compiler) mix(reqs []RequestFile, base []step, extra []clients.Header, st *clients.Strategy, tc *model.Config) *clients.Mix {
	if len(reqs) == 0 && len(extra) == 0 {
		return nil
	}
	if len(reqs) > MaxRequests {
		c.fail(base, "%d requests; a mix holds at most %d", len(reqs), MaxRequests)
		return nil
	}
	var out []clients.Request
	if len(reqs) == 0 { // the probe, with the command line's headers
		out = append(out, clients.Request{Method: "POST", Weight: 1, Retry: true, Header: extra})
		c.oneAuthorization(out[0], 0, nil)
		return clients.NewMix(out)
	}
	for i := range reqs {
		r := c.request(&reqs[i], with(base, index(i)))
		own := len(r.Header)
		r.Header = append(r.Header, extra...)
		c.oneAuthorization(r, own, with(base, index(i)))
		r.Retry = st.MayRetry(r.Method, func(name string) bool {
			return slices.ContainsFunc(r.Header, func(h clients.Header) bool { return strings.EqualFold(h.Name, name) })
		})
		if tc != nil {
			r.Route = tc.Route(r.Method, r.Path)
		}
		out = append(out, r)
	}
	if len(c.errs.Problems) > 0 {
		return nil
	}
	return clients.NewMix(out)
}

// request compiles one request, its body file relative to the scenario's
// folder.
func (c *compiler) request(rf *RequestFile, at []step) clients.Request {
	f := func(k string) []step { return with(at, key(k)) }
	r := clients.Request{Method: rf.Method, Path: rf.Path, Weight: 1}
	switch {
	case rf.Method == "":
		c.fail(f("method"), "missing; write the request's method: %s", validList(clients.Methods))
	case !slices.Contains(clients.Methods, rf.Method):
		if up := strings.ToUpper(rf.Method); slices.Contains(clients.Methods, up) {
			c.fail(f("method"), "unknown method %q (did you mean %q?); methods are upper case: %s", rf.Method, up, validList(clients.Methods))
		} else {
			c.fail(f("method"), "unknown method %q; valid: %s", rf.Method, validList(clients.Methods))
		}
	}
	if msg := pathProblem(rf.Path); msg != "" {
		c.fail(f("path"), "%s", msg)
	} else if _, err := clients.CheckPlaceholders(rf.Path); err != nil {
		c.fail(f("path"), "%v", err)
	}
	names := make([]string, 0, len(rf.Headers))
	for n := range rf.Headers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := rf.Headers[n]
		if msg := HeaderProblem(n, v); msg != "" {
			at := with(f("headers"), key(n))
			if strings.ContainsAny(n, "\r\n") {
				at = f("headers") // the name would break the line it is reported on
			}
			c.fail(at, "%s", msg)
			continue
		}
		if _, err := clients.CheckPlaceholders(v); err != nil {
			if secret.Header(n, v) == secret.Mask { // the error quotes the value
				c.fail(with(f("headers"), key(n)), "a brace in the value starts no placeholder of %s; write {{ for a literal brace (the value is not quoted: it may be a secret)", strings.Join(clients.PlaceholderNames, ", "))
			} else {
				c.fail(with(f("headers"), key(n)), "%v", err)
			}
			continue
		}
		if v == secret.Mask && secret.Header(n, v) == secret.Mask {
			c.fail(with(f("headers"), key(n)), "the value "+maskedValue, secret.Mask)
			continue
		}
		r.Header = append(r.Header, clients.Header{Name: n, Value: v})
	}
	if rf.Weight != nil {
		w := *rf.Weight
		if !(w > 0) || math.IsInf(w, 0) { // NaN too
			c.fail(f("weight"), "%v; a weight is a share of the mix above 0 (the default is 1), e.g. weight: 3", w)
		} else {
			r.Weight = w
		}
	}
	if name, ok := strings.CutPrefix(rf.Body, "@"); ok {
		r.Body = c.bodyFile(name, f("body"))
	} else if rf.Body != "" {
		if len(rf.Body) > clients.MaxBody {
			c.fail(f("body"), "a body of %d bytes; herdbench sends at most %d (16 MiB)", len(rf.Body), clients.MaxBody)
		} else if holds, err := clients.CheckPlaceholders(rf.Body); err != nil {
			c.fail(f("body"), "%v", err)
		} else {
			r.Body, r.FillBody = []byte(rf.Body), holds
		}
	}
	return r
}

// bodyFile reads a body file from the scenario's folder, at most
// clients.MaxBody bytes, under safefile's rule: inside the folder, a
// regular file, bounded, never quoted.
func (c *compiler) bodyFile(name string, at []step) []byte {
	if name == "" {
		c.fail(at, "@ names no file; write @file.json, a file relative to the scenario's folder")
		return nil
	}
	b, err := c.readFile(name, clients.MaxBody)
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		c.fail(at, "the body file %s is larger than %d bytes (16 MiB), the most herdbench sends", name, clients.MaxBody)
		return nil
	case err != nil:
		c.fail(at, "the body file %s", fileProblem(err, "write @file, a file relative to the scenario's folder"))
		return nil
	}
	return b
}

// readFile reads the file name from the scenario's folder, at most max
// bytes, and keeps its name for Plan.Files.
func (c *compiler) readFile(name string, max int64) ([]byte, error) {
	b, err := c.s.folder.Read(name, max)
	if err == nil {
		if n := filepath.ToSlash(filepath.Clean(name)); !slices.Contains(c.files, n) {
			c.files = append(c.files, n)
		}
	}
	return b, err
}

// ReadFile reads name, one of a plan's Files, from the scenario's folder
// under the rule every file a scenario names is read with, at most max
// bytes.
func (s *Scenario) ReadFile(name string, max int64) ([]byte, error) {
	return s.folder.Read(name, max)
}

// fileProblem says what is wrong with a file a scenario names, after
// "the body file" or "the targets file": safefile's message, which names
// the file and never quotes it (and, outside the folder, says the rule),
// and for a file missing or not regular how to fix it.
func fileProblem(err error, fix string) string {
	if errors.Is(err, safefile.ErrNotRegular) || errors.Is(err, fs.ErrNotExist) {
		return err.Error() + "; " + fix
	}
	return err.Error()
}

// pathProblem says what is wrong with a request's path, "" if nothing.
func pathProblem(p string) string {
	switch {
	case p == "":
		return `missing; write the path and query to send, joined to the target URL's path, e.g. path: /users/{client}`
	case p[0] != '/':
		return fmt.Sprintf("%q does not start with /; write the path below the target URL, e.g. /users/{client} (the target URL alone decides the host)", p)
	case strings.ContainsAny(p, " #"):
		return fmt.Sprintf("%q holds a space or #; escape them (%%20, %%23)", p)
	}
	for _, r := range p {
		if r < 0x21 || r == 0x7f {
			return fmt.Sprintf("%q holds a control character (CR, LF, ...); a path is one line of printable characters", p)
		}
	}
	return ""
}

// HeaderProblem says what is wrong with a request header, "" if nothing:
// a name that is not an HTTP token, CR, LF or NUL in its value (header
// injection), or a header herdbench writes itself. The value is never
// quoted back: it may be a secret.
func HeaderProblem(name, value string) string {
	if name == "" {
		return "a header needs a name"
	}
	for i := 0; i < len(name); i++ {
		if !isToken(name[i]) {
			return fmt.Sprintf("header name %q holds %q, which a header name may not (CR or LF would inject headers); names are letters, digits and !#$%%&'*+-.^_`|~", name, string(name[i]))
		}
	}
	if why, bad := forbiddenHeaders[textproto.CanonicalMIMEHeaderKey(name)]; bad {
		return fmt.Sprintf("header %s: %s", name, why)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Sprintf("the value of header %s holds CR, LF or NUL, which would inject headers or end the request; write it on one line", name)
	}
	return ""
}

// ValidHeaderName reports whether name is a header name (an HTTP token).
// A line of a file (a targets file, --header-file) whose name is not one
// is refused by its number, without quoting it: it may be a secret.
func ValidHeaderName(name string) bool {
	for i := 0; i < len(name); i++ {
		if !isToken(name[i]) {
			return false
		}
	}
	return name != ""
}

func isToken(b byte) bool {
	switch {
	case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

// routes compiles the embedded target's routes.
func (c *compiler) routes(rs []RouteFile, base []step) []model.Route {
	var out []model.Route
	for i := range rs {
		rf := &rs[i]
		at := func(k string) []step { return with(with(base, index(i)), key(k)) }
		r := model.Route{Method: rf.Method, Path: rf.Path}
		if rf.Method != "" && !slices.Contains(clients.Methods, rf.Method) {
			c.fail(at("method"), "unknown method %q; valid: %s, or leave it out for every method", rf.Method, validList(clients.Methods))
		}
		if msg := pathProblem(rf.Path); msg != "" {
			c.fail(at("path"), "%s", msg)
		}
		if rf.ServiceTime == "" {
			c.fail(at("service_time"), `missing; write the route's service time, e.g. service_time: "exponential(20ms)"`)
		} else {
			r.ServiceTime = c.dist(&rf.ServiceTime, "", at("service_time"))
		}
		out = append(out, r)
	}
	return out
}

// retryRules compiles a strategy's retry_on and success.
func (c *compiler) retryRules(sf *StrategyFile, s *clients.Strategy, at func(string) []step) {
	for i, item := range sf.RetryOn {
		if !s.RetryOn.Add(item) {
			hint := ""
			if m, near := closest(strings.ToLower(item), clients.RetryOnClasses); near {
				hint = fmt.Sprintf(" (did you mean %q?)", m)
			}
			c.fail(with(at("retry_on"), index(i)), "unknown retry_on %q%s; write status codes (503), classes of them (5xx, 4xx) or failures: %s", item, hint, validList(clients.RetryOnClasses))
		}
	}
	for i, item := range sf.Success {
		if !s.Success.AddSuccess(item) {
			c.fail(with(at("success"), index(i)), "%q is not a status; write codes (200, 404) or classes (2xx)", item)
		}
	}
	if sf.IdempotencyHeader != "" {
		if msg := HeaderProblem(sf.IdempotencyHeader, ""); msg != "" {
			c.fail(at("idempotency_header"), "%s", msg)
		}
	}
}

// traffic compiles what a strategy sends and retries: its requests (its
// own, else the scenario's), retry_on, success, and idempotency. A preset
// gives its design's retry_on and idempotency rule when the strategy
// says none.
func (c *compiler) traffic(sf *StrategyFile, s *clients.Strategy, at func(string) []step) {
	var p clients.Preset
	if sf.Preset != "" {
		p, _ = clients.FindPreset(sf.Preset)
	}
	rules := *sf
	if rules.RetryOn == nil {
		rules.RetryOn = p.RetryOn
	}
	c.retryRules(&rules, s, at)
	s.RetryNonIdempotent = p.RetryNonIdempotent
	if sf.RetryNonIdempotent != nil {
		s.RetryNonIdempotent = *sf.RetryNonIdempotent
	}
	s.IdempotencyHeader = sf.IdempotencyHeader
	reqs, base := c.requests, []step{key("requests")}
	if c.s.File.Targets != "" {
		base = []step{key("targets")}
	}
	if sf.Requests != nil {
		reqs, base = sf.Requests, at("requests")
	}
	if len(reqs) > 0 && c.occ {
		c.fail(base, "an occ target serves its own read and write; requests are for a plain target or an external one")
		return
	}
	if len(reqs) > 0 && c.grpc {
		// Each call is target.method with an empty message: a request's
		// method, path, headers and body have no place in it, and were
		// once dropped in silence (the service received empty messages).
		c.fail(base, "a grpc target is called with its method (target.method) and an empty message, the same for every call: herdbench's gRPC calls carry no request's method, path, headers or body; remove them, or send them to an http target (docs/grpc.md)")
		return
	}
	s.Requests = c.mix(reqs, base, c.headers, s, c.routed)
}

// sceneRequests returns the scenario's requests: its own, or a vegeta
// targets file's (targets: file.txt), not both.
func (c *compiler) sceneRequests(f *File) []RequestFile {
	if f.Targets == "" {
		return f.Requests
	}
	if len(f.Requests) > 0 {
		c.fail([]step{key("targets")}, "both requests and targets; write the mix in one of them")
		return f.Requests
	}
	reqs, err := c.readTargets(f.Targets)
	if err != nil {
		c.fail([]step{key("targets")}, "%v", err)
		return nil
	}
	return reqs
}

// redactedHeaders is the note the resolved scenario carries of the
// command line's headers: their names, never their values.
func redactedHeaders(hs []clients.Header) string {
	if len(hs) == 0 {
		return ""
	}
	names := make([]string, len(hs))
	for i, h := range hs {
		names[i] = h.Name
	}
	return "# headers from --header or --header-file on every request (values redacted): " + strings.Join(names, ", ") + "\n"
}
