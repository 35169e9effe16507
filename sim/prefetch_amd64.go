package sim

import "unsafe"

// prefetchClient asks the core to bring the client slot at p into the
// cache (PREFETCHT0 on each of its cache lines, a slot being at most four)
// and returns at once: a prefetch retires without waiting for memory, so
// the event loop goes on with the events before it while the slot is on
// its way, where a load that misses holds up everything after it once the
// core's window is full. It returns 0 (see prefetch_other.go).
//
//go:noescape
func prefetchClient(p unsafe.Pointer) byte
