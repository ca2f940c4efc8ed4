package frame_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
	"github.com/netkit/netkit/internal/corpus"
)

// readSize is the size of the reads both sides of each benchmark see.
const readSize = 64 << 10

var sink int

// appendReads appends text to in as reads of readSize bytes, each copied
// into a pooled buffer as a socket read would be, and calls decode after
// each.
func appendReads(in *buf.Composite, text []byte, decode func()) {
	for p := text; len(p) > 0; {
		n := min(readSize, len(p))
		b := buf.Get(n)
		b.Write(p[:n])
		in.Append(b)
		p = p[n:]
		decode()
	}
}

// benchDecode runs d over text in reads, taking every frame by Decode
// (looked at, then released) or, borrowed, by Next (looked at).
func benchDecode(b *testing.B, text []byte, d borrower, borrowed bool) {
	in := buf.NewComposite()
	defer in.Release()
	dec := d.(frame.Decoder)
	var f *buf.Buffer // one for every call: through the interface, &f escapes
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		appendReads(in, text, func() {
			for {
				if borrowed {
					p, err := d.Next(in)
					if err != nil {
						return
					}
					sink += len(p)
					continue
				}
				err := dec.Decode(in, &f)
				if err != nil {
					return
				}
				sink += f.Len()
				f.Release()
			}
		})
	}
}

// benchEach runs d's Each over text in reads: every frame lent is looked
// at; with retain, each is also taken with Retained and released, as a
// handler that keeps frames would.
func benchEach(b *testing.B, text []byte, d eacher, retain bool) {
	in := buf.NewComposite()
	defer in.Release()
	f := func(p []byte) error {
		sink += len(p)
		return nil
	}
	if retain {
		f = func(p []byte) error {
			r := d.Retained()
			sink += r.Len()
			r.Release()
			return nil
		}
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		appendReads(in, text, func() {
			if err := d.Each(in, f); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// benchScanner runs bufio.Scanner with split over text, read through a
// buffer of readSize; each token is looked at.
func benchScanner(b *testing.B, text []byte, split bufio.SplitFunc) {
	r := bytes.NewReader(text)
	scratch := make([]byte, readSize)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reset(text)
		sc := bufio.NewScanner(r)
		sc.Buffer(scratch, bufio.MaxScanTokenSize)
		sc.Split(split)
		for sc.Scan() {
			sink += len(sc.Bytes())
		}
	}
}

// BenchmarkLine splits 1 MiB of Go source (the standard library's, about
// 29,000 lines) into lines, in 64 KiB reads, against bufio.Scanner with
// ScanLines reading through a 64 KiB buffer. Both strip "\r\n"; each line
// is looked at (its length summed) and, for netkit, released.
func BenchmarkLine(b *testing.B) {
	text, err := corpus.GoSource()
	require.NoError(b, err)
	// The headline: Each, lines lent in place (bufio.Scanner's contract).
	b.Run("impl=netkit", func(b *testing.B) {
		benchEach(b, text, &frame.Line{StripDelimiter: true}, false)
	})
	// Beside it, labelled: every line owned, by Decode and by Retained.
	b.Run("impl=netkit.Decode", func(b *testing.B) {
		benchDecode(b, text, &frame.Line{StripDelimiter: true}, false)
	})
	b.Run("impl=netkit.Retained", func(b *testing.B) {
		benchEach(b, text, &frame.Line{StripDelimiter: true}, true)
	})
	// Beside the headline, labelled: Next lends each line until the next
	// call, Scanner's own contract, with no reference counting per line.
	b.Run("impl=netkit.Next", func(b *testing.B) {
		benchDecode(b, text, &frame.Line{StripDelimiter: true}, true)
	})
	b.Run("impl=bufio.Scanner", func(b *testing.B) { benchScanner(b, text, bufio.ScanLines) })
}

// lengthStream returns about 1 MiB of frames: a 4-byte big-endian length
// and a body of the given size.
func lengthStream(body int) []byte {
	var out []byte
	p := bytes.Repeat([]byte{'b'}, body)
	for len(out) < 1<<20 {
		out = binary.BigEndian.AppendUint32(out, uint32(body))
		out = append(out, p...)
	}
	return out
}

// BenchmarkLengthField decodes 1 MiB of length-prefixed frames of 64 B and
// 4 KiB, in 64 KiB reads, against the loop people write by hand: read the
// header with io.ReadFull, make the body, read it with io.ReadFull, over a
// bufio.Reader of 64 KiB. Each frame's body is looked at and, for netkit,
// released.
func BenchmarkLengthField(b *testing.B) {
	for _, body := range []struct {
		name string
		n    int
	}{{"64B", 64}, {"4KiB", 4 << 10}} {
		text := lengthStream(body.n)
		b.Run("body="+body.name+"/impl=netkit", func(b *testing.B) {
			benchEach(b, text, &frame.LengthField{Strip: 4}, false)
		})
		b.Run("body="+body.name+"/impl=netkit.Decode", func(b *testing.B) {
			benchDecode(b, text, &frame.LengthField{Strip: 4}, false)
		})
		b.Run("body="+body.name+"/impl=netkit.Retained", func(b *testing.B) {
			benchEach(b, text, &frame.LengthField{Strip: 4}, true)
		})
		b.Run("body="+body.name+"/impl=netkit.Next", func(b *testing.B) {
			benchDecode(b, text, &frame.LengthField{Strip: 4}, true)
		})
		b.Run("body="+body.name+"/impl=readfull", func(b *testing.B) {
			r := bytes.NewReader(text)
			br := bufio.NewReaderSize(r, readSize)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				r.Reset(text)
				br.Reset(r)
				var hdr [4]byte
				for {
					if _, err := io.ReadFull(br, hdr[:]); err != nil {
						break
					}
					body := make([]byte, binary.BigEndian.Uint32(hdr[:]))
					if _, err := io.ReadFull(br, body); err != nil {
						break
					}
					sink += len(body)
				}
			}
		})
	}
}

// BenchmarkDelimiter splits 1 MiB of Go source at ";" or "\n", whichever
// comes first (two delimiters), in 64 KiB reads, against bufio.Scanner
// with the split function people write for it (bytes.IndexAny), both
// stripping the delimiter; each frame is looked at.
func BenchmarkDelimiter(b *testing.B) {
	text, err := corpus.GoSource()
	require.NoError(b, err)
	b.Run("impl=netkit", func(b *testing.B) {
		d := frame.NewDelimiter([]byte(";"), []byte("\n"))
		d.StripDelimiter = true
		benchEach(b, text, d, false)
	})
	b.Run("impl=netkit.Decode", func(b *testing.B) {
		d := frame.NewDelimiter([]byte(";"), []byte("\n"))
		d.StripDelimiter = true
		benchDecode(b, text, d, false)
	})
	b.Run("impl=bufio.Scanner", func(b *testing.B) {
		split := func(data []byte, atEOF bool) (int, []byte, error) {
			if i := bytes.IndexAny(data, ";\n"); i >= 0 {
				return i + 1, data[:i], nil
			}
			if atEOF && len(data) > 0 {
				return len(data), data, nil
			}
			return 0, nil, nil
		}
		benchScanner(b, text, split)
	})
}
