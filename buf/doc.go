// Package buf provides pooled, reference-counted byte buffers.
//
// A Buffer has a reader and a writer index, big- and little-endian
// primitives, the io interfaces, and views that share its memory (Slice,
// which shares its reference, and RetainedSlice, which holds one of its
// own). Buffers come from an Allocator — buf.Get uses
// buf.Default — which rounds sizes up to one of four classes per doubling
// (16 B to 64 KiB by default, less than 20% waste) and keeps released
// buffers, header and memory together, in a sync.Pool per class: a warm
// Get and Release allocate nothing.
//
//	b := buf.Get(512)
//	defer b.Release()
//	b.WriteUint32(uint32(len(payload)))
//	b.Write(payload)
//	conn.Write(b.Bytes())
//
// # Ownership
//
// Get returns a buffer holding one reference. Whoever holds a reference
// calls Release exactly once; Retain adds a reference for another owner
// (another goroutine, a queue). Slices returned by Bytes, Next and
// AvailableBuffer alias the buffer: they are valid until the next write and
// never after the last Release. A Buffer is not safe for concurrent use;
// Retain, Release and RefCount are.
//
// # Names and ownership
//
// A name means one thing for ownership on both types. "Owns a reference"
// means the caller must Release what it got, exactly once.
//
//	Name                 Buffer                              Composite
//	Slice(off, n)        view that shares b's reference:     none: a Composite has no
//	                     adds none, ends with the owner's    reference count to share
//	                     last Release; not released on its
//	                     own account
//	RetainedSlice(off,n) view holding a reference of its     new composite holding a
//	                     own: the caller owns it             reference to every buffer
//	                                                         it covers: the caller owns it
//	Retain               adds a reference, returns b         none
//	Release() bool       drops a reference; true when this   frees it (one owner): always
//	                     call freed the buffer               true; a second call panics
//	Reset                empties (both indexes to 0),        none: Discard(c.Len())
//	                     keeps the memory, releases nothing  empties it and releases
//	                                                         everything it holds
//	Discard(n)           none (Skip consumes)                consumes n bytes, releases
//	                                                         components read to the end
//	Consolidate          none                                one buffer of the readable
//	                                                         bytes: the caller owns a
//	                                                         reference, the composite
//	                                                         keeps its own
//	Append(b)            none                                takes over one reference
//	MoveTo(dst)          none                                hands every unread component,
//	                                                         with its reference, to dst
//	ReaderIndex,         save and restore the reader; release nothing
//	SetReaderIndex       (offset in b's memory)              (stream offset)
//	Bytes, Next(n)       alias b's memory until the next     Next: aliases component memory
//	                     write, Reset or last Release        or scratch until the next
//	                                                         read, Discard, Release, or
//	                                                         consolidating Append/Insert
//	NextRetained(n)      none                                consumes n bytes into a buffer
//	                                                         the caller owns: a pooled view
//	                                                         with its own count, or a copy
//	                                                         when they straddle
//
// Every method that returns a *Buffer or *Composite hands the caller a
// reference it owns — Get, Allocator.Get, Wrap, Retain, RetainedSlice,
// Consolidate, NextRetained — except Slice. Both types satisfy interface{ Release() bool }.
//
// # Composite
//
// A Composite reads a sequence of buffers as one without copying them
// together: reads that arrive in pieces are appended as they come, parsed
// with the same methods as a Buffer (a uint32 may straddle two pieces), and
// released piece by piece as Discard moves past them; a response assembled
// from pieces goes out with one writev through WriteTo. Append takes over
// one reference to each buffer.
//
// # Misuse and leaks
//
// Every method checks, with one atomic load, that the buffer is live:
// using a released buffer, or releasing it twice, panics with an error
// wrapping ErrReleased (two goroutines racing to release one last
// reference are caught by the race and invariants builds; the default
// build's release of a sole owner is a plain store). A view made by Slice keeps detecting its buffer's
// release after the memory is reused; a *Buffer kept past its last Release
// is detected until the allocator hands the header out again. Build with
// -tags invariants for the strict mode: released buffers are never reused,
// their memory is overwritten with 0xDE, and every misuse panic names the
// stacks that allocated and released the buffer.
//
// A buffer the GC collects without its last Release is a leak. Every leak is
// counted (Stats.Leaks); leaks of tracked buffers are reported with the
// allocation stack and the last recorded accesses (see LeakLevel, Touch and
// SetLeakReporter). By default one get in 128 is tracked. Tests use
// buftest.CheckLeaks, which tracks everything and fails the test on a leak:
//
//	LEAK: a 320-byte buf.Buffer was garbage-collected without its last Release.
//	Allocated at:
//		example.com/proxy.(*conn).readFrame
//			/src/proxy/conn.go:88
//		...
//	Last accesses (newest first, 0 not kept):
//	#1 Touch "handed to the decoder":
//		...
//
// # Costs
//
// Get and Release are O(1): a sync.Pool operation each, and plain stores
// of the state word while one goroutine owns the buffer (a Get, the release
// of the last reference); a release that is not the last, and any release
// in the race build, is one compare-and-swap. Retain is one
// compare-and-swap. Stats is
// O(buffers alive) and allocates; it costs the hot path nothing, because
// gets are counted by the generation every hand-out bumps anyway. Each
// pooled buffer carries about 130 bytes of bookkeeping (a 64-byte header, a
// 64-byte shared state and a runtime cleanup), so for many tiny payloads one
// larger buffer is cheaper than many small ones. At the default leak level
// one get in 128 also records two stacks (where got, where released) by
// walking frame pointers into a reused record: no allocation.
//
// # Size classes, growth and statistics
//
// The default classes are carved, for the small ones, from 64 KiB chunks;
// a request above the largest class (64 KiB) gets an unpooled buffer.
// NewAllocator with WithMaxSize builds an allocator with other bounds. A
// buffer that outgrows its class moves to the next class that fits and
// returns the old block to its pool (see Buffer.Grow); a Get or Grow too
// large to honour panics with an error wrapping ErrTooLarge.
//
// The reference count is Netty's: an even/odd reference word plus a
// generation, in one atomic word, so Retain, Release and RefCount are
// race-safe and a stale handle is recognised. Allocator.Stats reports per
// class the gets, pool hits and misses, the bytes in use and pooled, and
// the number of leaks.
//
// The leak level is set by SetLeakLevel (LeakOff, LeakSampled, LeakAll) or
// by the environment variable NETKIT_LEAK=off|sampled|all at start-up;
// SetLeakReporter replaces the default reporter, which writes to standard
// error.
//
// # Composite internals
//
// A Composite has no component limit by default (WithMaxComponents sets
// one, past which Append consolidates). A read first tries the component of
// the last access; a random offset goes through a page index built on
// demand. Each component costs 40 bytes, plus up to 32 for the index.
// Fixed-width reads and the absolute Get and Put accessors straddle
// components. WriteTo hands up to 1024 components to one gathered write,
// resumes partial writes and releases the buffers written. Release
// releases every component, after which any use panics with ErrReleased;
// Discard(c.Len()) empties a composite and keeps it usable.
// ExampleComposite_frames is a whole server loop over loopback TCP:
// accumulate reads, parse length-prefixed frames whose prefix and body
// straddle reads, reply with one writev.
package buf
