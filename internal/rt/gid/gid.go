// Package gid identifies the calling goroutine cheaply, so that a loop can
// tell whether it is being called from its own goroutine (Netty's
// inEventLoop, which Java answers with a thread comparison).
//
// On amd64 and arm64 Current returns the address of the runtime's
// descriptor of the calling goroutine, read by a few instructions of
// assembly from where the Go ABI keeps it (thread-local storage on amd64,
// register g on arm64). Two goroutines alive at the same time never share
// a descriptor; one that has exited may hand its descriptor to a new
// goroutine, so a loop compares against the value it recorded only while
// its own goroutine is alive.
//
// The pure-Go twin, used on other architectures and under the build tags
// nounsafe or purego, returns the OS thread id on Linux (the gettid system
// call), which is as exact only for a goroutine locked to its thread
// (ThreadBound says so: a loop locks its thread then), and elsewhere the
// goroutine's number parsed from runtime.Stack (slow, but exact for any
// goroutine).
package gid
