//go:build !nounsafe && !purego

package timerhook

// Callgrind reports whether the hook makes callgrind's client requests
// (false in the nounsafe and purego builds).
const Callgrind = true

// requestFiles define netbenchZero and netbenchDump, with the names of
// the timed and the capped dump, quoted, for $TIMED and $CAPPED. On amd64 they issue
// callgrind's client requests through netbenchClientRequest; valgrind
// recognises the four rotations of DI (by 3, 13, 61 and 51 bits: 128 in
// all, so DI is unchanged) followed by xchg %rbx,%rbx, and answers the
// request whose arguments AX points to in DX. The bytes are written out
// so that no assembler can choose another encoding. The request codes
// are callgrind.h's: the tool base 'C','T' (0x43540000) plus 1 for
// ZERO_STATS and 3 for DUMP_STATS_AT.
var requestFiles = map[string]string{
	"netbench_callgrind_amd64.go": `package testing

import "unsafe"

var (
	netbenchTimed  = []byte($TIMED + "\x00")
	netbenchCapped = []byte($CAPPED + "\x00")
)

const (
	netbenchZeroStats   = 0x43540001
	netbenchDumpStatsAt = 0x43540003
)

// netbenchClientRequest issues a valgrind client request: args holds the
// request and its five arguments. Outside valgrind it does nothing.
//
//go:noescape
func netbenchClientRequest(args *[6]uintptr) uintptr

func netbenchZero() { netbenchClientRequest(&[6]uintptr{netbenchZeroStats}) }

func netbenchDump(capped bool) {
	name := netbenchTimed
	if capped {
		name = netbenchCapped
	}
	netbenchClientRequest(&[6]uintptr{netbenchDumpStatsAt, uintptr(unsafe.Pointer(&name[0]))})
}
`,
	"netbench_callgrind_amd64.s": `#include "textflag.h"

// func netbenchClientRequest(args *[6]uintptr) uintptr
TEXT ·netbenchClientRequest(SB), NOSPLIT, $0-16
	MOVQ args+0(FP), AX
	XORQ DX, DX
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x03 // rolq $3, %rdi
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x0d // rolq $13, %rdi
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x3d // rolq $61, %rdi
	BYTE $0x48; BYTE $0xc1; BYTE $0xc7; BYTE $0x33 // rolq $51, %rdi
	BYTE $0x48; BYTE $0x87; BYTE $0xdb             // xchgq %rbx, %rbx
	MOVQ DX, ret+8(FP)
	RET
`,
	"netbench_callgrind_other.go": `//go:build !amd64

package testing

func netbenchZero() {}

func netbenchDump(capped bool) {}
`,
}
