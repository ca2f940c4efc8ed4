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
	"flag"
	"path"

	"github.com/mmcloughlin/avo/build"
)

// Constraint is the build constraint of every generated file, in the
// syntax avo v0.5.0 parses (that of a "+build" line); avo writes it as
// "//go:build amd64 && !purego".
const Constraint = "amd64,!purego"

// Main sets the package (a path relative to the netkit module) and the
// build constraint shared by every netkit kernel, runs describe (which declares the kernels with
// avo's build functions), and writes the files named by the command line's
// -out and -stubs flags.
//
// The package is named, not loaded: loading it (avo's build.Package) would
// need the netkit module, which this one does not require, so kernel
// signatures use only predeclared types.
func Main(pkg string, describe func()) {
	flag.Parse()
	if err := flag.Set("pkg", path.Base(pkg)); err != nil {
		panic(err)
	}
	build.ConstraintExpr(Constraint)
	describe()
	build.Generate()
}
