//go:build !linux

package target

import "net"

// abortSocket resets c's connection without closing it where the system
// can (Linux, abort_linux.go); elsewhere it reports false, and the
// connection is reset by closing it with SO_LINGER 0.
func abortSocket(net.Conn) bool { return false }
