package scenarios

import (
	"net/url"
	"strings"
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
		return override
	}
	if t.URL == "" {
		return ""
	}
	if err := checkTargetURL(t.URL); err != "" {
		c.fail([]step{key("target"), key("url")}, "%s", err)
		return ""
	}
	return t.URL
}

// checkTargetURL returns what is wrong with an external target's URL, or "".
func checkTargetURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme == "" && u.Host == "":
		return "\"" + raw + "\" is not a URL; write the scheme too, e.g. http://" + strings.TrimPrefix(raw, "//") + "/"
	case u.Scheme != "http" && u.Scheme != "https":
		return "\"" + raw + "\": write an http:// or https:// URL, e.g. http://127.0.0.1:8000/"
	case u.Host == "":
		return "\"" + raw + "\" has no host; write e.g. http://127.0.0.1:8000/"
	case u.Fragment != "":
		return "\"" + raw + "\": remove the #fragment; it is never sent"
	}
	return ""
}
