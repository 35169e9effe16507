package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// Update reports whether the test binary runs with -update.
func Update() bool { return *update }

// Check compares got with the golden file at path: equal passes; with
// -update the file is written (its folder made) and the test passes;
// otherwise the test fails, naming the first line that differs and how to
// rewrite the file.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		line, g, w := FirstDiff(got, want)
		t.Errorf("%s moved (%d bytes, want %d); first difference at line %d:\n got: %q\nwant: %q\nread the change, then run 'go test -run %s -update' if it is meant",
			path, len(got), len(want), line, g, w, t.Name())
	}
}

// FirstDiff returns the first line (from 1) at which got and want differ,
// and that line of each ("" past the end of one).
func FirstDiff(got, want []byte) (line int, g, w string) {
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < max(len(gl), len(wl)); i++ {
		var a, b []byte
		if i < len(gl) {
			a = gl[i]
		}
		if i < len(wl) {
			b = wl[i]
		}
		if !bytes.Equal(a, b) || i >= len(gl) || i >= len(wl) {
			return i + 1, string(a), string(b)
		}
	}
	return 0, "", ""
}
