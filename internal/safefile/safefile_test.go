package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

// secret is planted outside the folder: no read and no message may hold it.
const secret = "PLANTED-SECRET-7f3a"

// tree makes a folder scn/ beside a folder out/ that holds a secret, and
// in scn/ the files and links a scenario may name.
func tree(t *testing.T) (scn, out string) {
	t.Helper()
	root := t.TempDir()
	scn, out = filepath.Join(root, "scn"), filepath.Join(root, "out")
	for _, d := range []string{scn, out, filepath.Join(scn, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(out, "secret"), secret+"\n")
	write(filepath.Join(scn, "body.json"), `{"a":1}`)
	write(filepath.Join(scn, "sub", "inner.json"), `{"b":2}`)
	links := map[string]string{
		"link-in":      "body.json",
		"link-sub":     "sub/../body.json",
		"link-out":     "../out/secret",
		"link-abs":     filepath.Join(out, "secret"),
		"link-proc":    "/proc/self/environ",
		"link-zero":    "/dev/zero",
		"link-dir-out": "../out",
		"link-loop":    "link-loop",
		"sub/link-up":  "../body.json",
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(scn, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(scn, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(scn, "big"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(1 << 30); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
	big.Close()
	return scn, out
}

// TestFolderRead: a file a scenario names is read only from inside its
// folder, only if regular, only up to its bound; each refusal names the
// file and never quotes it.
func TestFolderRead(t *testing.T) {
	scn, out := tree(t)
	d := In(scn)
	cases := []struct {
		name string
		want string // the content, or the error it wraps
		err  error
	}{
		{"body.json", `{"a":1}`, nil},
		{"sub/inner.json", `{"b":2}`, nil},
		{"sub/../body.json", `{"a":1}`, nil},
		{"link-in", `{"a":1}`, nil},
		{"link-sub", `{"a":1}`, nil},
		{"sub/link-up", `{"a":1}`, nil},
		{"../out/secret", "climbs out of the folder", ErrOutside},
		{"sub/../../out/secret", "climbs out of the folder", ErrOutside},
		{filepath.Join(out, "secret"), "is an absolute path", ErrOutside},
		{"/proc/self/environ", "is an absolute path", ErrOutside},
		{"link-out", "through a symbolic link", ErrOutside},
		{"link-abs", "through a symbolic link", ErrOutside},
		{"link-proc", "through a symbolic link", ErrOutside},
		{"link-zero", "through a symbolic link", ErrOutside},
		{"link-dir-out/secret", "through a symbolic link", ErrOutside},
		{"link-loop", "too many levels of symbolic links", syscall.ELOOP},
		{"fifo", "fifo is a named pipe (FIFO), not a regular file", ErrNotRegular},
		{"sub", "sub is a folder", ErrNotRegular},
		{".", ". is a folder", ErrNotRegular},
		{"big", "big is 1.0 GiB, more than the 1.0 KiB", ErrTooLarge},
		{"none.json", "none.json is not in the folder " + scn, fs.ErrNotExist},
		{"", "names no file", nil},
	}
	for _, c := range cases {
		b, err := d.Read(c.name, 1<<10)
		if c.err == nil && c.want != "names no file" {
			if err != nil || string(b) != c.want {
				t.Errorf("Read(%q) = %q, %v; want %q", c.name, b, err, c.want)
			}
			continue
		}
		if err == nil || (c.err != nil && !errors.Is(err, c.err)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Read(%q): %v; want an error wrapping %v saying %q", c.name, err, c.err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("Read(%q) quotes the secret: %v", c.name, err)
		}
	}
}

// TestFolderOpensNothingOutside: the descriptors a folder opens, whatever
// it is asked for, are all of files inside it.
func TestFolderOpensNothingOutside(t *testing.T) {
	scn, _ := tree(t)
	real, err := filepath.EvalSymlinks(scn)
	if err != nil {
		t.Fatal(err)
	}
	var opened []string
	stop := Observe(func(f *os.File) {
		p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
		if err != nil {
			t.Errorf("the opened descriptor's path: %v", err)
		}
		opened = append(opened, p)
	})
	defer stop()
	for _, n := range []string{"body.json", "link-in", "link-out", "link-abs", "link-proc", "link-zero", "link-dir-out/secret", "fifo", "big", "../out/secret"} {
		_, _ = In(scn).Read(n, 1<<10)
	}
	if len(opened) != 4 { // body.json, link-in, fifo, big
		t.Errorf("opened %q; want the 4 files inside", opened)
	}
	for _, p := range opened {
		if !strings.HasPrefix(p, real+string(filepath.Separator)) {
			t.Errorf("opened %s, outside %s", p, real)
		}
	}
}

// TestInFS: a built-in scenario's folder is its embedded file system,
// under the same rule.
func TestInFS(t *testing.T) {
	d := InFS(fstest.MapFS{
		"a.json":  {Data: []byte("{}")},
		"dir/b":   {Data: []byte("b")},
		"big.bin": {Data: make([]byte, 2048)},
	}, "the built-in scenarios")
	if b, err := d.Read("a.json", 10); err != nil || string(b) != "{}" {
		t.Errorf("a.json: %q, %v", b, err)
	}
	if b, err := d.Read("dir/../dir/b", 10); err != nil || string(b) != "b" {
		t.Errorf("dir/../dir/b: %q, %v", b, err)
	}
	for name, want := range map[string]error{"../a.json": ErrOutside, "/a.json": ErrOutside, "dir": ErrNotRegular, "big.bin": ErrTooLarge, "none": fs.ErrNotExist} {
		if _, err := d.Read(name, 1<<10); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
	if _, err := (Folder{}).Read("a.json", 10); err == nil {
		t.Error("the zero Folder read a file")
	}
}

// TestReadPathRefusesWhatNeverEnds: a flag's file may be anywhere, but a
// FIFO is refused at once (no writer needed), a device and a file of the
// kernel's too, and a file above the bound.
func TestReadPathRefusesWhatNeverEnds(t *testing.T) {
	scn, out := tree(t)
	if b, err := ReadPath(filepath.Join(out, "secret"), 1<<10); err != nil || !strings.Contains(string(b), secret) {
		t.Errorf("the user's own file outside any folder: %q, %v", b, err)
	}
	if b, err := ReadPath(filepath.Join(scn, "link-in"), 1<<10); err != nil || string(b) != `{"a":1}` {
		t.Errorf("a link the user names: %q, %v", b, err)
	}
	for path, want := range map[string]string{
		filepath.Join(scn, "fifo"):                    "is a named pipe (FIFO)",
		"/dev/zero":                                   "is a device",
		"/proc/self/pagemap":                          "is a file of the kernel's",
		"/proc/self/environ":                          "is a file of the kernel's",
		"/sys/kernel/mm/transparent_hugepage/enabled": "is a file of the kernel's",
		scn: "is a folder",
	} {
		if _, err := os.Stat(path); err != nil {
			continue // no such file here
		}
		if _, err := ReadPath(path, 1<<20); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", path, err, want)
		}
	}
	if _, err := ReadPath(filepath.Join(scn, "big"), 1<<20); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file above the bound: %v", err)
	}
}

// TestBoundIsTheReadingNotTheSize: a file whose size says 0 but reads on
// without end (/dev/zero; /proc/self/pagemap reads as 256 GiB) stops at
// the bound.
func TestBoundIsTheReadingNotTheSize(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip("no /dev/zero here:", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() != 0 {
		t.Skipf("its size says %v (%v), not 0", st.Size(), err)
	}
	if _, err := readBounded(f, st.Size(), "zero", 1<<20); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "zero holds more than the 1.0 MiB") {
		t.Errorf("reading /dev/zero with a bound of 1 MiB: %v", err)
	}
}

// TestOpenNoLink: a results folder's file is never a symbolic link, even
// to a regular file.
func TestOpenNoLink(t *testing.T) {
	scn, _ := tree(t)
	f, err := OpenNoLink(filepath.Join(scn, "body.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, n := range []string{"link-in", "link-out", "link-proc"} {
		if _, err := OpenNoLink(filepath.Join(scn, n)); !errors.Is(err, ErrLink) {
			t.Errorf("%s: %v, want ErrLink", n, err)
		}
	}
	if _, err := OpenNoLink(filepath.Join(scn, "fifo")); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a FIFO: %v", err)
	}
}
