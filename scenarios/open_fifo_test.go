package scenarios

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/herdbench/herdbench/internal/safefile"
)

// A FIFO (or a device, a /proc file) named as the scenario blocked Open
// until a writer came, and a SIGTERM with it: the scenario argument
// follows the rule of every file a flag names, refused before it is read.
func TestScenarioArgumentThatIsAFIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "outage.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, arg := range []string{fifo, "/dev/zero", "/proc/self/environ"} {
		_, err := Open(arg, Overrides{})
		if err == nil || !errors.Is(err, safefile.ErrNotRegular) || !strings.Contains(err.Error(), arg) {
			t.Errorf("Open(%s): %v; want a refusal naming it, not a regular file", arg, err)
		}
	}
}
