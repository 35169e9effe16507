// Package cli gives the bench commands the herdbench command they measure:
// the real CLI, built from this tree, or a binary the user names (another
// build, to compare).
package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
