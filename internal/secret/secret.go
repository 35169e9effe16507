package secret

import (
	"errors"
	"net/textproto"
	"net/url"
	"strings"
)

// Mask is what is written in place of a secret: a URL's password (as
// net/url's URL.Redacted writes it), a header's value.
const Mask = "xxxxx"

// URL returns raw with its user information masked, and otherwise exactly
// as written, so an error can quote what the user typed: a user and a
// password become user:xxxxx@, a user alone (often a token) xxxxx@. It
// works on text that is no valid URL too (an error quoting one), taking
// the user information as what comes before the last "@" of the
// authority: after "//" (or from the start) up to the first "/", "?" or
// "#".
func URL(raw string) string {
	start, at := userinfo(raw)
	if at < 0 {
		return raw
	}
	masked := Mask
	if user, _, hasPassword := strings.Cut(raw[start:at], ":"); hasPassword {
		masked = user + ":" + Mask
	}
	return raw[:start] + masked + raw[at:]
}

// userinfo returns where raw's user information starts and where the "@"
// that ends it is; at is -1 when it has none.
func userinfo(raw string) (start, at int) {
	// Backslashes read as slashes (a Windows-style typo), at the same
	// offsets.
	n := strings.ReplaceAll(raw, "\\", "/")
	if i := strings.Index(n, "//"); i >= 0 {
		start = i + 2
	}
	end := len(n)
	if i := strings.IndexAny(n[start:], "/?#"); i >= 0 {
		end = start + i
	}
	at = strings.LastIndex(n[start:end], "@")
	if at < 0 {
		return start, -1
	}
	return start, start + at
}

// HasUser reports whether raw names a user (and maybe a password) in its
// authority, as URL reads it.
func HasUser(raw string) bool {
	_, at := userinfo(raw)
	return at >= 0
}

// Masked reports whether raw's user information is what URL writes in
// place of a secret: a URL copied from a results folder's scenario.yaml,
// whose password was never written there.
func Masked(raw string) bool {
	start, at := userinfo(raw)
	if at < 0 {
		return false
	}
	info := raw[start:at]
	_, password, hasPassword := strings.Cut(info, ":")
	return info == Mask || hasPassword && password == Mask
}

// shown are the headers whose values describe the request's form and
// are never a credential: written in clear in the resolved scenario.
var shown = map[string]bool{
	"Accept":              true,
	"Accept-Charset":      true,
	"Accept-Encoding":     true,
	"Accept-Language":     true,
	"Cache-Control":       true,
	"Content-Encoding":    true,
	"Content-Language":    true,
	"Content-Type":        true,
	"Idempotency-Key":     true,
	"If-Match":            true,
	"If-Modified-Since":   true,
	"If-None-Match":       true,
	"If-Unmodified-Since": true,
	"Pragma":              true,
	"Range":               true,
	"User-Agent":          true,
	"X-Idempotency-Key":   true,
}

// Header returns the value to write of a header: its value for a header
// that describes the request's form (Content-Type, Accept, User-Agent,
// Idempotency-Key, ...), Mask for any other, which may be a credential
// (Authorization, a cookie, an API key, a header of the service's own).
func Header(name, value string) string {
	if shown[textproto.CanonicalMIMEHeaderKey(name)] {
		return value
	}
	return Mask
}

// Credential reports whether a header of this name carries credentials,
// by its definition (Authorization, Proxy-Authorization, Cookie) or by a
// name that says so (X-Api-Key, X-Auth-Token, X-Session-Id, ...): a
// header whose values must never name anything written, such as a
// recording's cohorts.
func Credential(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "authorization", "proxy-authorization", "cookie", "set-cookie":
		return true
	}
	for _, w := range []string{"auth", "token", "secret", "password", "passwd", "api-key", "apikey", "api_key", "session", "signature", "credential"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// Error returns err with the URL a *url.Error quotes (net/url's parse
// errors, net/http's client errors) masked as URL masks it; any other
// error as it is.
func Error(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	masked := *ue
	masked.URL = URL(ue.URL)
	if masked.URL == ue.URL {
		return err
	}
	return &masked
}
