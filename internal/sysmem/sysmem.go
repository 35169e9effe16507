package sysmem

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/prometheus/procfs"
)

// Memory is the memory this process may use.
type Memory struct {
	Bytes uint64
	// Source says where Bytes comes from, for messages: "this machine's
	// memory" or "this cgroup's memory limit".
	Source string
}

// ErrUnknown is returned where the memory cannot be read (not Linux, or
// no /proc).
var ErrUnknown = errors.New("sysmem: this machine's memory is unknown")

// GoReserve is the address space the Go runtime holds beyond its heap,
// which a limit on the address space (RLIMIT_AS, ulimit -v) counts and
// the heap cannot use: its page allocator's index, the threads' stacks,
// the binary. Measured 1.6 to 1.7 GiB for herdbench on linux/amd64 (VmPeak
// less VmHWM of simulated runs from 100 to 2 million clients, in
// /proc/PID/status); a process limited to 4 GiB died of Go's out of
// memory with 2.4 GiB of heap in use.
const GoReserve = 2 << 30

// Available returns the memory this process may use.
func Available() (Memory, error) {
	return available(procfs.DefaultMountPoint, "/sys/fs/cgroup", addressLimit, heldNow)
}

// heldNow returns the address space this process holds now (VmSize).
func heldNow() (uint64, bool) {
	fs, err := procfs.NewFS(procfs.DefaultMountPoint)
	if err != nil {
		return 0, false
	}
	p, err := fs.Self()
	if err != nil {
		return 0, false
	}
	st, err := p.Stat()
	if err != nil {
		return 0, false
	}
	return uint64(st.VirtualMemory()), true
}

// addressLimit returns the soft limit on this process's address space
// (RLIMIT_AS), if it has one.
func addressLimit() (uint64, bool) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur == ^uint64(0) { // RLIM_INFINITY
		return 0, false
	}
	return uint64(lim.Cur), true
}

// available reads the machine's memory under procRoot, the process's
// cgroup limit under cgroupRoot (where the cgroup file systems are
// mounted) and its address-space limit from as, and returns the smallest.
// held is the address space the process holds now, for a limit within
// GoReserve: a static binary starts holding less than a cgo one, and
// there what is left above it is the heap's.
func available(procRoot, cgroupRoot string, as, held func() (uint64, bool)) (Memory, error) {
	fs, err := procfs.NewFS(procRoot)
	if err != nil {
		return Memory{}, fmt.Errorf("%w: %v", ErrUnknown, err)
	}
	mi, err := fs.Meminfo()
	if err != nil || mi.MemTotalBytes == nil || *mi.MemTotalBytes == 0 {
		return Memory{}, fmt.Errorf("%w: no MemTotal in %s", ErrUnknown, filepath.Join(procRoot, "meminfo"))
	}
	m := Memory{Bytes: *mi.MemTotalBytes, Source: "this machine's memory"}
	if lim, ok := cgroupLimit(fs, cgroupRoot); ok && lim < m.Bytes {
		m = Memory{Bytes: lim, Source: "this cgroup's memory limit"}
	}
	if lim, ok := as(); ok {
		heap := lim - min(lim, GoReserve)
		source := fmt.Sprintf("this process's address-space limit (ulimit -v: %d KiB) less the %d GiB the Go runtime holds beyond its heap", lim>>10, GoReserve>>30)
		if n, ok := held(); heap == 0 && ok {
			// Within the reserve: never 0, which --max-memory reads as no
			// limit at all; what is left above the space held now.
			heap = max(1, lim-min(lim, n))
			source = fmt.Sprintf("this process's address-space limit (ulimit -v: %d KiB) less the %d MiB it holds already", lim>>10, n>>20)
		}
		if heap < m.Bytes {
			m = Memory{Bytes: heap, Source: source}
		}
	}
	return m, nil
}

// cgroupLimit returns the memory limit of this process's cgroup, if it has
// one: the smallest limit on its path, in cgroup v2 or v1.
func cgroupLimit(fs procfs.FS, root string) (uint64, bool) {
	self, err := fs.Self()
	if err != nil {
		return 0, false
	}
	groups, err := self.Cgroups()
	if err != nil {
		return 0, false
	}
	best, found := uint64(0), false
	for _, g := range groups {
		var dir, file string
		switch {
		case g.HierarchyID == 0 && len(g.Controllers) == 0: // v2
			dir, file = root, "memory.max"
		case contains(g.Controllers, "memory"): // v1
			dir, file = filepath.Join(root, "memory"), "memory.limit_in_bytes"
		default:
			continue
		}
		// The limit of the group and of each parent up to the root
		// applies; in a container the path may not exist below the
		// mount, where the root file is the container's own.
		for p := filepath.Clean("/" + g.Path); ; p = filepath.Dir(p) {
			if v, ok := readLimit(filepath.Join(dir, p, file)); ok && (!found || v < best) {
				best, found = v, true
			}
			if p == "/" {
				break
			}
		}
	}
	return best, found
}

// readLimit reads a cgroup memory limit file: a number of bytes, or "max"
// (v2) for none. v1 writes "none" as a huge number, which the caller's
// comparison with the machine's memory drops.
func readLimit(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil && v > 0
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
