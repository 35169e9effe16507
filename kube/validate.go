package kube

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/herdbench/herdbench/internal/secret"
)

// Problem is what is wrong with one of Options' values, named by the flag
// of herdbench k8s that sets it.
type Problem struct {
	Flag    string // "--image"
	Value   string
	Why     string
	Example string // a good value
}

func (p *Problem) Error() string {
	return fmt.Sprintf("%s %s: %s; give e.g. %s", p.Flag, quote(p.Value), p.Why, p.Example)
}

// quote writes a value for a message or a comment: in double quotes, in
// printable ASCII (strconv's escapes for anything else, so that no line
// break, control character or look-alike letter passes through), cut
// after 80 bytes.
func quote(s string) string {
	cut := ""
	if len(s) > 80 {
		s, cut = s[:80], "..."
	}
	return strconv.QuoteToASCII(strings.ToValidUTF8(s, "\uFFFD")) + cut
}

// Problems returns what is wrong with o's values: every problem at once,
// each naming its flag. An empty value is not checked here (Manifest
// refuses the required ones).
func (o Options) Problems() []error {
	var ps []error
	add := func(flag, value string, why func(string) string, example string) {
		if value == "" {
			return
		}
		if w := why(value); w != "" {
			ps = append(ps, &Problem{Flag: flag, Value: value, Why: w, Example: example})
		}
	}
	// A URL is quoted without its password: the problem is printed.
	add("--target", secret.URL(o.Target), func(string) string { return urlProblem(o.Target, false) }, "http://chaos-proxy.staging.svc:8090/")
	add("--chaos-control", secret.URL(o.ChaosControl), func(string) string { return urlProblem(o.ChaosControl, true) }, "http://chaos-proxy.staging.svc:8091")
	add("--token-secret", o.TokenSecret, nameProblem, DefaultTokenSecret)
	add("--image", o.Image, imageProblem, "registry.example/team/herdbench:v1.2 or "+DefaultImage+"@sha256:<64 hex digits>")
	add("--cpu", o.CPU, quantityProblem, "2 or 1500m")
	add("--memory", o.Memory, quantityProblem, "512Mi or 2Gi")
	add("--results-claim", o.Claim, nameProblem, "team-results")
	add("claim size", o.ClaimSize, quantityProblem, DefaultClaimSize)
	return ps
}

// nameProblem checks a Secret's or PersistentVolumeClaim's name: an RFC 1123
// subdomain, as Kubernetes wants (lower-case DNS labels joined by dots, at
// most 253 bytes).
func nameProblem(s string) string {
	if len(s) > 253 {
		return fmt.Sprintf("a Kubernetes name has at most 253 characters, this one %d", len(s))
	}
	for _, label := range strings.Split(s, ".") {
		if !dnsLabel.MatchString(label) {
			return "a Kubernetes name (RFC 1123) is lower-case letters, digits and '-', starting and ending with a letter or digit, in labels of at most 63 joined by '.'"
		}
	}
	return ""
}

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

// The grammar of an image reference (the OCI distribution's:
// [host[:port]/]path[:tag][@digest]).
var (
	imageRef = func() *regexp.Regexp {
		const (
			alnum     = `[a-z0-9]+`
			separator = `(?:[._]|__|[-]+)`
			component = alnum + `(?:` + separator + alnum + `)*`
			domainPt  = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
			host      = `(?:` + domainPt + `(?:\.` + domainPt + `)*|\[[0-9a-fA-F:]+\])`
			domain    = host + `(?::[0-9]+)?`
			tag       = `[\w][\w.-]{0,127}`
			digest    = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}`
		)
		return regexp.MustCompile(`^(?:` + domain + `/)?` + component + `(?:/` + component + `)*(?::` + tag + `)?(?:@` + digest + `)?$`)
	}()
)

func imageProblem(s string) string {
	name := s
	if i := strings.IndexAny(name, ":@"); i >= 0 && !strings.Contains(name[i:], "/") {
		name = name[:i]
	}
	switch {
	case len(s) > 512:
		return fmt.Sprintf("an image reference this long (%d characters) is no registry's", len(s))
	case !imageRef.MatchString(s):
		return "not an image reference: [registry[:port]/]path[:tag][@digest], the path in lower-case letters, digits and . _ - separators"
	case len(name) > 255:
		return "an image's name has at most 255 characters"
	}
	return ""
}

// quantity is Kubernetes' resource.Quantity grammar, unsigned: a number
// and a suffix (binary Ki to Ei, decimal m to E, or an exponent).
var quantity = regexp.MustCompile(`^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][-+]?[0-9]+)?$`)

func quantityProblem(s string) string {
	if len(s) > 64 || !quantity.MatchString(s) {
		return "not a Kubernetes quantity: a number and an optional suffix (m for thousandths; k, M, G or Ki, Mi, Gi for sizes)"
	}
	if zero(s) {
		return "a quantity of nothing: give more than 0"
	}
	return ""
}

// zero reports whether a quantity's number is 0.
func zero(s string) bool {
	num := strings.TrimRightFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		num = s[:i]
	}
	return strings.Trim(num, "0.") == ""
}

// urlProblem checks --target's or --chaos-control's URL: http (or https,
// for a target), a host, no user, and only the characters RFC 3986 lets a
// URL have (no spaces, quotes, backslashes or other letters).
func urlProblem(s string, control bool) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=%", r)) {
			return fmt.Sprintf("a URL has no %s: percent-encode it (or remove it)", quote(string(r)))
		}
	}
	if len(s) > 2048 {
		return fmt.Sprintf("a URL of at most 2,048 characters, not %d", len(s))
	}
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return "not a URL"
	case control && u.Scheme != "http":
		return "write the control API's address as http://HOST:PORT (it speaks plain http)"
	case u.Scheme != "http" && u.Scheme != "https":
		return "write an http:// or https:// URL"
	case u.Host == "" || u.Hostname() == "":
		return "the URL has no host"
	case u.User != nil:
		return "the URL names a user: give the token in a Secret (--token-secret), not in the URL"
	case u.Fragment != "" || strings.Contains(s, "#"):
		return "remove the #fragment; it is never sent"
	case control && (u.RawQuery != "" || strings.Trim(u.Path, "/") != ""):
		return "the control API's address is http://HOST:PORT alone, without a path or query"
	}
	return ""
}
