//go:build amd64 && !purego && !nounsafe

#include "textflag.h"

// func Callers(pcs []uintptr) int
//
// No frame of its own, so BP is still the caller's frame pointer: 0(BP) is
// the caller's caller's frame pointer and 8(BP) the return address into it.
TEXT ·Callers(SB), NOSPLIT|NOFRAME, $0-32
	MOVQ pcs_base+0(FP), DI
	MOVQ pcs_len+8(FP), CX
	MOVQ BP, AX
	XORQ DX, DX

loop:
	CMPQ  DX, CX
	JGE   done
	TESTQ AX, AX
	JZ    done
	MOVQ  8(AX), R8
	MOVQ  R8, (DI)(DX*8)
	INCQ  DX
	MOVQ  0(AX), R9
	CMPQ  R9, AX
	JLS   done          // not above this frame: the end, or not a Go chain
	MOVQ  R9, R10
	SUBQ  AX, R10
	CMPQ  R10, $0x100000
	JHI   done          // more than 1 MiB up: off the goroutine stack
	MOVQ  R9, AX
	JMP   loop

done:
	MOVQ DX, ret+24(FP)
	RET
