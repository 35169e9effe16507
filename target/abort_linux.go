//go:build linux

package target

import (
	"net"
	"syscall"
	"unsafe"

	"github.com/herdbench/herdbench/internal/netguard"
)

// abortSocket resets c's TCP connection at once, without closing it: a
// connect to AF_UNSPEC disconnects a TCP socket, which sends the peer an
// RST in the call, as a crashed process's kernel does (tcp_disconnect),
// and wakes the socket's own readers with ECONNRESET. It reports whether
// it could (c is a TCP connection, or wraps one); the descriptor stays
// open until c is closed, which then sends nothing more.
//
// Unlike closing, it does not wait for a goroutine blocked in a read of
// c: Go's Close of a socket that a goroutine is reading only wakes that
// goroutine, and the descriptor (and the RST with it) goes only when it
// has run, so a sweep of closes costs a goroutine switch per connection,
// on a busy 2-core machine tens of microseconds each.
func abortSocket(c net.Conn) bool {
	tc := netguard.Socket(c)
	if tc == nil {
		return false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = rc.Control(func(fd uintptr) {
		sa := syscall.RawSockaddr{Family: syscall.AF_UNSPEC}
		// A disconnect does not block: a raw call keeps the sweep's P.
		_, _, errno := syscall.RawSyscall(syscall.SYS_CONNECT, fd, uintptr(unsafe.Pointer(&sa)), unsafe.Sizeof(sa))
		ok = errno == 0
	})
	return ok
}
