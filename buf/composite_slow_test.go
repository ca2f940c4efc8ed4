package buf_test

import "io"

// compModel is a slow, obviously correct reference for the byte semantics
// of buf.Composite: the readable bytes laid end to end in one flat slice.
// It has no components, seams, scratch areas or reference counts, so none
// of Composite's bookkeeping is copied; FuzzComposite and the table tests
// check the composite against it.
type compModel struct {
	data []byte // the readable bytes
}

// Len returns the number of readable bytes.
func (m *compModel) Len() int { return len(m.data) }

// Bytes returns a copy of the readable bytes.
func (m *compModel) Bytes() []byte {
	return append([]byte(nil), m.data...)
}

// Append adds p at the end.
func (m *compModel) Append(p []byte) { m.Insert(len(m.data), p) }

// Insert inserts p at offset off, 0 ≤ off ≤ Len.
func (m *compModel) Insert(off int, p []byte) {
	d := make([]byte, 0, len(m.data)+len(p))
	d = append(d, m.data[:off]...)
	d = append(d, p...)
	d = append(d, m.data[off:]...)
	m.data = d
}

// Reset forgets everything.
func (m *compModel) Reset() { m.data = nil }

// short is the error of a read that wants more than Len bytes.
func (m *compModel) short() error {
	if len(m.data) == 0 {
		return io.EOF
	}
	return io.ErrUnexpectedEOF
}

// Next consumes n bytes and returns a copy of them, or consumes nothing and
// returns io.EOF (nothing readable) or io.ErrUnexpectedEOF (too little).
func (m *compModel) Next(n int) ([]byte, error) {
	if n > len(m.data) {
		return nil, m.short()
	}
	p := m.Bytes()[:n]
	m.data = m.data[n:]
	return p, nil
}

// Read consumes up to len(p) bytes into p, as io.Reader.
func (m *compModel) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(m.data) == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && n < len(m.data) {
		p[n] = m.data[n]
		n++
	}
	m.data = m.data[n:]
	return n, nil
}

// Get returns a copy of the n readable bytes at offset i; the caller keeps
// them in range.
func (m *compModel) Get(i, n int) []byte { return m.Bytes()[i : i+n] }

// Put overwrites the readable bytes at offset i with p.
func (m *compModel) Put(i int, p []byte) {
	for j, c := range p {
		m.data[i+j] = c
	}
}

// Slice returns a model of the n readable bytes at offset i.
func (m *compModel) Slice(i, n int) *compModel { return &compModel{data: m.Get(i, n)} }

// Index returns the offset of the first instance of needle, or -1, by
// trying every offset in turn.
func (m *compModel) Index(needle []byte) int {
	for i := 0; i+len(needle) <= len(m.data); i++ {
		match := true
		for j, c := range needle {
			if m.data[i+j] != c {
				match = false
				break
			}
		}
		if match {
			return i
		}
	}
	return -1
}
