package frame_test

import (
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// TestHugeFrameMemory feeds a 1 GiB line without a delimiter, and a frame
// whose length prefix announces 1 GiB, in 64 KiB reads, and measures the
// memory the decoders keep: the composite never holds more than the cap
// plus one read, the allocator never has more in use than that plus the
// read in flight, and the live heap (sampled after a GC every 256 reads)
// grows by no more than a few caps. Each frame is reported once as too
// long, at offset 0, and the frame after it decodes.
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
		dec        frame.Decoder
		head, tail []byte // before and after the 1 GiB of filler
		next       string // the frame after the huge one
	}{
		{"Line", &frame.Line{MaxLength: limit, StripDelimiter: true}, nil, []byte("\nnext\n"), "next"},
		{"LineFailFast", &frame.Line{MaxLength: limit, StripDelimiter: true, FailFast: true}, nil, []byte("\nnext\n"), "next"},
		{"LengthField", &frame.LengthField{MaxFrameLength: limit, Strip: 4}, header, []byte("\x00\x00\x00\x04next"), "next"},
		{"Delimiter", func() frame.Decoder {
			d := frame.NewDelimiter([]byte("\r\n"), []byte("\n"))
			d.MaxFrameLength, d.StripDelimiter = limit, true
			return d
		}(), nil, []byte("\r\nnext\n"), "next"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := buf.NewAllocator(buf.WithLeakLevel(buf.LeakOff))
			in := buf.NewComposite(buf.WithAllocator(a))
			defer in.Release()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			var peakHeap uint64
			peakLen, peakInUse := 0, int64(0)
			var errs []error
			var frames []string
			decode := func() {
				for {
					f, err := c.dec.Decode(in)
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
			if peakLen > limit+read {
				t.Errorf("the composite held %d bytes, over the cap plus one read (%d)", peakLen, limit+read)
			}
			if peakInUse > limit+2*read {
				t.Errorf("the allocator had %d bytes in use, over the cap plus two reads", peakInUse)
			}
			if grow := int64(peakHeap) - int64(base); grow > 4*limit {
				t.Errorf("the heap grew by %d bytes streaming 1 GiB, over 4 caps", grow)
			}
			var se *frame.SyntaxError
			if len(errs) != 1 || !errors.As(errs[0], &se) || se.Kind != frame.ErrTooLong || se.Offset != 0 {
				t.Errorf("errors %v, want one ErrTooLong at offset 0", errs)
			}
			if len(frames) != 1 || frames[0] != c.next {
				t.Errorf("frames %q, want [%q]", frames, c.next)
			}
		})
	}
}
