// Package rt is the one home of every piece of netkit that steps outside
// the safe, portable language: code that imports unsafe, that reaches into
// the runtime through go:linkname, or that is hand-written assembly. Each
// such piece is a subpackage of rt, and each has a pure-Go twin beside it
// that gives the same answers:
//
//   - the nounsafe build tag turns off unsafe and go:linkname: every
//     subpackage compiles its safe twin instead;
//   - the purego build tag turns off assembly: every subpackage compiles
//     its Go twin instead.
//
// The tests of each subpackage run under both builds and check that the
// twins agree, and `make test` runs the whole module with
// -tags nounsafe,purego, so the twins are exercised by every package that
// uses them. The constants Unsafe and Asm tell a test outside rt which twin
// it runs on, without naming the tags.
//
// Outside rt, no .go file imports unsafe or uses go:linkname, and no .s
// file is written by hand; the one exception is the generated Teddy
// assembly of package search (internal/asmgen writes it, `make
// generate-check` proves it current, and purego selects search's Go
// twins). audit_test.go checks
// the rule over the whole tree.
//
// The subpackages:
//
//   - fpstack: call stacks by walking frame pointers (amd64 assembly);
//     the twin calls runtime.Callers.
//   - pairscan: the packed-pair prefilter that search.Pattern and
//     buf.Composite.Index share (amd64 AVX2 and SSE2 kernels, generated
//     by internal/asmgen and checked by `make generate-check`); the twins
//     scan a position at a time.
//   - endian: big- and little-endian loads and stores, one unaligned
//     load or store where the machine allows it (cheap enough to inline
//     where encoding/binary, which imports reflect, may not be linked);
//     the twin assembles the bytes with shifts.
//   - iovec: one writev(2) of gathered buffers (their pointers handed to
//     the kernel), through the runtime's system call path or, for a
//     non-blocking descriptor, as a raw system call; the twin writes them
//     one write(2) at a time.
//   - rawio: read(2) of a non-blocking descriptor as a raw system call,
//     skipping the runtime's bookkeeping for calls that may block; the
//     twin calls unix.Read.
//   - accept4: accept4(2) with the peer's address decoded in place,
//     without unix.Sockaddr's allocation.
//   - gid: the calling goroutine's identity, for the event loop's
//     in-loop check.
//   - nanotime: the runtime's monotonic clock, without time.Now's wall
//     clock read.
//   - pwait2: epoll_pwait2(2), an epoll wait with a nanosecond timeout.
//   - timerhook: the source netbench adds to a benchmark binary's testing
//     package to follow the benchmark's timer (profile labels, and
//     callgrind's client requests in amd64 assembly); the twin's hook
//     labels only.
package rt
