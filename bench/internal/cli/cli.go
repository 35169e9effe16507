// Package cli gives the bench commands the herdbench command they measure:
// the real CLI, built from this tree, or a binary the user names (another
// build, to compare), and a bench's own target run as a child process
// (Serve, and Listen on the child's side), such as the trivial counted
// target the load comparisons share (Counted, Served).
package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Herdbench returns path if it is set; otherwise it builds ./cmd/herdbench
// (the bench must run from the repository's root) into dir and returns the
// binary's path.
func Herdbench(path, dir string) (string, error) {
	if path != "" {
		return path, nil
	}
	path = filepath.Join(dir, "herdbench")
	build := exec.Command("go", "build", "-o", path, "./cmd/herdbench")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building herdbench (run from the repository's root, or pass -herdbench): %w", err)
	}
	return path, nil
}

// Workdir makes a bench's temporary folder (its name starts with
// prefix) and readies the herdbench binary it measures there (Herdbench:
// path if set, else built into the folder); remove removes the folder and
// everything in it. On an error nothing is left behind.
func Workdir(prefix, path string) (dir, hb string, remove func(), err error) {
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", nil, err
	}
	remove = func() { _ = os.RemoveAll(dir) }
	if hb, err = Herdbench(path, dir); err != nil {
		remove()
		return "", "", nil, err
	}
	return dir, hb, remove, nil
}

// Serve starts this very command again as a child with args (its serving
// mode, e.g. "-serve", "127.0.0.1:0"), which prints the address it
// listens on as its first line, and returns that address, the child's
// PID (for its CPU time) and what stops it (kill and wait): the target of
// a bench in a process of its own.
func Serve(args ...string) (addr string, pid int, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", 0, nil, err
	}
	child := exec.Command(self, args...)
	dieWithParent(child)
	out, err := child.StdoutPipe()
	if err != nil {
		return "", 0, nil, err
	}
	if err := child.Start(); err != nil {
		return "", 0, nil, err
	}
	stop = func() { _ = child.Process.Kill(); _ = child.Wait() }
	line := make([]byte, 64)
	n, err := out.Read(line)
	if err != nil {
		stop()
		return "", 0, nil, fmt.Errorf("target did not start: %w", err)
	}
	return strings.TrimSpace(string(line[:n])), child.Process.Pid, stop, nil
}

// Hogs starts n CPU hogs, `yes` with its output to /dev/null, each
// spinning on a core until stop kills it (by its PID), or until this
// command dies.
func Hogs(n int) (stop func(), err error) {
	var hogs []*exec.Cmd
	stop = func() {
		for _, h := range hogs {
			_ = h.Process.Kill()
			_ = h.Wait()
		}
	}
	for range n {
		h := exec.Command("yes") // its output goes to /dev/null: a nil Stdout
		dieWithParent(h)
		if err := h.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("starting a CPU hog (yes): %w", err)
		}
		hogs = append(hogs, h)
	}
	return stop, nil
}
