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
	"github.com/mmcloughlin/avo/build"
)

// Constraint is the build constraint of every generated file.
const Constraint = "amd64 && !purego"

// Main sets the package (a path relative to the netkit module) and the
// build constraint shared by every netkit kernel, runs describe (which declares the kernels with
// avo's build functions), and writes the files named by the command line's
// -out and -stubs flags.
func Main(pkg string, describe func()) {
	build.Package("github.com/netkit/netkit/" + pkg)
	build.ConstraintExpr(Constraint)
	describe()
	build.Generate()
}
