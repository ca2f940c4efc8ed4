package buf_test

import (
	"fmt"
	"log"

	"github.com/netkit/netkit/buf"
)

// A buffer from Get holds a length-prefixed message, which is read back and
// the buffer released.
func ExampleGet() {
	b := buf.Get(64)
	msg := "hello, netkit"
	b.WriteUint16(uint16(len(msg)))
	b.WriteString(msg)

	n, err := b.ReadUint16()
	if err != nil {
		log.Fatal(err)
	}
	body, err := b.Next(int(n)) // valid until the next write or Release
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d bytes: %s\n", n, body)
	b.Release()
	// Output: 13 bytes: hello, netkit
}

// Slice hands out part of a buffer without copying. The view shares the
// buffer's reference: it is valid while the owner holds it.
func ExampleBuffer_Slice() {
	b := buf.Get(64)
	b.WriteString("HDR:payload")

	hdr := b.Slice(0, 3) // no reference of its own
	fmt.Printf("%s, %d reference\n", hdr.Bytes(), b.RefCount())
	b.Release() // ends b and hdr
	// Output:
	// HDR, 1 reference
}

// RetainedSlice hands out part of a buffer without copying, with a
// reference of its own, so the view outlives its owner's Release.
func ExampleBuffer_RetainedSlice() {
	b := buf.Get(64)
	b.WriteString("HDR:payload")

	payload := b.RetainedSlice(4, 7) // a second reference, held by the view
	b.Skip(b.Len())                  // the owner is done with the message
	fmt.Println(b.Release())         // not the last reference

	fmt.Printf("%s, %d reference\n", payload.Bytes(), payload.RefCount())
	fmt.Println(payload.Release()) // the last: the memory goes back to the pool
	// Output:
	// false
	// payload, 1 reference
	// true
}

// Retain gives a buffer a second owner; each owner releases its reference
// and the last Release returns the memory.
func ExampleBuffer_Retain() {
	b := buf.Get(16)
	b.WriteString("shared")

	owners := []string{"logger", "sender"}
	b.Retain() // one reference per owner
	for _, name := range owners {
		fmt.Printf("%s read %q\n", name, b.Bytes())
		fmt.Println("last release:", b.Release()) // Bytes is invalid after the last
	}
	// Output:
	// logger read "shared"
	// last release: false
	// sender read "shared"
	// last release: true
}

// Wrap turns a caller's slice into a Buffer: the readable bytes are the
// slice, and writes go to its spare capacity until the buffer must grow.
func ExampleWrap() {
	p := make([]byte, 0, 16)
	p = append(p, "GET /"...)
	b := buf.Wrap(p)
	b.WriteString(" HTTP/1.1")

	fmt.Printf("%s\n", b.Bytes())
	fmt.Printf("%s\n", p[:b.Len()]) // same memory
	b.Release()                     // nothing to return: p belongs to the caller
	// Output:
	// GET / HTTP/1.1
	// GET / HTTP/1.1
}

// Stats reports an allocator's activity. Only counts that do not depend on
// the pool are printed: whether a released buffer comes back from the pool
// varies (sync.Pool drops items under the race detector, and the
// invariants build never recycles).
func ExampleAllocator_Stats() {
	a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
	b := a.Get(100) // the first get of a fresh allocator is a miss
	s := a.Stats().Total()
	fmt.Printf("gets %d, misses %d, in use %d bytes\n", s.Gets, s.Misses, s.InUse)

	b.Release()
	b = a.Get(100) // a hit or a miss: the pool decides
	s = a.Stats().Total()
	fmt.Printf("gets %d, in use %d bytes\n", s.Gets, s.InUse)
	b.Release()
	// Output:
	// gets 1, misses 1, in use 112 bytes
	// gets 2, in use 112 bytes
}

// SetLeakReporter installs a function that receives a report for each
// tracked buffer that the GC collects without its last Release. Reports
// arrive on the runtime's cleanup goroutine, whenever the GC gets to them.
func ExampleSetLeakReporter() {
	prevLevel := buf.SetLeakLevel(buf.LeakAll) // track every buffer
	prev := buf.SetLeakReporter(func(l *buf.Leak) {
		log.Printf("netkit: %d-byte buffer leaked; allocated at:\n%s", l.Size, l.Alloc)
	})
	defer func() {
		buf.SetLeakReporter(prev)
		buf.SetLeakLevel(prevLevel)
	}()

	b := buf.Get(32)
	b.Touch("request parsed") // shows up among the report's last accesses
	b.Release()               // released: never reported
}
