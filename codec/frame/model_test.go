package frame_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// An event is what a decoder produced: a frame, or an error at an offset.
type event struct {
	frame string
	kind  error
	off   int
}

func (e event) String() string {
	if e.kind != nil {
		return fmt.Sprintf("err(%v @%d)", e.kind, e.off)
	}
	return fmt.Sprintf("%q", e.frame)
}

func errAt(kind error, off int) event { return event{kind: kind, off: off} }

// The models below are the slow references: each reads the whole stream at
// once, so no chunking can affect it, and states the decoder's contract as
// plainly as possible. They return the events a decoder fed the stream in
// any chunking must produce, with no end of stream: a frame still open at
// the end is reported only when FailFast already knows it is too long.

func modelLine(d frame.Line, data []byte) []event {
	limit := d.MaxFrameLength
	if limit <= 0 {
		limit = frame.DefaultMaxFrameLength
	}
	var out []event
	for pos := 0; ; {
		i := bytes.IndexByte(data[pos:], '\n')
		if i < 0 {
			content := len(data) - pos
			if content > 0 && data[len(data)-1] == '\r' {
				content--
			}
			if content > limit && d.FailFast {
				out = append(out, errAt(frame.ErrTooLong, pos))
			}
			return out
		}
		n, delim := i, 1
		if n > 0 && data[pos+n-1] == '\r' {
			n, delim = n-1, 2
		}
		switch {
		case n > limit:
			out = append(out, errAt(frame.ErrTooLong, pos))
		case d.StripDelimiter:
			out = append(out, event{frame: string(data[pos : pos+n])})
		default:
			out = append(out, event{frame: string(data[pos : pos+n+delim])})
		}
		pos += i + 1
	}
}

func modelFixed(length int, data []byte) []event {
	var out []event
	for pos := 0; pos+length <= len(data); pos += length {
		out = append(out, event{frame: string(data[pos : pos+length])})
	}
	return out
}

func modelLengthField(d frame.LengthField, data []byte) []event {
	size := d.Size
	if size == 0 {
		size = 4
	}
	limit := int64(d.MaxFrameLength)
	if limit <= 0 {
		limit = frame.DefaultMaxFrameLength
	}
	end := d.Offset + size
	var out []event
	for pos := 0; len(data)-pos >= end; {
		field := data[pos+d.Offset : pos+end]
		var v uint64
		for i := range field {
			b := field[i]
			if d.LittleEndian {
				b = field[len(field)-1-i]
			}
			v = v<<8 | uint64(b)
		}
		// The length in big integers, saturated at 2^63-1; a field of
		// 2^63 or more is negative to Netty: a bad length.
		l := new(big.Int).SetUint64(v)
		l.Add(l, big.NewInt(int64(d.Adjustment)+int64(end)))
		length := int64(math.MaxInt64)
		if l.IsInt64() {
			length = l.Int64()
		}
		rest := int64(len(data) - pos)
		switch {
		case v >= 1<<63 || length < int64(end):
			out = append(out, errAt(frame.ErrBadLength, pos))
			pos += end
		case length > limit:
			if length > rest {
				if d.FailFast {
					out = append(out, errAt(frame.ErrTooLong, pos))
				}
				return out
			}
			out = append(out, errAt(frame.ErrTooLong, pos))
			pos += int(length)
		case length > rest:
			return out
		case int64(d.Strip) > length:
			out = append(out, errAt(frame.ErrBadLength, pos))
			pos += int(length)
		default:
			out = append(out, event{frame: string(data[pos+d.Strip : pos+int(length)])})
			pos += int(length)
		}
	}
	return out
}

// modelDelimiter: a frame ends at the delimiter occurrence that starts
// first, the first listed at equal starts, once no delimiter that later
// bytes could complete would start earlier or take precedence.
func modelDelimiter(delims [][]byte, maxFrame int, strip, failFast bool, data []byte) []event {
	if maxFrame <= 0 {
		maxFrame = frame.DefaultMaxFrameLength
	}
	// pending reports a delimiter that data[t:] begins without completing.
	pending := func(t int, ok func(int) bool) bool {
		for j, p := range delims {
			if len(p) > len(data)-t && bytes.HasPrefix(p, data[t:]) && ok(j) {
				return true
			}
		}
		return false
	}
	var out []event
	for pos := 0; ; {
		t, pat := -1, -1
	search:
		for s := pos; s < len(data); s++ {
			for j, p := range delims {
				if bytes.HasPrefix(data[s:], p) {
					t, pat = s, j
					break search
				}
			}
		}
		settled := t >= 0
		for s := pos; settled && s <= t; s++ {
			if pending(s, func(j int) bool { return s < t || j < pat }) {
				settled = false
			}
		}
		if !settled {
			lb := len(data)
			for s := pos; s < len(data); s++ {
				if pending(s, func(int) bool { return true }) {
					lb = s
					break
				}
			}
			if t >= 0 {
				lb = min(lb, t)
			}
			if lb-pos > maxFrame && failFast {
				out = append(out, errAt(frame.ErrTooLong, pos))
			}
			return out
		}
		end := t + len(delims[pat])
		switch {
		case t-pos > maxFrame:
			out = append(out, errAt(frame.ErrTooLong, pos))
		case strip:
			out = append(out, event{frame: string(data[pos:t])})
		default:
			out = append(out, event{frame: string(data[pos:end])})
		}
		pos = end
	}
}

// A borrower is a decoder's Next.
type borrower interface {
	Next(in *buf.Composite) ([]byte, error)
}

// feedModes says how feed takes frames: by Decode, by Next, alternating,
// by Each (lent), or by Each with Retained (every frame kept, as a buffer,
// until the end: after later reads and after the composite's release).
var feedModes = []string{"Decode", "Next", "mixed", "Each", "Each+Retained"}

// An eacher is a decoder's batch path.
type eacher interface {
	Each(in *buf.Composite, f func([]byte) error) error
	Retained() *buf.Buffer
}

// feed runs dec over data cut into chunks of the given sizes (cycled) and
// returns its events, taking frames as feedModes[mode] says. It checks on
// the way that the composite never holds more than bound bytes plus the
// last chunk, that frames are released cleanly, and that frames kept by
// Retained still hold what was lent once everything else is gone.
func feed(t testing.TB, a *buf.Allocator, dec frame.Decoder, data []byte, chunks []int, bound, mode int) []event {
	t.Helper()
	in := buf.NewComposite(buf.WithAllocator(a))
	var out []event
	type keptFrame struct {
		b *buf.Buffer
		i int // its event
	}
	var kept []keptFrame
	calls := 0
	decode := func() (string, error) {
		calls++
		if mode == 1 || mode == 2 && calls%2 == 0 {
			p, err := dec.(borrower).Next(in)
			return string(p), err
		}
		var f *buf.Buffer
		err := dec.Decode(in, &f)
		if err != nil {
			return "", err
		}
		defer f.Release()
		return string(f.Bytes()), nil
	}
	each := func() error {
		e := dec.(eacher)
		return e.Each(in, func(p []byte) error {
			if mode == 4 {
				b := e.Retained()
				require.Equal(t, string(p), string(b.Bytes()), "Retained differs from the lent frame")
				kept = append(kept, keptFrame{b, len(out)})
			}
			out = append(out, event{frame: string(p)})
			return nil
		})
	}
	for pos, k := 0, 0; pos < len(data); k++ {
		n := min(chunks[k%len(chunks)], len(data)-pos)
		b := a.Get(n)
		b.Write(data[pos : pos+n])
		in.Append(b)
		pos += n
		for {
			var f string
			var err error
			if mode >= 3 {
				err = each()
				if err == nil {
					break
				}
			} else {
				f, err = decode()
				if err == frame.ErrShort {
					break
				}
			}
			if err != nil {
				var se *frame.SyntaxError
				require.ErrorAs(t, err, &se, "Decode error %v (%T), want a *frame.SyntaxError", err, err)
				out = append(out, errAt(se.Kind, se.Offset))
				continue
			}
			out = append(out, event{frame: f})
		}
		if in.Len() > bound+n { // per chunk: assert only to report
			require.LessOrEqual(t, in.Len(), bound+n, "the composite's bytes after a %d-byte chunk; the bound is %d plus the chunk", n, bound)
		}
	}
	in.Release()
	for _, k := range kept {
		require.Equal(t, out[k.i].frame, string(k.b.Bytes()), "a frame kept by Retained changed after later reads and the composite's release")
		k.b.Release()
	}
	return out
}

// chunkings returns cuttings of a stream: one byte at a time, the whole
// stream at once, and random sizes in ranges up to 64 KiB.
func chunkings(r *rand.Rand, total int) [][]int {
	out := [][]int{{1}, {max(total, 1)}}
	for _, hi := range []int{2, 7, 64, 1000, 64 << 10} {
		c := make([]int, 1+r.IntN(16))
		for i := range c {
			c[i] = 1 + r.IntN(hi)
		}
		out = append(out, c)
	}
	return out
}

func sameEvents(t testing.TB, what string, got, want []event) {
	t.Helper()
	same := slices.EqualFunc(got, want, func(a, b event) bool { return a.frame == b.frame && a.kind == b.kind && a.off == b.off })
	require.Truef(t, same, "%s:\n got %v\nwant %v", what, clip(got), clip(want))
}

func clip(e []event) []event {
	if len(e) > 40 {
		return e[:40]
	}
	return e
}

// lengthFrames writes frames for d: each a header (Offset filler bytes and
// the field) and a body, the field made with AppendLengthField.
func lengthFrames(t testing.TB, d *frame.LengthField, bodies ...[]byte) []byte {
	var out []byte
	for _, b := range bodies {
		out = append(out, bytes.Repeat([]byte{'h'}, d.Offset)...)
		var err error
		out, err = frame.AppendLengthField(out, d, len(b))
		require.NoError(t, err, "AppendLengthField(%d)", len(b))
		out = append(out, b...)
	}
	return out
}

var _ = binary.BigEndian
