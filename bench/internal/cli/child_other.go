//go:build !linux

package cli

import "os/exec"

// dieWithParent does nothing where the kernel offers no parent-death signal:
// there the child is stopped by Serve's stop only.
func dieWithParent(*exec.Cmd) {}
