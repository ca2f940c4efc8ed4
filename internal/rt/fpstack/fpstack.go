// Package fpstack captures call stacks cheaply by walking frame pointers.
//
// runtime.Callers finds each caller's frame through the function's PC
// tables (a pcvalue lookup per frame, plus the inline tree); on amd64 every
// Go frame holds its caller's frame pointer and return address, so
// following that chain costs a few loads and compares per frame. The PCs
// are return addresses, as runtime.Callers returns them;
// runtime.CallersFrames expands the inlined calls behind each one when the
// stack is printed. Unlike runtime.Callers it keeps the
// frames of the wrappers the compiler makes for go and defer statements
// (testing.(*T).Run.gowrap1, say).
//
// The walk stops at a frame pointer of zero (the bottom of a goroutine), at
// one that does not lead up the stack, or at one more than 1 MiB above the
// last — which is where a cgo callback's chain leaves the goroutine stack
// for the C stack, whose frames the walk never reads. A frame of more than
// 1 MiB ends the stack early; so does an assembly function without a frame
// of its own, whose caller is then missing from the stack.
//
// Callers is assembly (fpstack_amd64.s) that reads the stack through raw
// frame pointers, so it lives in internal/rt. Its pure-Go twin
// (fpstack_other.go), which other architectures and builds with the purego
// or nounsafe tag use, calls runtime.Callers; the tests check that both
// give the same stacks, and Walked says which one is built.
package fpstack
