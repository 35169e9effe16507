package cli

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the kernel kill the child when the bench that started
// it dies (killed, or interrupted before its stop ran), so no target is left
// behind on loopback holding a port and a core.
func dieWithParent(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
