package sysmem

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSystem lays out a /proc with meminfo and this process's cgroup file,
// and a cgroup mount, under a temporary folder.
func fakeSystem(t *testing.T, memTotalKB, cgroup string, limits map[string]string) (proc, cg string) {
	t.Helper()
	root := t.TempDir()
	proc, cg = filepath.Join(root, "proc"), filepath.Join(root, "cgroup")
	write := func(path, data string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proc, "meminfo"), "MemTotal:       "+memTotalKB+" kB\nMemFree:        1000 kB\n")
	write(filepath.Join(proc, "42", "cgroup"), cgroup)
	if err := os.Symlink("42", filepath.Join(proc, "self")); err != nil {
		t.Fatal(err)
	}
	for path, v := range limits {
		write(filepath.Join(cg, path), v+"\n")
	}
	return proc, cg
}

func TestAvailable(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name          string
		memTotalKB    string
		cgroup        string
		limits        map[string]string
		want          uint64
		wantFromGroup bool
	}{
		{"no cgroup limit (v2 max)", "25165824", "0::/user.slice\n", map[string]string{"memory.max": "max", "user.slice/memory.max": "max"}, 24 * gib, false},
		{"v2 limit on the group", "25165824", "0::/ci/job\n", map[string]string{"ci/job/memory.max": "8589934592"}, 8 * gib, true},
		{"v2 limit on a parent", "25165824", "0::/ci/job\n", map[string]string{"ci/memory.max": "4294967296", "ci/job/memory.max": "max"}, 4 * gib, true},
		{"v2 in a container (path absent below the mount)", "25165824", "0::/docker/abc\n", map[string]string{"memory.max": "2147483648"}, 2 * gib, true},
		{"v1 memory controller", "25165824", "5:memory:/job\n4:cpu,cpuacct:/job\n", map[string]string{"memory/job/memory.limit_in_bytes": "1073741824"}, 1 * gib, true},
		{"v1 unlimited (a huge number)", "25165824", "5:memory:/\n", map[string]string{"memory/memory.limit_in_bytes": "9223372036854771712"}, 24 * gib, false},
		{"a limit above the machine's memory", "25165824", "0::/\n", map[string]string{"memory.max": "107374182400"}, 24 * gib, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			proc, cg := fakeSystem(t, c.memTotalKB, c.cgroup, c.limits)
			m, err := available(proc, cg, noAddressLimit, noneHeld)
			if err != nil {
				t.Fatal(err)
			}
			if m.Bytes != c.want || (m.Source == "this cgroup's memory limit") != c.wantFromGroup {
				t.Errorf("got %d bytes from %q; want %d (from the cgroup: %v)", m.Bytes, m.Source, c.want, c.wantFromGroup)
			}
		})
	}
}

func TestAvailableUnknown(t *testing.T) {
	if _, err := available(filepath.Join(t.TempDir(), "no-proc"), t.TempDir(), noAddressLimit, noneHeld); !errors.Is(err, ErrUnknown) {
		t.Errorf("no /proc: %v, want ErrUnknown", err)
	}
}

// On this machine (Linux) the reading works and is plausible.
func TestAvailableHere(t *testing.T) {
	m, err := Available()
	if errors.Is(err, ErrUnknown) {
		t.Skip(err)
	}
	if err != nil || m.Bytes < 64<<20 {
		t.Errorf("Available() = %+v, %v", m, err)
	}
}

func noAddressLimit() (uint64, bool) { return 0, false }
func noneHeld() (uint64, bool)       { return 0, false }

// An address-space limit (ulimit -v) counts, less the Go runtime's
// reserve, when it is the smallest of the three; a limit within the
// reserve leaves what is above the space the process holds now, never 0
// (which --max-memory would read as no limit).
func TestAvailableAddressLimit(t *testing.T) {
	const gib = 1 << 30
	proc, cg := fakeSystem(t, "25165824", "0::/ci/job\n", map[string]string{"ci/job/memory.max": "8589934592"}) // 24 GiB, a cgroup of 8
	for _, c := range []struct {
		name   string
		limit  uint64
		set    bool
		want   uint64
		source string
	}{
		{"none", 0, false, 8 * gib, "this cgroup's memory limit"},
		{"4 GiB", 4 * gib, true, 4*gib - GoReserve, "address-space limit (ulimit -v: 4194304 KiB)"},
		{"above the cgroup's", 16 * gib, true, 8 * gib, "this cgroup's memory limit"},
		{"within the reserve", 1536 << 20, true, 512 << 20, "address-space limit (ulimit -v: 1572864 KiB) less the 1024 MiB it holds already"},
		{"below what is held", 512 << 20, true, 1, "address-space limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := available(proc, cg, func() (uint64, bool) { return c.limit, c.set }, func() (uint64, bool) { return gib, true })
			if err != nil {
				t.Fatal(err)
			}
			if m.Bytes != c.want || !strings.Contains(m.Source, c.source) {
				t.Errorf("got %d bytes from %q; want %d from %q", m.Bytes, m.Source, c.want, c.source)
			}
		})
	}
}
