#include "textflag.h"
#include "go_asm.h"

// func prefetchClient(p unsafe.Pointer) byte
TEXT ·prefetchClient(SB), NOSPLIT, $0-9
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 (client__size-1)(AX)
	MOVB $0, ret+8(FP)
	RET
