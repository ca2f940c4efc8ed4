package buf_test

import (
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"

	"github.com/netkit/netkit/buf"
)

// modelBuffer is a slow, obviously correct reference for the byte semantics
// of buf.Buffer, for FuzzBuffer: it keeps everything written since the last
// Reset and the offset of the next byte to read. It never slides, grows in
// classes, pools or aliases memory, so none of buf's cleverness is copied.
type modelBuffer struct {
	data []byte // every byte written since the last Reset
	r    int    // read offset into data
}

// Len returns the number of unread bytes.
func (m *modelBuffer) Len() int { return len(m.data) - m.r }

// Bytes returns a copy of the unread bytes.
func (m *modelBuffer) Bytes() []byte {
	p := make([]byte, 0, m.Len())
	for i := m.r; i < len(m.data); i++ {
		p = append(p, m.data[i])
	}
	return p
}

// Write appends p.
func (m *modelBuffer) Write(p []byte) { m.data = append(m.data, p...) }

// Reset forgets everything.
func (m *modelBuffer) Reset() { m.data, m.r = nil, 0 }

// Next consumes n bytes and returns a copy, or consumes nothing and returns
// io.EOF when nothing is unread and io.ErrUnexpectedEOF when too little is.
func (m *modelBuffer) Next(n int) ([]byte, error) {
	if m.Len() < n {
		if m.Len() == 0 {
			return nil, io.EOF
		}
		return nil, io.ErrUnexpectedEOF
	}
	p := m.Bytes()[:n]
	m.r += n
	return p, nil
}

// Read consumes up to len(p) bytes into p, as io.Reader.
func (m *modelBuffer) Read(p []byte) (int, error) {
	if m.Len() == 0 {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && m.r < len(m.data) {
		p[n] = m.data[m.r]
		n++
		m.r++
	}
	return n, nil
}

// Get returns a copy of the n unread bytes at offset i; the caller keeps
// them in range.
func (m *modelBuffer) Get(i, n int) []byte { return m.Bytes()[i : i+n] }

// Put overwrites the unread bytes at offset i with p.
func (m *modelBuffer) Put(i int, p []byte) {
	for j, c := range p {
		m.data[m.r+i+j] = c
	}
}

// Slice returns a model of the n unread bytes at offset i.
func (m *modelBuffer) Slice(i, n int) *modelBuffer {
	return &modelBuffer{data: m.Get(i, n)}
}

// A codec is one fixed-width integer encoding with its Write, Read, Get and
// Put methods, checked against encoding/binary.
type codec struct {
	name  string
	size  int
	order interface {
		binary.ByteOrder
		binary.AppendByteOrder
	}
	write func(b *buf.Buffer, v uint64)
	read  func(b *buf.Buffer) (uint64, error)
	get   func(b *buf.Buffer, i int) uint64
	put   func(b *buf.Buffer, i int, v uint64)
}

var codecs = []codec{
	{"Uint16", 2, binary.BigEndian,
		func(b *buf.Buffer, v uint64) { b.WriteUint16(uint16(v)) },
		func(b *buf.Buffer) (uint64, error) { v, err := b.ReadUint16(); return uint64(v), err },
		func(b *buf.Buffer, i int) uint64 { return uint64(b.GetUint16(i)) },
		func(b *buf.Buffer, i int, v uint64) { b.PutUint16(i, uint16(v)) }},
	{"Uint32", 4, binary.BigEndian,
		func(b *buf.Buffer, v uint64) { b.WriteUint32(uint32(v)) },
		func(b *buf.Buffer) (uint64, error) { v, err := b.ReadUint32(); return uint64(v), err },
		func(b *buf.Buffer, i int) uint64 { return uint64(b.GetUint32(i)) },
		func(b *buf.Buffer, i int, v uint64) { b.PutUint32(i, uint32(v)) }},
	{"Uint64", 8, binary.BigEndian,
		func(b *buf.Buffer, v uint64) { b.WriteUint64(v) },
		func(b *buf.Buffer) (uint64, error) { return b.ReadUint64() },
		func(b *buf.Buffer, i int) uint64 { return b.GetUint64(i) },
		func(b *buf.Buffer, i int, v uint64) { b.PutUint64(i, v) }},
	{"Uint16LE", 2, binary.LittleEndian,
		func(b *buf.Buffer, v uint64) { b.WriteUint16LE(uint16(v)) },
		func(b *buf.Buffer) (uint64, error) { v, err := b.ReadUint16LE(); return uint64(v), err },
		func(b *buf.Buffer, i int) uint64 { return uint64(b.GetUint16LE(i)) },
		func(b *buf.Buffer, i int, v uint64) { b.PutUint16LE(i, uint16(v)) }},
	{"Uint32LE", 4, binary.LittleEndian,
		func(b *buf.Buffer, v uint64) { b.WriteUint32LE(uint32(v)) },
		func(b *buf.Buffer) (uint64, error) { v, err := b.ReadUint32LE(); return uint64(v), err },
		func(b *buf.Buffer, i int) uint64 { return uint64(b.GetUint32LE(i)) },
		func(b *buf.Buffer, i int, v uint64) { b.PutUint32LE(i, uint32(v)) }},
	{"Uint64LE", 8, binary.LittleEndian,
		func(b *buf.Buffer, v uint64) { b.WriteUint64LE(v) },
		func(b *buf.Buffer) (uint64, error) { return b.ReadUint64LE() },
		func(b *buf.Buffer, i int) uint64 { return b.GetUint64LE(i) },
		func(b *buf.Buffer, i int, v uint64) { b.PutUint64LE(i, v) }},
}

// mask returns the bits of a uint64 that the codec keeps.
func (c codec) mask() uint64 { return math.MaxUint64 >> (64 - 8*c.size) }

// encode appends v's encoding to dst with encoding/binary.
func (c codec) encode(dst []byte, v uint64) []byte {
	switch c.size {
	case 2:
		return c.order.AppendUint16(dst, uint16(v))
	case 4:
		return c.order.AppendUint32(dst, uint32(v))
	}
	return c.order.AppendUint64(dst, v)
}

// decode decodes p[:c.size] with encoding/binary.
func (c codec) decode(p []byte) uint64 {
	switch c.size {
	case 2:
		return uint64(c.order.Uint16(p))
	case 4:
		return uint64(c.order.Uint32(p))
	}
	return c.order.Uint64(p)
}

// testValues are edge values followed by random ones from a fixed seed.
func testValues() []uint64 {
	vs := []uint64{0, 1, 0xFF, 0x0102, 0x01020304, 0x0102030405060708, 0x8000000000000000,
		math.MaxUint16, math.MaxUint32, math.MaxUint64, 0xFFFFFFFF00000000}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		vs = append(vs, r.Uint64())
	}
	return vs
}
