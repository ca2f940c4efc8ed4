package frame_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// The fuzz targets feed the decoders arbitrary bytes in a chunking drawn
// from the input and compare every frame and error with the models.

var fuzzAlloc = buf.NewAllocator()

// fuzzMode draws a feedModes index from the seed.
func fuzzMode(seed uint64) int { return int(seed >> 56 % uint64(len(feedModes))) }

func fuzzChunks(seed uint64, total int) []int {
	r := rand.New(rand.NewPCG(seed, seed>>7))
	cs := chunkings(r, total)
	return cs[seed%uint64(len(cs))]
}

func FuzzLine(f *testing.F) {
	f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), uint8(8), uint64(3))
	f.Add([]byte("a\rb\r\r\n\n\r"), uint8(0x81), uint64(0))
	f.Add([]byte("loooooooooooong\nshort\n"), uint8(0x44), uint64(9))
	f.Fuzz(func(t *testing.T, data []byte, opts uint8, seed uint64) {
		d := frame.Line{MaxFrameLength: int(opts & 0x1f), StripDelimiter: opts&0x20 != 0, FailFast: opts&0x40 != 0}
		if opts&0x80 != 0 {
			d.MaxFrameLength = 0 // the default cap
		}
		want := modelLine(d, data)
		dec := d
		got := feed(t, fuzzAlloc, &dec, data, fuzzChunks(seed, len(data)), capOr(d.MaxFrameLength)+1, fuzzMode(seed))
		sameEvents(t, "Line", got, want)
	})
}

func FuzzFixed(f *testing.F) {
	f.Add([]byte("abcdefgh"), uint8(3), uint64(1))
	f.Fuzz(func(t *testing.T, data []byte, length uint8, seed uint64) {
		n := int(length%64) + 1
		got := feed(t, fuzzAlloc, &frame.Fixed{Length: n}, data, fuzzChunks(seed, len(data)), n, fuzzMode(seed))
		sameEvents(t, "Fixed", got, modelFixed(n, data))
	})
}

func FuzzLengthField(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x03abc\x00\x00\x00\x00"), uint8(0), uint8(0), uint8(0x80), uint64(2))
	f.Add([]byte("hh\x05\x00hello\xff\xff"), uint8(0x22), uint8(0x11), uint8(0x08), uint64(7))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\x01"), uint8(0x05), uint8(0), uint8(0x90), uint64(1))
	f.Add([]byte("\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x09x"), uint8(0x14), uint8(0), uint8(0x80), uint64(4))
	f.Add([]byte("\x7f\xff\xff\xff\xff\xff\xff\xff\x00"), uint8(0x17), uint8(0x07), uint8(0x80), uint64(5))
	f.Fuzz(func(t *testing.T, data []byte, layout, adjust, limit uint8, seed uint64) {
		d := frame.LengthField{
			Offset:         int(layout & 3),
			Size:           []int{0, 1, 2, 3, 4, 8, 2, 1}[layout>>2&7],
			LittleEndian:   layout&0x20 != 0,
			FailFast:       layout&0x40 != 0,
			Adjustment:     int(int8(adjust<<4) >> 4), // -8 … 7
			Strip:          int(adjust >> 4 & 7),
			MaxFrameLength: int(limit & 0x7f),
		}
		if limit&0x80 != 0 {
			d.MaxFrameLength = 0
		}
		if err := d.Validate(); err != nil {
			// A refused configuration: the same error, nothing consumed.
			in := buf.NewComposite()
			defer in.Release()
			in.Append(buf.Wrap(data))
			var f *buf.Buffer
			err2 := d.Decode(in, &f)
			require.ErrorIs(t, err2, frame.ErrConfig, "%+v", d)
			require.EqualError(t, err2, err.Error(), "%+v: Decode's error is not Validate's", d)
			require.Equal(t, len(data), in.Len(), "%+v: a refused configuration consumed input", d)
			require.Nil(t, f)
			return
		}
		dec := d
		got := feed(t, fuzzAlloc, &dec, data, fuzzChunks(seed, len(data)), capOr(d.MaxFrameLength), fuzzMode(seed))
		sameEvents(t, "LengthField", got, modelLengthField(d, data))
	})
}

func FuzzDelimiter(f *testing.F) {
	f.Add([]byte("xxabcyybzz"), uint8(3), uint8(0x10), uint64(0))
	f.Add([]byte("a\r\nb\nc\r\r\n"), uint8(1), uint8(0x65), uint64(5))
	f.Fuzz(func(t *testing.T, data []byte, set, opts uint8, seed uint64) {
		var delims [][]byte
		maxLen := 0
		for _, s := range delimiterSets[int(set)%len(delimiterSets)] {
			delims = append(delims, []byte(s))
			maxLen = max(maxLen, len(s))
		}
		maxFrame, strip, failFast := int(opts&0x1f), opts&0x20 != 0, opts&0x40 != 0
		if opts&0x80 != 0 {
			maxFrame = 0
		}
		d := frame.NewDelimiter(delims...)
		d.MaxFrameLength, d.StripDelimiter, d.FailFast = maxFrame, strip, failFast
		got := feed(t, fuzzAlloc, d, data, fuzzChunks(seed, len(data)), capOr(maxFrame)+maxLen, fuzzMode(seed))
		sameEvents(t, "Delimiter", got, modelDelimiter(delims, maxFrame, strip, failFast, data))
	})
}
