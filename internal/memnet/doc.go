// Package memnet is an in-memory network for tests: listeners and dialers
// joined by net.Pipe, so HTTP servers and clients run inside a
// testing/synctest bubble, where real sockets cannot (a goroutine blocked on
// a socket is not durably blocked, and the fake clock would never advance).
//
// A Network maps addresses to listeners. Dialing an address with no listener
// fails with ECONNREFUSED, as a closed TCP port does, so code that closes its
// listener to refuse connections and listens again later behaves as on a
// real network.
package memnet
