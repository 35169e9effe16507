//go:build !amd64

package sim

import "unsafe"

// prefetchClient loads one byte of each of the client slot's cache lines
// at p, loads that do not depend on one another, so that their misses
// overlap (prefetch_amd64.s issues real prefetches instead), and returns
// their sum, which the caller keeps so that the compiler keeps the loads.
func prefetchClient(p unsafe.Pointer) byte {
	var x byte
	for off := uintptr(0); off < clientSize; off += 64 {
		x += *(*byte)(unsafe.Add(p, off))
	}
	return x + *(*byte)(unsafe.Add(p, clientSize-1))
}
