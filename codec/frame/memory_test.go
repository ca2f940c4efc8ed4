package frame_test

import (
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// TestHugeFrameMemory feeds a 1 GiB line without a delimiter, and a frame
// whose length prefix announces 1 GiB, in 64 KiB reads, and measures the
// memory the decoders keep: the composite never holds more than the cap
// plus one read, the allocator never has more in use than that plus the
// read in flight, and the live heap (sampled after a GC every 256 reads)
// grows by no more than a few caps. Each frame is reported once as too
// long, at offset 0, and the frame after it decodes; by Decode and by
// Each.
func TestHugeFrameMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 2 GiB")
	}
	const (
		total = 1 << 30
		read  = 64 << 10
		limit = 1 << 20
	)
	header := binary.BigEndian.AppendUint32(nil, total)
	for _, c := range []struct {
		name       string
		newDec     func() frame.Decoder
		head, tail []byte // before and after the 1 GiB of filler
		next       string // the frame after the huge one
	}{
		{"Line", func() frame.Decoder { return &frame.Line{MaxFrameLength: limit, StripDelimiter: true} }, nil, []byte("\nnext\n"), "next"},
		{"LineFailFast", func() frame.Decoder { return &frame.Line{MaxFrameLength: limit, StripDelimiter: true, FailFast: true} }, nil, []byte("\nnext\n"), "next"},
		{"LengthField", func() frame.Decoder { return &frame.LengthField{MaxFrameLength: limit, Strip: 4} }, header, []byte("\x00\x00\x00\x04next"), "next"},
		{"Delimiter", func() frame.Decoder {
			d := frame.NewDelimiter([]byte("\r\n"), []byte("\n"))
			d.MaxFrameLength, d.StripDelimiter = limit, true
			return d
		}, nil, []byte("\r\nnext\n"), "next"},
	} {
		for _, mode := range []string{"Decode", "Each"} {
			t.Run(c.name+"/"+mode, func(t *testing.T) {
				a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
				in := buf.NewComposite(buf.WithAllocator(a))
				defer in.Release()
				dec := c.newDec()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				base := ms.HeapAlloc
				var peakHeap uint64
				peakLen, peakInUse := 0, int64(0)
				var errs []error
				var frames []string
				decode := func() {
					for mode == "Each" {
						err := dec.(eacher).Each(in, func(p []byte) error {
							frames = append(frames, string(p))
							return nil
						})
						if err == nil {
							break
						}
						errs = append(errs, err)
					}
					for mode == "Decode" {
						var f *buf.Buffer
						err := dec.Decode(in, &f)
						if err == frame.ErrShort {
							break
						}
						if err != nil {
							errs = append(errs, err)
							continue
						}
						frames = append(frames, string(f.Bytes()))
						f.Release()
					}
					peakLen = max(peakLen, in.Len())
				}
				push := func(p []byte) {
					b := a.Get(len(p))
					b.Write(p)
					in.Append(b)
					decode()
				}
				filler := make([]byte, read)
				for i := range filler {
					filler[i] = 'x'
				}
				push(c.head)
				for i := 0; i < total/read; i++ {
					push(filler)
					if i%256 == 0 {
						peakInUse = max(peakInUse, a.Stats().Total().InUse)
						// Live memory: what the decoder keeps, not the
						// garbage of reads the pool did not keep (-race
						// drops pooled items at random; the invariants
						// build never recycles).
						runtime.GC()
						runtime.ReadMemStats(&ms)
						peakHeap = max(peakHeap, ms.HeapAlloc)
					}
				}
				push(c.tail)
				t.Logf("peak: composite %d bytes, allocator in use %d bytes, heap +%d bytes", peakLen, peakInUse, int64(peakHeap)-int64(base))
				assert.LessOrEqual(t, peakLen, limit+read, "the composite's peak, over the cap plus one read")
				assert.LessOrEqual(t, peakInUse, int64(limit+2*read), "the allocator's bytes in use, over the cap plus two reads")
				assert.LessOrEqual(t, int64(peakHeap)-int64(base), int64(4*limit), "the heap's growth streaming 1 GiB, over 4 caps")
				var se *frame.SyntaxError
				if assert.Len(t, errs, 1, "want one ErrTooLong at offset 0") && assert.ErrorAs(t, errs[0], &se) {
					assert.Equal(t, frame.ErrTooLong, se.Kind)
					assert.Equal(t, 0, se.Offset)
				}
				assert.Equal(t, []string{c.next}, frames)
			})
		}
	}
}
