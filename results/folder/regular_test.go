package folder

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// What is not a regular file is refused at once, without blocking on a
// FIFO or reading a device, and so is a symbolic link; a file above the
// bound is refused too.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "summary.json")
	if err := os.WriteFile(file, []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadRegular(file, 5); err != nil || string(b) != "12345" {
		t.Errorf("a regular file: %q, %v", b, err)
	}
	if _, err := ReadRegular(file, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file over the bound: %v", err)
	}
	fifo := filepath.Join(dir, "scenario.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	zero := filepath.Join(dir, "a.hlog")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, dir} {
		if _, err := ReadRegular(path, 1<<20); !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v, want ErrNotRegular", path, err)
		}
	}
	// A shared folder's link to the reader's own file (~/.aws/credentials,
	// /proc/self/environ) is never followed, even to a regular file.
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{link, zero} {
		if _, err := ReadRegular(path, 5); !errors.Is(err, ErrLink) {
			t.Errorf("%s: %v, want ErrLink", path, err)
		}
	}
}
