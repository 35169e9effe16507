package live

import (
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"strings"
	"testing"
)

// TestPageSelfContained: the page loads nothing (no src or href, no
// URL but the W3C's SVG namespace inside uPlot), and its policy allows
// exactly its inline scripts and styles, by hash, and nothing unsafe.
func TestPageSelfContained(t *testing.T) {
	if m := regexp.MustCompile(`(?i)<[a-z]+[^>]*\s(src|href)\s*=`).FindString(page); m != "" {
		t.Errorf("the page loads something: %s", m)
	}
	for _, bad := range []string{"'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"} {
		if strings.Contains(csp, bad) {
			t.Errorf("the policy allows %s: %s", bad, csp)
		}
	}
	for _, c := range []struct {
		re   *regexp.Regexp
		want int
	}{
		{regexp.MustCompile(`(?s)<script>(.*?)</script>`), 3}, // uPlot's, charts.js, the page's
		{regexp.MustCompile(`(?s)<style>(.*?)</style>`), 2},   // uPlot's and the page's
	} {
		blocks := c.re.FindAllStringSubmatch(page, -1)
		if len(blocks) != c.want {
			t.Fatalf("%d blocks of %s, want %d", len(blocks), c.re, c.want)
		}
		for _, b := range blocks {
			h := sha256.Sum256([]byte(b[1]))
			if want := "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"; !strings.Contains(csp, want) {
				t.Errorf("the policy does not allow a block of %d bytes (%s)", len(b[1]), want)
			}
		}
	}
}
