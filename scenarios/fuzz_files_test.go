//go:build linux

package scenarios

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/herdbench/herdbench/internal/safefile"
	"go.yaml.in/yaml/v3"
)

// fuzzSecret is planted in every file outside the scenario's folder: no
// plan, message or body may hold it.
const fuzzSecret = "FUZZ-PLANTED-SECRET-9c41"

// fuzzTree makes, in root, a scenario's folder scn/ with files of every
// kind and links in and out of it, beside out/, which holds secrets, a
// FIFO and a large file, and a secret in root itself.
func fuzzTree(f *testing.F, root string) (scn, out string) {
	f.Helper()
	scn, out = filepath.Join(root, "scn"), filepath.Join(root, "out")
	for _, d := range []string{filepath.Join(scn, "sub"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(root, "secret"):           fuzzSecret + "\n",
		filepath.Join(out, "secret"):            fuzzSecret + "\n",
		filepath.Join(out, "body"):              fuzzSecret,
		filepath.Join(out, "targets.txt"):       "GET http://127.0.0.1/" + fuzzSecret + "\nX-Secret: " + fuzzSecret + "\n@body\n",
		filepath.Join(scn, "body.json"):         `{"a":1}`,
		filepath.Join(scn, "targets.txt"):       "POST http://127.0.0.1/x\n@body.json\n\nGET http://127.0.0.1/y\n",
		filepath.Join(scn, "sub", "t.txt"):      "PUT http://127.0.0.1/z\n@../body.json\n\nPOST http://127.0.0.1/w\n@inner.json\n",
		filepath.Join(scn, "sub", "inner.json"): `{"b":2}`,
	}
	for p, s := range files {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(scn, "fifo"), filepath.Join(out, "fifo")} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for p, size := range map[string]int64{filepath.Join(scn, "big"): 32 << 20, filepath.Join(out, "big"): 1 << 30} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			f.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil { // sparse: nothing on the disk
			f.Fatal(err)
		}
	}
	links := map[string]string{
		"link-in": "body.json", "link-sub": "sub/inner.json", "sub/link-up": "../body.json",
		"link-targets": "sub/t.txt", "link-chain": "link-in",
		"link-out": "../out/secret", "link-abs": filepath.Join(out, "secret"), "link-root-secret": "../secret",
		"link-dir-out": "../out", "link-parent": "..", "link-slash": "/",
		"link-proc": "/proc/self/environ", "link-pagemap": "/proc/self/pagemap", "link-zero": "/dev/zero",
		"link-fifo-out": "../out/fifo", "link-big-out": "../out/big", "link-targets-out": "../out/targets.txt",
		"link-loop": "link-loop", "link-dangling": "../out/none",
	}
	for name, to := range links {
		if err := os.Symlink(to, filepath.Join(scn, name)); err != nil {
			f.Fatal(err)
		}
	}
	// A device and a socket inside the folder, where this user may make
	// them: opened (they are inside), then refused.
	_ = syscall.Mknod(filepath.Join(scn, "dev-zero"), syscall.S_IFCHR|0o644, 1<<8|5)
	if l, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(scn, "sock"), Net: "unix"}); err == nil {
		l.SetUnlinkOnClose(false)
		l.Close()
	}
	return scn, out
}

// opens watches, with inotify, every open of a file in the folders it is
// given: a witness of its own, which sees an open by any code of the
// process, through safefile or not.
type opens struct{ fd int }

func watchOpens(f *testing.F, dirs ...string) *opens {
	f.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		f.Skip("no inotify here:", err)
	}
	f.Cleanup(func() { syscall.Close(fd) })
	for _, d := range dirs {
		if _, err := syscall.InotifyAddWatch(fd, d, syscall.IN_OPEN|syscall.IN_ACCESS); err != nil {
			f.Skip("no inotify here:", err)
		}
	}
	return &opens{fd: fd}
}

// take returns the names of what was opened (or read) in the watched
// folders since the last call, in order; "" for a folder itself.
func (o *opens) take() []string {
	var names []string
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(o.fd, buf)
		if n <= 0 || err != nil {
			return names // EAGAIN: every event of an open that returned is queued
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
			names = append(names, string(bytes.TrimRight(name, "\x00")))
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
}

// FuzzScenarioFileReferences drives the scenario loader with file
// references (paths, "..", absolute paths, links in and out of the
// folder, sizes, kinds: FIFOs, devices, sockets, /proc files) as a body
// (mode 0), a targets file (mode 1), or the lines of a targets file
// inside the folder (mode 2: its @file bodies), and asserts that nothing
// outside the scenario's folder is opened: every descriptor safefile
// opens is of a file inside it (its real path, from /proc/self/fd), and
// inotify sees no open in the folders beside and above it, by any code;
// nor does any plan, message or body hold the secret planted outside.
func FuzzScenarioFileReferences(f *testing.F) {
	root := f.TempDir()
	scn, out := fuzzTree(f, root)
	real, err := filepath.EvalSymlinks(scn)
	if err != nil {
		f.Fatal(err)
	}
	seen := watchOpens(f, out, root)
	if b, err := os.ReadFile(filepath.Join(out, "secret")); err != nil || len(seen.take()) == 0 || !bytes.Contains(b, []byte(fuzzSecret)) {
		f.Skip("inotify does not see opens in this file system")
	}
	var (
		mu     sync.Mutex
		opened []string
	)
	stop := safefile.Observe(func(fd *os.File) {
		p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd.Fd()))
		if err != nil {
			p = "unknown: " + err.Error()
		}
		mu.Lock()
		opened = append(opened, p)
		mu.Unlock()
	})
	f.Cleanup(stop)

	f.Fuzz(func(t *testing.T, mode uint8, ref, lines string) {
		mu.Lock()
		opened = opened[:0]
		mu.Unlock()
		doc := map[string]any{"name": "fuzz", "strategies": []any{map[string]any{"name": "a", "backoff": "full"}}}
		switch mode % 3 {
		case 0:
			doc["requests"] = []any{map[string]any{"method": "POST", "path": "/x", "body": "@" + ref}}
		case 1:
			doc["targets"] = ref
		case 2:
			if err := os.WriteFile(filepath.Join(scn, "fuzz.txt"), []byte(lines), 0o644); err != nil {
				t.Fatal(err)
			}
			doc["targets"] = "fuzz.txt"
		}
		src, err := yaml.Marshal(doc)
		if err != nil {
			t.Skip("not YAML:", err)
		}
		seen.take()
		op, err := OpenData(filepath.Join(scn, "scenario.yaml"), src, Overrides{})
		mu.Lock()
		defer mu.Unlock()
		for _, p := range opened {
			if p != real && !strings.HasPrefix(p, real+string(filepath.Separator)) {
				t.Errorf("opened %s, outside the scenario's folder %s", p, real)
			}
		}
		for _, name := range seen.take() {
			if name != "scn" { // the folder itself, opened as the root files are read from
				t.Errorf("inotify saw %q opened beside or above the scenario's folder", name)
			}
		}
		if strings.Contains(ref+lines, fuzzSecret) {
			return // the input names the secret: a message may quote the name
		}
		if err != nil && strings.Contains(err.Error(), fuzzSecret) {
			t.Errorf("a message holds the secret: %v", err)
		}
		if op == nil {
			return
		}
		for _, p := range op.Plans {
			for _, s := range p.Strategies {
				if s.Requests == nil {
					continue
				}
				for _, r := range s.Requests.Requests {
					if bytes.Contains(r.Body, []byte(fuzzSecret)) || strings.Contains(r.Path, fuzzSecret) {
						t.Errorf("a request holds the secret: %s %s", r.Method, r.Path)
					}
					for _, h := range r.Header {
						if strings.Contains(h.Value, fuzzSecret) {
							t.Errorf("a request's header %s holds the secret", h.Name)
						}
					}
				}
			}
		}
	})
}
