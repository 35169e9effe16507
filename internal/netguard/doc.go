// Package netguard decides where herdbench may send traffic and where it may
// serve: on this machine's loopback only (127.0.0.0/8, ::1), unless the user
// allowed more (--allow-remote).
//
// The decision is made on the addresses a name resolves to, never on how
// the host is spelt: "localhost." (a name with a trailing dot goes to DNS,
// not to /etc/hosts), "LOCALHOST.", or a name whose DNS answer is a public
// address are checked like any other name, by resolving them and checking
// every address. Hosts that end in a number but are not a plain IP address
// ("127.1", "0x7f.1", "2130706433", "127.0.0.1.") are refused outright:
// browsers, curl and the C library read them as IPv4 addresses and Go's
// resolver as names, so what they mean depends on who reads them.
//
// The check is made again where it counts: a Guard's dialer refuses, in its
// Control hook, every address it is about to connect to that is off
// loopback (before the SYN is sent), and its listener every address it is
// about to bind. A DNS answer that changes between the check and the dial
// (DNS rebinding) gains nothing.
//
// Loopback and CheckHost are pure; Guard adds the resolver and the socket
// hooks. The package also bounds what a server herdbench runs can be made
// to hold (limits.go): header and idle timeouts, and a cap on connections
// derived from the process's open-files limit, so that slow or idle
// connections on one port cannot starve the others. A server run by
// Limits.Serve also keeps its own cap from being held by idle or slow
// clients: a few idle connections at most, and at the cap the one idle
// longest, or the oldest that has sent no whole request, gives its place to
// a new one (the control APIs: a POST /control/stop always gets in).
package netguard
