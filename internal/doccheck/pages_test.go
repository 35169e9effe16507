package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's folder, from this package's.
var root = filepath.Join("..", "..")

// page is one markdown file: its path from the root and its lines.
type page struct {
	path  string
	lines []string
}

// pages returns README.md and every markdown file under docs/.
func pages(t *testing.T) []page {
	t.Helper()
	paths := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []page
	for _, p := range paths {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page{p, strings.Split(string(b), "\n")})
	}
	return out
}

var (
	fence      = regexp.MustCompile("^\\s*(```|~~~)")
	begin, end = "<!-- measured:begin", "<!-- measured:end -->"
)

// prose returns a page's lines as prose: code blocks, the generated
// section (between the measured markers) and HTML comments blank, code
// spans removed. Line numbers stay as they were.
func prose(lines []string) []string {
	out := make([]string, len(lines))
	inCode, inGenerated := false, false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), begin):
			inGenerated = true
		case strings.HasPrefix(strings.TrimSpace(l), end):
			inGenerated = false
		case fence.MatchString(l):
			inCode = !inCode
		case !inCode && !inGenerated && !strings.HasPrefix(strings.TrimSpace(l), "<!--"):
			out[i] = withoutCode(l)
		}
	}
	return out
}

// withoutCode returns l without its code spans: a run of backticks up to
// the next run of as many (an unclosed run is text, as CommonMark has it).
func withoutCode(l string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(l, '`')
		if i < 0 {
			return b.String() + l
		}
		n := i
		for n < len(l) && l[n] == '`' {
			n++
		}
		run := l[i:n]
		closed := -1
		for j := n; j < len(l); {
			k := strings.Index(l[j:], run)
			if k < 0 {
				break
			}
			k += j
			e := k + len(run)
			if (k == 0 || l[k-1] != '`') && (e == len(l) || l[e] != '`') {
				closed = e
				break
			}
			for e < len(l) && l[e] == '`' {
				e++
			}
			j = e
		}
		if closed < 0 {
			b.WriteString(l[:n])
		} else {
			b.WriteString(l[:i])
			n = closed
		}
		l = l[n:]
	}
}

func TestProseLeavesOutCode(t *testing.T) {
	got := prose([]string{"a `1 MiB` b", "```", "12 ns", "```", "c ``x`y`` d", begin + " -->", "3 µs", end, "e", "f ` 2 MB", "g ``h` i"})
	want := []string{"a  b", "", "", "", "c  d", "", "", "", "e", "f ` 2 MB", "g ``h` i"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("prose = %q, want %q", got, want)
	}
}
