package hpackpeers

import (
	"bytes"

	"golang.org/x/net/http2/hpack"
)

// XNetDecode decodes one complete header block with d, through
// DecodeFull, the form of the package's API that returns the list.
func XNetDecode(d *hpack.Decoder, block []byte) ([]Field, error) {
	hf, err := d.DecodeFull(block)
	if err != nil {
		// DecodeFull returns at the first error without Close, which
		// leaves the decoder inside the block; a connection that got
		// the error is over anyway, but keep the decoder usable for
		// probes.
		d.Close()
		return nil, err
	}
	l := make([]Field, len(hf))
	for i, f := range hf {
		l[i] = Field(f)
	}
	return l, nil
}

// XNetTable returns the entries of d's dynamic table, newest first. The
// package has no accessor for them, so it probes: it decodes one-field
// blocks of each dynamic index from 62 up until one fails (an indexed
// field changes no table). n is the number of entries expected; it probes
// index 62+n too, which must fail, so that it finds more entries than
// expected but never walks a long table twice.
func XNetTable(d *hpack.Decoder, n int) []Field {
	var (
		out   []Field
		block []byte
	)
	for i := 0; ; i++ {
		block = appendInt(block[:0], 7, 0x80, uint64(62+i))
		hf, err := d.DecodeFull(block)
		if err != nil {
			d.Close()
			return out
		}
		out = append(out, Field(hf[0]))
		if i > n+8 {
			return out // more than expected: enough to report it
		}
	}
}

// XNetEncode encodes a header list as one block with e, a field at a time
// through WriteField, as x/net's HTTP/2 client and server do, into buf
// (reset first), and returns buf's bytes.
func XNetEncode(e *hpack.Encoder, buf *bytes.Buffer, l []Field) []byte {
	buf.Reset()
	for _, f := range l {
		if err := e.WriteField(hpack.HeaderField(f)); err != nil {
			panic(err) // a bytes.Buffer does not fail
		}
	}
	return buf.Bytes()
}
