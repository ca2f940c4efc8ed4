// Package gen holds what the netkit assembly generators share: each
// generator is a main package under internal/asmgen that describes its
// kernels with avo and calls Main, which writes the .s file and the Go
// declarations for it (the -out and -stubs flags of go generate's command
// line).
//
// Every generated file carries the build constraint amd64 && !purego, so a
// purego build, or any other architecture, compiles the pure-Go code
// instead.
package gen

import (
	"os"
	"path"

	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// Constraint is the build constraint of every generated file, in the
// "// +build" syntax that avo parses (a comma is AND); avo writes it as
// "//go:build amd64 && !purego".
const Constraint = "amd64,!purego"

// Main sets the build constraint shared by every netkit kernel, runs
// describe (which declares the kernels with avo's build functions, each
// with its Go signature), and writes the files named by the command line's
// -out and -stubs flags. pkg is the path of the output's package in the
// netkit module; its last element names the package of the stubs (a -pkg
// flag on the command line overrides it). The package is not loaded: it
// lies outside this module, and each kernel's TEXT gives its signature.
func Main(pkg string, describe func()) {
	os.Args = append([]string{os.Args[0], "-pkg", path.Base(pkg)}, os.Args[1:]...)
	build.ConstraintExpr(Constraint)
	describe()
	build.Generate()
}

// SplatAVX2 broadcasts the low byte of the 32-bit register c to every lane
// of the vector v. It moves c with VMOVD, not MOVD: a legacy SSE
// instruction while the upper halves of the YMM registers are dirty
// (after the first VPBROADCASTB) costs a state transition of some 100
// cycles on some CPUs, and a kernel splats on every call.
func SplatAVX2(c reg.Register, v reg.VecVirtual) {
	x := build.XMM()
	build.VMOVD(c, x)
	build.VPBROADCASTB(x, v)
}

// SplatSSE2 broadcasts the low byte of the 32-bit register c (which it
// clobbers) to every lane of the XMM register v.
func SplatSSE2(c reg.Register, v reg.VecVirtual) {
	build.IMUL3L(operand.U32(0x01010101), c, c)
	build.MOVD(c, v)
	build.PSHUFL(operand.U8(0), v, v)
}
