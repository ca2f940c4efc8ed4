//go:build amd64 && !purego

#include "textflag.h"

// func Store64(p *uint64, v uint64)
TEXT ·Store64(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ BX, (AX)
	RET
