package frame_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// A LengthField whose header (Offset + Size) is longer than MaxFrameLength
// could only read its length field by holding more than the cap: it is
// refused, and consumes nothing. Before the fix it returned ErrShort while
// the composite grew to Offset + Size bytes, past its documented bound.
func TestLengthFieldHeaderOverCap(t *testing.T) {
	for _, d := range []frame.LengthField{
		{Offset: 100, Size: 4, MaxFrameLength: 50},
		{Offset: 1, Size: 8, MaxFrameLength: 8},
		{Offset: frame.DefaultMaxFrameLength, Size: 1},
	} {
		t.Run(fmt.Sprintf("Offset=%d/Size=%d/Max=%d", d.Offset, d.Size, d.MaxFrameLength), func(t *testing.T) {
			cap := capOr(d.MaxFrameLength)
			in := buf.NewComposite()
			defer in.Release()
			step := max(1, cap/64) // reads of step bytes
			junk := bytes.Repeat([]byte{0}, cap+4*step)
			for i := 0; i < len(junk); i += step {
				in.Append(buf.Wrap(junk[i : i+step]))
				err := d.Decode(in, new(*buf.Buffer))
				if err == frame.ErrShort {
					// The package's bound: the cap plus the last read.
					require.LessOrEqual(t, in.Len(), cap+step, "ErrShort with %d bytes held, past the cap of %d", in.Len(), cap)
					continue
				}
				require.ErrorIs(t, err, frame.ErrConfig)
				require.Equal(t, i+step, in.Len(), "a refused configuration consumes nothing")
				_, err = d.Next(in)
				require.ErrorIs(t, err, frame.ErrConfig)
				require.Equal(t, i+step, in.Len())
			}
		})
	}
}

// An 8-byte length field of 2^63 or more is negative as the signed 64-bit
// length Netty reads: the frame cannot exist, and it is reported at once
// as ErrBadLength (its header skipped), FailFast or not. Before the fix it
// was taken as too long, and without FailFast the decoder discarded the
// rest of the stream in silence, waiting for 2^63 bytes to pass.
func TestLengthFieldNegativeLength(t *testing.T) {
	next := "\x00\x00\x00\x00\x00\x00\x00\x02ok" // a frame: header and "ok"
	for _, c := range []struct {
		name   string
		d      frame.LengthField
		stream string
		want   []string
	}{
		{"2^63", frame.LengthField{Size: 8}, "\x80\x00\x00\x00\x00\x00\x00\x00" + next, []string{"err frame: bad length field @0", next}},
		{"2^64-1", frame.LengthField{Size: 8}, "\xff\xff\xff\xff\xff\xff\xff\xff" + next, []string{"err frame: bad length field @0", next}},
		{"2^64-1 fail fast", frame.LengthField{Size: 8, FailFast: true}, "\xff\xff\xff\xff\xff\xff\xff\xff" + next, []string{"err frame: bad length field @0", next}},
		{"2^63 little-endian, offset", frame.LengthField{Size: 8, Offset: 2, LittleEndian: true, Adjustment: math.MinInt}, "hh\x00\x00\x00\x00\x00\x00\x00\x80", []string{"err frame: bad length field @0"}},
		// 2^63-1 is a length, far too long: ErrTooLong, reported once the
		// length is read with FailFast.
		{"2^63-1 fail fast", frame.LengthField{Size: 8, FailFast: true}, "\x7f\xff\xff\xff\xff\xff\xff\xff" + next, []string{"err frame: frame too long @0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := buf.NewComposite()
			defer in.Release()
			d := c.d
			var got []string
			for i := range len(c.stream) { // a byte at a time
				in.Append(buf.Wrap([]byte(c.stream[i : i+1])))
				for {
					var f *buf.Buffer
					err := d.Decode(in, &f)
					if err == frame.ErrShort {
						break
					}
					if err != nil {
						var se *frame.SyntaxError
						require.True(t, errors.As(err, &se), "%v is not a *SyntaxError", err)
						got = append(got, fmt.Sprintf("err %v @%d", se.Kind, se.Offset))
						continue
					}
					got = append(got, string(f.Bytes()))
					f.Release()
				}
			}
			require.Equal(t, c.want, got)
		})
	}
}

// Every configuration mistake of a LengthField is an error wrapping
// ErrConfig from Validate, Decode, Next and AppendLengthField, never a
// panic; a valid one, the largest header included, is accepted.
func TestLengthFieldConfig(t *testing.T) {
	for _, c := range []struct {
		d   frame.LengthField
		msg string // "" for a valid configuration
	}{
		{frame.LengthField{}, ""},
		{frame.LengthField{Offset: 50 - 4, MaxFrameLength: 50}, ""},
		{frame.LengthField{Offset: frame.DefaultMaxFrameLength - 8, Size: 8}, ""},
		{frame.LengthField{Size: 5}, "frame: invalid configuration: LengthField.Size 5 is not 1, 2, 3, 4 or 8"},
		{frame.LengthField{Size: -1}, "frame: invalid configuration: LengthField.Size -1 is not 1, 2, 3, 4 or 8"},
		{frame.LengthField{Offset: -1}, "frame: invalid configuration: LengthField.Offset -1 or Strip 0 is negative"},
		{frame.LengthField{Strip: -1}, "frame: invalid configuration: LengthField.Offset 0 or Strip -1 is negative"},
		{frame.LengthField{Offset: 50 - 3, MaxFrameLength: 50}, "frame: invalid configuration: LengthField.Offset 47 + Size 4 exceeds MaxFrameLength 50"},
		{frame.LengthField{Size: 8, MaxFrameLength: 7}, "frame: invalid configuration: LengthField.Offset 0 + Size 8 exceeds MaxFrameLength 7"},
		{frame.LengthField{Offset: 1 << 30}, "frame: invalid configuration: LengthField.Offset 1073741824 + Size 4 exceeds MaxFrameLength 1048576"},
	} {
		t.Run(fmt.Sprintf("%+v", c.d), func(t *testing.T) {
			d := c.d
			in := buf.NewComposite()
			defer in.Release()
			in.Append(buf.Wrap(make([]byte, 64)))
			dst, err := frame.AppendLengthField([]byte("pre"), &d, 3)
			if c.msg == "" {
				require.NoError(t, d.Validate())
				require.NoError(t, err)
				return
			}
			require.EqualError(t, d.Validate(), c.msg)
			require.ErrorIs(t, d.Validate(), frame.ErrConfig)
			require.ErrorIs(t, err, frame.ErrConfig)
			require.Equal(t, "pre", string(dst))
			err = d.Decode(in, new(*buf.Buffer))
			require.EqualError(t, err, c.msg)
			_, err = d.Next(in)
			require.ErrorIs(t, err, frame.ErrConfig)
			require.Equal(t, 64, in.Len())
		})
	}
}
