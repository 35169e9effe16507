package sim

import (
	"syscall"
	"unsafe"
)

// hugePages asks the kernel to back the client chunk c with huge pages
// where it can (transparent huge pages in madvise mode): a million clients
// at random take one TLB entry per 2 MB instead of per 4 KB, so an event's
// client costs one cache miss and no page walk. Advice only: an error (no
// THP in the kernel) leaves the chunk on small pages.
func hugePages(c []client) {
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c))), uintptr(len(c))*clientSize)
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE
}
