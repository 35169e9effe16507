package scenarios

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/herdbench/herdbench/internal/secret"
)

// targetURL reads the external target's URL, from the command line
// (override) or the file; "" means the embedded target.
func (c *compiler) targetURL(t *TargetFile, override string) string {
	if override != "" {
		if err := checkTargetURL(override); err != "" {
			c.errs.Problems = append(c.errs.Problems, Problem{Msg: "--target " + err})
			return ""
		}
		t.URL = override
		c.urlAuth = urlAuthSource(override, true)
		return override
	}
	if t.URL == "" {
		return ""
	}
	if err := checkTargetURL(t.URL); err != "" {
		c.fail([]step{key("target"), key("url")}, "%s", err)
		return ""
	}
	c.urlAuth, c.urlAuthAt = urlAuthSource(t.URL, false), []step{key("target"), key("url")}
	return t.URL
}

// checkTargetURL returns what is wrong with an external target's URL, or "".
func checkTargetURL(raw string) string {
	if secret.Masked(raw) {
		return fmt.Sprintf("%s: its password "+maskedValue, secret.URL(raw), secret.Mask)
	}
	raw = secret.URL(raw) // quoted below: never with its password
	if strings.Contains(raw, `\`) {
		// Backslashes are a Windows path's, never a URL's.
		return "\"" + raw + "\" has backslashes; a URL is written with forward slashes, e.g. " + suggestURL(strings.ReplaceAll(raw, `\`, "/"))
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Sprintf("%q has spaces or control characters; write the URL alone, e.g. http://127.0.0.1:8000/", raw)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil && strings.Contains(raw, "://"):
		return "\"" + raw + "\" is not a URL (" + urlReason(err) + "); write e.g. http://127.0.0.1:8000/"
	case err != nil || u.Scheme == "" && u.Host == "" || u.Opaque != "" && u.Opaque[0] >= '0' && u.Opaque[0] <= '9':
		// "127.0.0.1:8000", or "localhost:8000" (read as scheme localhost)
		return "\"" + raw + "\" is not a URL; write the scheme too, e.g. " + suggestURL(raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return "\"" + raw + "\": write an http:// or https:// URL, e.g. http://127.0.0.1:8000/"
	case u.Host == "":
		return "\"" + raw + "\" has no host; write e.g. " + suggestURL(raw)
	case u.Fragment != "":
		return "\"" + raw + "\": remove the #fragment; it is never sent"
	}
	return ""
}

// suggestURL writes raw as the URL it probably means: with a scheme and
// "//", and a slash after the host; a generic example when it has no host.
func suggestURL(raw string) string {
	const example = "http://127.0.0.1:8000/"
	scheme, rest := "http", raw
	if i := strings.Index(raw, ":"); i > 0 {
		if s := strings.ToLower(raw[:i]); s == "http" || s == "https" {
			scheme, rest = s, raw[i+1:]
		}
	}
	rest = strings.TrimPrefix(strings.TrimLeft(rest, "/"), "//")
	u, err := url.Parse(scheme + "://" + rest)
	if err != nil || u.Host == "" {
		return example
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}

// urlReason is url.Parse's complaint without the URL it repeats.
func urlReason(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
