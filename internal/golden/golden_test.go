package golden

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct {
		got, want string
		line      int
		g, w      string
	}{
		{"a\nb\nc\n", "a\nb\nc\n", 0, "", ""},
		{"a\nb\nc\n", "a\nx\nc\n", 2, "b", "x"},
		{"a\nb\n", "a\nb\nc\n", 3, "", "c"},
		{"a\nb\nc", "a\nb", 3, "c", ""},
	} {
		line, g, w := FirstDiff([]byte(c.got), []byte(c.want))
		if line != c.line || g != c.g || w != c.w {
			t.Errorf("FirstDiff(%q, %q) = %d %q %q, want %d %q %q", c.got, c.want, line, g, w, c.line, c.g, c.w)
		}
	}
}

// recorder is a testing.TB that keeps whether the check failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}
func (r *recorder) Name() string          { return "TestX" }

func TestCheck(t *testing.T) {
	if Update() {
		t.Skip("-update rewrites instead of checking")
	}
	path := filepath.Join(t.TempDir(), "x.golden")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, path, []byte("one\ntwo\n"))
	if r.failed {
		t.Error("the same bytes failed the check")
	}
	Check(r, path, []byte("one\nthree\n"))
	if !r.failed {
		t.Error("other bytes passed the check")
	}
	r = &recorder{TB: t}
	Check(r, filepath.Join(t.TempDir(), "absent.golden"), []byte("x"))
	if !r.failed {
		t.Error("a missing golden file passed the check")
	}
}
