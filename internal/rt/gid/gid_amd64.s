//go:build !nounsafe && !purego

#include "textflag.h"

// func getg() uintptr: the g pointer, from thread-local storage.
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
