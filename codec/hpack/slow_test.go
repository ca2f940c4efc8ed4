package hpack

import (
	"math"
	"slices"
)

// slowDecoder is a reference model of Decoder without validation: the
// dynamic table a slice of copied entries (newest first), integers and
// strings read one byte at a time, no arena, no fragments. It returns the
// fields of a block, the first stream-level violation and the first
// connection-level one.
type slowDecoder struct {
	entries    [][2][]byte
	max, bound int
	maxList    int
	maxFields  int
	maxString  int
	mustUpdate bool
	lowest     int
	broken     bool
}

func newSlowDecoder(maxTable, maxList, maxFields, maxString int) *slowDecoder {
	// The table starts at the protocol's initial size, or the bound if lower.
	return &slowDecoder{max: min(maxTable, 4096), bound: maxTable, maxList: maxList, maxFields: maxFields, maxString: maxString}
}

type slowField struct {
	name, value string
	sensitive   bool
}

func (s *slowDecoder) size() int {
	n := 0
	for _, e := range s.entries {
		n += len(e[0]) + len(e[1]) + 32
	}
	return n
}

func (s *slowDecoder) evict(limit int) {
	for s.size() > limit {
		s.entries = s.entries[:len(s.entries)-1]
	}
}

func (s *slowDecoder) setBound(n int) {
	if n < s.max {
		s.max = n
		s.evict(n)
		if !s.mustUpdate || n < s.lowest {
			s.lowest = n
		}
		s.mustUpdate = true
	}
	s.bound = n
}

// decode returns the fields emitted (none after a stream-level fault), the
// stream-level violation and the connection-level one.
func (s *slowDecoder) decode(block []byte) (out []slowField, stream, conn *Violation) {
	if s.broken {
		return nil, nil, ErrBlockUnfinished // any error: the model only says "still broken"
	}
	defer func() {
		if conn != nil {
			s.broken = true
		}
	}()
	pos := 0
	next := func() (byte, bool) {
		if pos >= len(block) {
			return 0, false
		}
		pos++
		return block[pos-1], true
	}
	integer := func(first byte, bits uint) (int, *Violation) {
		limit := 1<<bits - 1
		v := int(first) & limit
		if v < limit {
			return v, nil
		}
		x := int64(v)
		for k := 0; ; k++ {
			b, ok := next()
			if !ok {
				return 0, ErrTruncated
			}
			if k == 5 {
				return 0, ErrIntegerOverflow
			}
			x += int64(b&0x7f) << (7 * k)
			// 2^32-1 at most, and no more than an int holds (386).
			if x > 1<<32-1 || x > math.MaxInt {
				return 0, ErrIntegerOverflow
			}
			if b&0x80 == 0 {
				return int(x), nil
			}
		}
	}
	str := func() ([]byte, *Violation) {
		first, ok := next()
		if !ok {
			return nil, ErrTruncated
		}
		n, bad := integer(first, 7)
		if bad != nil {
			return nil, bad
		}
		huff := first&0x80 != 0
		least := n
		if huff {
			least = (8*n - 7) / 30
		}
		if least > s.maxString {
			return nil, ErrStringTooLong
		}
		if len(block)-pos < n {
			return nil, ErrTruncated
		}
		raw := block[pos : pos+n]
		pos += n
		if !huff {
			return slices.Clone(raw), nil
		}
		out, err := huffmanDecode(nil, raw)
		if err != nil {
			return nil, err.(*Violation)
		}
		if len(out) > s.maxString {
			return nil, ErrStringTooLong
		}
		return out, nil
	}
	entry := func(i int) ([]byte, []byte, *Violation) {
		switch {
		case i == 0:
			return nil, nil, ErrIndexZero
		case i <= len(staticTable):
			return []byte(staticTable[i-1].name), []byte(staticTable[i-1].value), nil
		case i-len(staticTable) <= len(s.entries):
			e := s.entries[i-len(staticTable)-1]
			return e[0], e[1], nil
		}
		return nil, nil, ErrIndexRange
	}
	fields, listSize, updates, started := 0, 0, 0, false
	for pos < len(block) {
		b, _ := next()
		if b&0xe0 == 0x20 {
			n, bad := integer(b, 5)
			switch {
			case bad != nil:
				return out, stream, bad
			case started:
				return out, stream, ErrSizeUpdateLate
			case updates == 2:
				return out, stream, ErrSizeUpdateMany
			case n > s.bound:
				return out, stream, ErrSizeUpdateLarge
			}
			updates++
			if n <= s.lowest {
				s.mustUpdate = false
			}
			s.max = n
			s.evict(n)
			continue
		}
		var bits uint = 4
		switch {
		case b&0x80 != 0:
			bits = 7
		case b&0x40 != 0:
			bits = 6
		}
		i, bad := integer(b, bits)
		if bad != nil {
			return out, stream, bad
		}
		if !started {
			started = true
			if s.mustUpdate {
				return out, stream, ErrSizeUpdateMissed
			}
		}
		var name, value []byte
		if bits == 7 {
			if name, value, bad = entry(i); bad != nil {
				return out, stream, bad
			}
		} else {
			if i == 0 {
				if name, bad = str(); bad != nil {
					return out, stream, bad
				}
			} else if name, _, bad = entry(i); bad != nil {
				return out, stream, bad
			}
			if value, bad = str(); bad != nil {
				return out, stream, bad
			}
			name = slices.Clone(name)
		}
		fields++
		listSize += len(name) + len(value) + 32
		if stream == nil {
			switch {
			case fields > s.maxFields:
				stream = ErrTooManyFields
			case listSize > s.maxList:
				stream = ErrListTooLarge
			default:
				out = append(out, slowField{string(name), string(value), bits == 4 && b&0x10 != 0})
			}
		}
		if bits == 6 {
			size := len(name) + len(value) + 32
			if size > s.max {
				s.entries = nil
			} else {
				s.evict(s.max - size)
				s.entries = append([][2][]byte{{name, value}}, s.entries...)
			}
		}
	}
	return out, stream, nil
}
