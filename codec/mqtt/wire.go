package mqtt

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/netkit/netkit/codec/internal/ascii"
)

// A reader walks one whole packet (its fixed header included, so offsets
// in errors count from the packet's first byte). Its methods return zero
// values once the input is exhausted or invalid; the first violation and
// its offset are kept, and the caller checks err when it is done.
type reader struct {
	p   []byte
	i   int
	err *Violation
	at  int
}

// fail records v at the current offset, unless an earlier error is kept.
func (r *reader) fail(v *Violation) { r.failAt(v, r.i) }

func (r *reader) failAt(v *Violation, at int) {
	if r.err == nil {
		r.err, r.at = v, at
	}
	r.i = len(r.p) // stop every later read
}

// need reports whether n more bytes lie in the packet; a field that runs
// past the packet's end is malformed (the remaining length was too short).
func (r *reader) need(n int) bool {
	if len(r.p)-r.i >= n {
		return true
	}
	r.fail(ErrMalformed)
	return false
}

func (r *reader) u8() byte {
	if !r.need(1) {
		return 0
	}
	c := r.p[r.i]
	r.i++
	return c
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := uint16(r.p[r.i])<<8 | uint16(r.p[r.i+1])
	r.i += 2
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	p := r.p[r.i : r.i+4]
	r.i += 4
	return uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3])
}

// varInt reads a Variable Byte Integer (§1.5.5).
func (r *reader) varInt() uint32 {
	v, n, err := varInt(r.p[r.i:])
	switch {
	case err != nil:
		r.fail(err)
		return 0
	case n == 0:
		r.fail(ErrMalformed)
		return 0
	}
	r.i += n
	return v
}

// bin reads Binary Data: a two-byte length and that many bytes, aliased.
func (r *reader) bin() []byte {
	n := int(r.u16())
	if !r.need(n) {
		return nil
	}
	b := r.p[r.i : r.i+n : r.i+n]
	r.i += n
	return b
}

// str reads a UTF-8 Encoded String and checks it (§1.5.4).
func (r *reader) str() []byte {
	at := r.i + 2
	s := r.bin()
	if err := checkString(s); err != nil {
		r.failAt(err, at)
	}
	return s
}

// varInt decodes a Variable Byte Integer from the front of p: its value and
// length, or n == 0 when p ends inside it. It rejects a fifth byte and an
// encoding longer than the value needs.
func varInt(p []byte) (v uint32, n int, err *Violation) {
	if len(p) > 0 && p[0] < 0x80 {
		return uint32(p[0]), 1, nil
	}
	for i := 0; i < 4; i++ {
		if i == len(p) {
			return 0, 0, nil
		}
		c := p[i]
		v |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			if c == 0 && i > 0 {
				return 0, 0, ErrVarIntLong
			}
			return v, i + 1, nil
		}
	}
	return 0, 0, ErrVarInt
}

// varIntLen returns the length of v's Variable Byte Integer; v must be
// below 2^28.
func varIntLen(v int) int {
	switch {
	case v < 1<<7:
		return 1
	case v < 1<<14:
		return 2
	case v < 1<<21:
		return 3
	}
	return 4
}

func appendVarInt(dst []byte, v int) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

// MaxVarInt is the largest value a Variable Byte Integer holds, and so the
// largest remaining length: 268,435,455 (256 MiB − 1).
const MaxVarInt = 1<<28 - 1

// Byte classes for the string checks: a byte of a topic name is fine (0),
// U+0000, a wildcard, or the start of a multi-byte sequence (≥ 0x80).
const (
	clsNull = 1 + iota
	clsWild
	clsHigh
)

var byteClass = func() (t [256]byte) {
	t[0] = clsNull
	t['+'], t['#'] = clsWild, clsWild
	for c := 0x80; c < 256; c++ {
		t[c] = clsHigh
	}
	return t
}()

// checkString checks a UTF-8 Encoded String: well-formed UTF-8 (which
// excludes surrogates) and no U+0000.
func checkString(s []byte) *Violation { return check(s, false) }

// checkTopic checks a Topic Name: a string without wildcards. An empty
// name passes; the caller decides whether it may be empty.
func checkTopic(s []byte) *Violation { return check(s, true) }

// check is checkString, and checkTopic when topic is set. ASCII goes eight
// bytes at a time; a word holding a byte to look at goes to the byte loop.
func check(s []byte, topic bool) *Violation {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		bad := w | ascii.HasZero(w)
		if topic {
			bad |= ascii.HasByte(w, '+') | ascii.HasByte(w, '#')
		}
		if bad&ascii.Hi8 != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		switch byteClass[s[i]] {
		case clsNull:
			return ErrNullChar
		case clsWild:
			if topic {
				return ErrTopicWildcard
			}
		case clsHigh:
			return checkTail(s[i:], topic)
		}
	}
	return nil
}

// checkTail checks s from its first non-ASCII byte on.
func checkTail(s []byte, topic bool) *Violation {
	if !utf8.Valid(s) {
		return ErrBadUTF8
	}
	// '+', '#' and 0 never occur inside a multi-byte sequence.
	for _, c := range s {
		switch byteClass[c] {
		case clsNull:
			return ErrNullChar
		case clsWild:
			if topic {
				return ErrTopicWildcard
			}
		}
	}
	return nil
}

// checkFilter checks a Topic Filter (§4.7): a non-empty string whose '#'
// is alone in the last level and whose '+' are alone in their levels, and,
// in MQTT 5.0, a shared subscription's share name (§4.8.2). It reports
// whether the filter is a shared subscription.
func checkFilter(s []byte, v Version) (shared bool, err *Violation) {
	if len(s) == 0 {
		return false, ErrTopicEmpty
	}
	if err := checkString(s); err != nil {
		return false, err
	}
	for i, c := range s {
		switch c {
		case '#':
			if i != len(s)-1 || i > 0 && s[i-1] != '/' {
				return false, ErrFilterMultiWild
			}
		case '+':
			if i > 0 && s[i-1] != '/' || i < len(s)-1 && s[i+1] != '/' {
				return false, ErrFilterWild
			}
		}
	}
	const share = "$share/"
	if v != V5 || len(s) < len(share) || string(s[:len(share)]) != share {
		return false, nil
	}
	rest := s[len(share):]
	for i, c := range rest {
		switch c {
		case '+', '#':
			return true, ErrShareName
		case '/':
			if i == 0 || i == len(rest)-1 {
				return true, ErrShareName
			}
			return true, nil
		}
	}
	return true, ErrShareName
}

// appendString appends a two-byte length and s; the caller checked that s
// fits.
func appendString(dst, s []byte) []byte {
	dst = append(dst, byte(len(s)>>8), byte(len(s)))
	return append(dst, s...)
}

func appendU16(dst []byte, v uint16) []byte { return append(dst, byte(v>>8), byte(v)) }

func appendU32(dst []byte, v uint32) []byte {
	return append(dst, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}
