package buf

import (
	"math"

	"github.com/netkit/netkit/internal/invariants"
)

// Cap returns the capacity of the memory behind b. Writes fit without
// growing while Len plus the bytes already consumed stays within it.
func (b *Buffer) Cap() int {
	b.check()
	return len(b.b)
}

// Grow makes sure n more bytes can be written without another allocation.
// It panics with ErrFixed on a view made by Slice that lacks the room, and
// with an error wrapping ErrTooLarge when Len()+n overflows an int or is
// more than the runtime can allocate; it panics if n is negative.
//
// Growth policy: if the bytes already consumed are at least as many as the
// readable bytes and the write then fits, the readable bytes slide to the
// front (amortized O(1) per byte) — or, while Slice views of the memory
// exist, move to a fresh block of the same size so the views keep their
// bytes. Otherwise capacity becomes max(needed, 2×Cap), taken from the
// allocator's next fitting class. The old block goes back to its pool, or
// to the GC once views of it are gone. Past the allocator's largest class
// the buffer continues unpooled.
func (b *Buffer) Grow(n int) {
	b.check()
	if n < 0 {
		panic("buf: Grow with negative count")
	}
	if n > len(b.b)-b.w {
		b.mustGrow(n)
	}
}

// grow makes room for n more bytes after the writer index (see Grow for the
// policy). It returns ErrFixed for a view without room.
func (b *Buffer) grow(n int) error {
	old, err := b.growKeep(n)
	putBack(old)
	return err
}

// growKeep is grow for a caller that may still be reading the memory b grows
// out of (Write of b's own bytes): instead of returning the old block to its
// pool it returns the block's carrier, for putBack once the caller is done.
func (b *Buffer) growKeep(n int) (*Buffer, error) {
	if b.fixed {
		return nil, ErrFixed
	}
	readable := b.w - b.r
	if n > math.MaxInt-readable {
		panic(tooLarge(n, readable))
	}
	need := readable + n
	var newCap int
	switch {
	case need <= len(b.b) && b.r >= readable && !b.sliced:
		copy(b.b, b.b[b.r:b.w])
		b.r, b.w = 0, readable
		return nil, nil
	case need <= len(b.b) && b.r >= readable:
		// Sliding would change bytes that Slice views read: move to a fresh
		// block of the same size and leave the old one to the views.
		newCap = len(b.b)
	case len(b.b) > math.MaxInt/2:
		newCap = need
	default:
		newCap = max(need, 2*len(b.b))
	}
	if a := b.m.a; a != nil {
		return a.regrow(b, newCap), nil
	}
	p := makeBlock(newCap)
	copy(p, b.b[b.r:b.w])
	b.b, b.r, b.w, b.sliced = p, 0, readable, false
	return nil, nil
}

func (b *Buffer) mustGrow(n int) {
	if err := b.grow(n); err != nil {
		panic(err)
	}
}

// room returns the n bytes after the writer index, growing b if needed, and
// moves the writer index past them. It panics with ErrFixed on a view
// without room.
func (b *Buffer) room(n int) []byte {
	b.check()
	if n > len(b.b)-b.w {
		b.mustGrow(n)
	}
	p := b.b[b.w : b.w+n]
	b.w += n
	return p
}

// makeBlock returns n zeroed bytes for an unpooled block. A size beyond
// what the runtime can allocate panics with an error wrapping ErrTooLarge
// instead of the runtime's makeslice error, as bytes.Buffer does; a size
// it could address but the machine cannot supply still ends the program.
func makeBlock(n int) (p []byte) {
	defer func() {
		if r := recover(); r != nil {
			panic(tooLarge(n, 0))
		}
	}()
	return make([]byte, n)
}

// tooLarge is the panic value for a buffer of readable+n bytes that cannot
// be made.
func tooLarge(n, readable int) error {
	if readable == 0 {
		return &detailError{ErrTooLarge, ": " + itoa(n) + " bytes"}
	}
	return &detailError{ErrTooLarge, ": " + itoa(n) + " bytes after " + itoa(readable) + " readable"}
}

// regrow moves b to memory of at least newCap bytes, keeping its readable
// bytes. It returns the carrier of the old block — a released header of the
// old class holding it — for putBack, or nil when the old block must not be
// reused because Slice views of it exist (the GC takes it after them).
func (a *Allocator) regrow(b *Buffer, newCap int) *Buffer {
	old := b.b
	var nb *Buffer
	if newCap <= a.maxSize {
		nb = a.take(classOf(newCap))
		copy(nb.b, b.b[b.r:b.w])
		b.b, nb.b = nb.b, old
		a.reg.swap(b.m, nb.m)
	} else {
		p := makeBlock(newCap)
		copy(p, b.b[b.r:b.w])
		b.b = p
		a.reg.reclass(b.m, classLarge, newCap)
	}
	b.w -= b.r
	b.r = 0
	sliced := b.sliced
	b.sliced = false
	if nb == nil || sliced {
		return nil
	}
	return nb
}

// putBack returns a carrier from regrow to its pool; in the invariants build
// it poisons the block instead, so stale views of it read 0xDE.
func putBack(c *Buffer) {
	if c == nil {
		return
	}
	if invariants.Enabled {
		fill(c.b, poison)
		return
	}
	c.m.a.pools[c.m.class].Put(c)
}
