package frame_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/internal/testenv"
)

// TestDecodeAllocs: decoding frames allocates nothing in steady state,
// whether a frame is a view of one read or a copy across two. (An error,
// rare by nature, allocates itself.)
func TestDecodeAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	lf := frame.LengthField{Strip: 4, MaxFrameLength: 200}
	var lengthStream []byte
	for _, n := range []int{10, 190, 64, 0, 150} {
		lengthStream = append(lengthStream, lengthFrames(t, &lf, bytes.Repeat([]byte{'x'}, n))...)
	}
	for _, c := range []struct {
		name   string
		dec    func() frame.Decoder
		stream []byte
		frames int
	}{
		{"Line", func() frame.Decoder { return &frame.Line{MaxFrameLength: 100, StripDelimiter: true} },
			[]byte("first line\r\nsecond\n" + string(bytes.Repeat([]byte{'y'}, 90)) + "\nlast\n"), 4},
		{"Delimiter", func() frame.Decoder { return frame.NewDelimiter([]byte("\r\n"), []byte(";")) },
			[]byte("a;bb;ccc\r\ndddd;" + string(bytes.Repeat([]byte{'e'}, 90)) + ";"), 5},
		{"Fixed", func() frame.Decoder { return &frame.Fixed{Length: 16} }, bytes.Repeat([]byte("0123456789abcdef"), 7), 7},
		{"LengthField", func() frame.Decoder { return &lf }, lengthStream, 5},
	} {
		for _, mode := range []string{"Decode", "Next", "Each", "Retained"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
				in := buf.NewComposite(buf.WithAllocator(a))
				defer in.Release()
				dec := c.dec()
				// Two reads per round, cut mid-stream, so frames straddle.
				half := len(c.stream) / 2
				// Through the interface, &f escapes: one variable for
				// every call, as a handler keeps it in a field.
				var f *buf.Buffer
				e, _ := dec.(eacher)
				var lent func(p []byte) error
				switch mode {
				case "Each":
					lent = func(p []byte) error { sink += len(p); return nil }
				case "Retained":
					lent = func([]byte) error { r := e.Retained(); sink += r.Len(); r.Release(); return nil }
				}
				round := func() {
					for _, p := range [][]byte{c.stream[:half], c.stream[half:]} {
						b := a.Get(len(p))
						b.Write(p)
						in.Append(b)
						if lent != nil {
							require.NoError(t, e.Each(in, lent))
							continue
						}
						for {
							if mode == "Next" {
								if _, err := dec.(borrower).Next(in); err == frame.ErrShort {
									break
								} else {
									require.NoError(t, err)
								}
								continue
							}
							err := dec.Decode(in, &f)
							if err == frame.ErrShort {
								break
							}
							require.NoError(t, err)
							f.Release()
						}
					}
				}
				for range 10 {
					round() // warm the pools and the composite's arrays
				}
				assert.Zero(t, testing.AllocsPerRun(200, round), "allocations per round of %d frames", c.frames)
			})
		}
	}
}
