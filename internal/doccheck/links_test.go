package doccheck

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// A markdown link or image: [text](target) or ![alt](target "title").
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// An explicit anchor: <a id="x"> or <a name="x">.
var explicitAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

// slug is the anchor GitHub gives a heading: lower case, formatting and
// punctuation left out (letters, digits, spaces, hyphens and underscores
// kept), spaces turned into hyphens.
func slug(heading string) string {
	heading = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(heading, "$1") // a link's text
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors a page's headings and explicit anchors
// make; a heading that repeats gets -1, -2, ... as on GitHub.
func anchors(lines []string) map[string]bool {
	out := map[string]bool{}
	inCode := false
	for _, l := range lines {
		if fence.MatchString(l) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range explicitAnchor.FindAllStringSubmatch(l, -1) {
			out[m[1]] = true
		}
		t := strings.TrimLeft(l, "#")
		if len(t) == len(l) || len(l)-len(t) > 6 || !strings.HasPrefix(t, " ") {
			continue
		}
		s := slug(strings.TrimSpace(t))
		a := s
		for i := 1; out[a]; i++ {
			a = s + "-" + strconv.Itoa(i)
		}
		out[a] = true
	}
	return out
}

// TestLinksResolve: every relative link of README.md and docs/ leads to a
// file or folder of the repository, and its anchor, if any, to a heading
// (or an explicit anchor) of that page.
func TestLinksResolve(t *testing.T) {
	all := pages(t)
	byPath := map[string]map[string]bool{}
	for _, p := range all {
		byPath[p.path] = anchors(p.lines)
	}
	for _, p := range all {
		inCode := false
		for i, l := range p.lines {
			if fence.MatchString(l) {
				inCode = !inCode
				continue
			}
			if inCode {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(withoutCode(l), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				dest := p.path
				if file != "" {
					dest = path.Clean(path.Join(path.Dir(p.path), file))
					if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(dest))); err != nil {
						t.Errorf("%s:%d: the link %s leads to no file (%s)", p.path, i+1, target, dest)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				as, ok := byPath[dest]
				if !ok {
					continue // an anchor into a file that is not a page (a line of code on GitHub)
				}
				if !as[anchor] {
					t.Errorf("%s:%d: the link %s leads to no heading of %s", p.path, i+1, target, dest)
				}
			}
		}
	}
}

func TestSlugIsGitHubs(t *testing.T) {
	for heading, want := range map[string]string{
		"Client cost against wrk, hey and vegeta: `bench/loadcmp`":       "client-cost-against-wrk-hey-and-vegeta-benchloadcmp",
		"Crash then retry: `bench/stampede -crash`":                      "crash-then-retry-benchstampede--crash",
		"The real engine's goals, as measured earlier (from 2026-12-01)": "the-real-engines-goals-as-measured-earlier-from-2026-12-01",
		"Recording the fleet: [real](x.md) clients":                      "recording-the-fleet-real-clients",
		"`herd_factor` and `success_ratio`":                              "herd_factor-and-success_ratio",
	} {
		if got := slug(heading); got != want {
			t.Errorf("slug(%q) = %q, want %q", heading, got, want)
		}
	}
	if a := anchors([]string{"## Run", "text", "## Run", "```", "## not a heading", "```", `<a id="x"></a>`}); !a["run"] || !a["run-1"] || a["not-a-heading"] || !a["x"] {
		t.Errorf("anchors = %v", a)
	}
}
