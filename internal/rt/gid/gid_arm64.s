//go:build !nounsafe && !purego

#include "textflag.h"

// func getg() uintptr: the g pointer, kept in register g.
TEXT ·getg(SB), NOSPLIT, $0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
