package scenarios

import (
	"fmt"
	"maps"
	"reflect"
	"strings"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/secret"
	"go.yaml.in/yaml/v3"
)

// maskSecrets returns f as the resolved scenario writes it: the target
// URL's user information masked (user:xxxxx@), and the value of every
// request header that may be a credential (all but those describing the
// request's form, secret.Header). f's own lists are not changed.
func maskSecrets(f File) File {
	f.Target.URL = secret.URL(f.Target.URL)
	f.Requests = maskRequests(f.Requests)
	f.Strategies = append([]StrategyFile(nil), f.Strategies...)
	for i := range f.Strategies {
		f.Strategies[i].Requests = maskRequests(f.Strategies[i].Requests)
	}
	return f
}

func maskRequests(rs []RequestFile) []RequestFile {
	if rs == nil {
		return nil
	}
	out := make([]RequestFile, len(rs))
	for i, r := range rs {
		if r.Headers != nil {
			r.Headers = maps.Clone(r.Headers)
			for n, v := range r.Headers {
				r.Headers[n] = secret.Header(n, v)
			}
		}
		out[i] = r
	}
	return out
}

// maskedValue is the refusal of a value that is the mask: a scenario
// copied from a results folder, where the secret was never written.
const maskedValue = "is %s, the mask a results folder's scenario.yaml writes in place of a secret; give the real value again (a header in --header-file, the URL with --target)"

// oneAuthorization refuses a request that would carry its credentials
// twice: the target URL's user and password (which herdbench sends as
// Authorization: Basic) beside an Authorization header, or the command
// line's Authorization beside the request's own. Which one a server read
// would depend on the server; herdbench replaces neither. It reports
// once per compile.
func (c *compiler) oneAuthorization(r clients.Request, own int, at []step) {
	if c.authReported {
		return
	}
	var from []string
	if c.urlAuth != "" {
		from = append(from, c.urlAuth)
	}
	for i, h := range r.Header {
		if !strings.EqualFold(h.Name, "Authorization") {
			continue
		}
		switch {
		case i < own && c.s.File.Targets != "":
			from = append(from, "a target's Authorization in the targets file (a user and password in its URL, or an Authorization line)")
		case i < own:
			from = append(from, "the request's own Authorization header")
		default:
			from = append(from, "an Authorization header from --header or --header-file")
		}
	}
	if len(from) < 2 {
		return
	}
	if at == nil {
		at = c.urlAuthAt
	}
	c.authReported = true
	msg := fmt.Sprintf("two sources of Authorization: %s and %s; give the credentials one way (a user and password in the URL, or one Authorization header), herdbench replaces neither", from[0], from[1])
	if at == nil { // --target and the command line's headers: no line of the file
		c.errs.Problems = append(c.errs.Problems, Problem{Msg: msg})
		return
	}
	c.fail(at, "%s", msg)
}

// urlAuthSource names where the target URL with a user came from, for
// oneAuthorization; "" when it names no user.
func urlAuthSource(raw string, flag bool) string {
	if !secret.HasUser(raw) {
		return ""
	}
	if flag {
		return fmt.Sprintf("the user and password of --target %s", secret.URL(raw))
	}
	return fmt.Sprintf("the user and password of target.url %s", secret.URL(raw))
}

// sourceMasked is the scenario as written, for a standalone target's or a
// proxy's results; when it holds a secret (a user in target.url, a header
// value maskSecrets masks), the file as read instead, with them masked
// (its comments lost).
func sourceMasked(s *Scenario) []byte {
	masked := maskSecrets(s.File)
	if reflect.DeepEqual(masked, s.File) {
		return s.Source
	}
	out, err := yaml.Marshal(&masked)
	if err != nil {
		return []byte("# the scenario holds secrets, masked, and could not be written again: " + err.Error() + "\n")
	}
	return append([]byte("# the scenario as read, its secrets masked (xxxxx)\n"), out...)
}
