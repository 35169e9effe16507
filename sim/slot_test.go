package sim

import (
	"testing"
	"unsafe"
)

// TestClientSlotLines holds the client slot to three cache lines: each
// event of a million clients loads its client's lines from memory, so a
// slot that grows past 192 bytes costs a fourth miss on most events. And
// every slot of a chunk starts on a line's boundary, so that its three
// lines are its own.
func TestClientSlotLines(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the slot's size is counted for 64-bit pointers")
	}
	if clientSize != 192 {
		t.Fatalf("a client slot is %d bytes, want 192 (three cache lines): move what only some runs use into cold", clientSize)
	}
	var s Sim
	ci := s.slot()
	if p := uintptr(unsafe.Pointer(s.cl(ci))); p%64 != 0 {
		t.Fatalf("the first slot of a chunk is at %#x, not on a 64-byte boundary", p)
	}
}
