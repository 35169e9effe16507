package safefile

import (
	"os"
	"syscall"
)

// The file systems whose files are the kernel's: their sizes say 0 (or
// 4096) and their content is made as it is read, without end for some
// (/proc/self/pagemap reads as 256 GiB).
var kernelFS = map[int64]bool{
	0x9fa0:     true, // proc
	0x62656572: true, // sysfs
	0x64626720: true, // debugfs
	0x74726163: true, // tracefs
	0x73636673: true, // securityfs
	0x27e0eb:   true, // cgroup
	0x63677270: true, // cgroup2
	0x62656570: true, // configfs
	0xde5e81e4: true, // efivarfs
}

// kernelFile reports whether f, opened, is on one of the kernel's file
// systems (fstatfs on its descriptor).
func kernelFile(f *os.File) bool {
	sc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var st syscall.Statfs_t
	var serr error
	if err := sc.Control(func(fd uintptr) { serr = syscall.Fstatfs(int(fd), &st) }); err != nil || serr != nil {
		return false
	}
	return kernelFS[int64(st.Type)]
}
