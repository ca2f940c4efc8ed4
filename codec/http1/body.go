package http1

import (
	"bytes"
	"errors"

	"github.com/netkit/netkit/buf"
)

// bodyState is DecodeBody's progress through a streamed body (Decoder's
// StreamBodies). Offsets in its errors count from the request's start, as
// Decode's do.
type bodyState struct {
	active  bool  // a body follows the request Decode returned
	chunked bool  // it is chunked; else remain counts its bytes
	remain  int64 // bytes left: of the body, or of the current chunk's data
	base    int   // the body's offset in the request (the head's length)
	raw     int64 // body bytes consumed, chunk framing included
	phase   uint8 // chunked: what comes next
	line    []byte
	trail   []byte // the trailer section, gathered
}

// Chunked body phases.
const (
	cpSize    uint8 = iota // a chunk-size line
	cpData                 // chunk data
	cpDataEnd              // the CRLF after chunk data
	cpTrailer              // the trailer section
)

// errBodyPending is Decode's answer while a streamed body has not been
// consumed to its end with DecodeBody.
var errBodyPending = errors.New("http1: Decode called before DecodeBody consumed the streamed body")

// BodyPending reports whether the last request Decode returned has a
// body that DecodeBody has not consumed to its end yet (StreamBodies).
func (d *Decoder) BodyPending() bool { return d.bs.active }

// DecodeBody consumes the body of the request Decode returned with
// BodyFollows set, as far as in holds it: f gets its bytes in order,
// de-chunked, a piece at a time, borrowed (valid until f returns). It
// reports done once the body and, for a chunked one, its trailer section
// (whose fields go to req.Trailers, valid until req is decoded into
// again) have been consumed; until then call it again after each read,
// and Decode only after it is done.
//
// It checks the framing as Decode does, by the same rules and limits
// (MaxBodySize counts a chunked body with its framing): a *SyntaxError
// means the connection's framing is lost. An error f returns stops the
// body where it is and is returned; the body is then not consumed to its
// end, and the connection's framing is lost too. With no body pending it
// reports done.
func (d *Decoder) DecodeBody(in *buf.Composite, req *Request, f func(p []byte) error) (done bool, err error) {
	b := &d.bs
	if !b.active {
		return true, nil
	}
	if !b.chunked {
		for b.remain > 0 && in.Len() > 0 {
			if err := b.lend(in, f); err != nil {
				return false, err
			}
		}
		if b.remain > 0 {
			return false, nil
		}
		b.active = false
		return true, nil
	}
	c := &d.cfg
	for in.Len() > 0 || b.phase == cpTrailer {
		switch b.phase {
		case cpSize:
			l, ok, err := b.gatherLine(in, maxChunkLine)
			off := b.base + int(b.raw)
			if perr := partialChunkLine(l[:min(len(l), 16)], off); perr != nil {
				return false, d.bodyFail(perr) // as Decode: before the line's end
			}
			if err != nil {
				return false, d.bodyFail(serr(off, ErrChunkExtension))
			}
			if !ok {
				return false, nil
			}
			lf := len(l) - 1
			e := lf
			if e > 0 && l[e-1] == '\r' {
				e--
			} else if !c.allowBareLF {
				return false, d.bodyFail(serr(off+lf, ErrBareLF))
			}
			n, err := chunkLine(l[:e], off)
			if err != nil {
				return false, d.bodyFail(err)
			}
			b.raw += int64(len(l))
			b.line = b.line[:0]
			if n == 0 {
				b.phase = cpTrailer
				continue
			}
			if n > c.maxBodySize-b.raw-2 {
				return false, d.bodyFail(serr(off, ErrBodyTooLarge))
			}
			b.remain, b.phase = n, cpData
		case cpData:
			if err := b.lend(in, f); err != nil {
				return false, err
			}
			if b.remain == 0 {
				b.phase = cpDataEnd
			}
		case cpDataEnd:
			off := b.base + int(b.raw)
			switch at(in, 0) {
			case '\r':
				if in.Len() < 2 {
					return false, nil
				}
				if at(in, 1) != '\n' {
					return false, d.bodyFail(serr(off, ErrChunkData))
				}
				in.Discard(2)
				b.raw += 2
			case '\n':
				if !c.allowBareLF {
					return false, d.bodyFail(serr(off, ErrBareLF))
				}
				in.Discard(1)
				b.raw++
			default:
				return false, d.bodyFail(serr(off, ErrChunkData))
			}
			b.phase = cpSize
		case cpTrailer:
			// Gather the section (at most MaxTrailerBytes) and parse it
			// whole once its empty line has come.
			have := len(b.trail)
			room := max(c.maxTrailer, 0) + 1 - have
			for k := 0; k < in.Len() && room > 0; {
				s := in.Span(k)
				s = s[:min(len(s), room)]
				b.trail = append(b.trail, s...)
				k += len(s)
				room -= len(s)
			}
			req.Trailers = req.Trailers[:0]
			end, err := trailers(c, req, b.trail, 0, false)
			if err == ErrShort {
				in.Discard(len(b.trail) - have)
				b.raw += int64(len(b.trail) - have)
				return false, nil
			}
			if err != nil {
				var se *SyntaxError
				if errors.As(err, &se) {
					se.Offset += b.base + int(b.raw) - have
				}
				return false, d.bodyFail(err)
			}
			in.Discard(end - have)
			b.raw += int64(end - have)
			b.active = false
			return true, nil
		}
	}
	return false, nil
}

// lend passes f the body bytes at in's front, up to what is left of the
// body (or of the chunk) and to the end of in's first component, and
// consumes them, also when f fails.
func (b *bodyState) lend(in *buf.Composite, f func([]byte) error) error {
	s := in.Span(0)
	n := int(min(int64(len(s)), b.remain))
	err := f(s[:n])
	in.Discard(n)
	b.remain -= int64(n)
	b.raw += int64(n)
	return err
}

// gatherLine collects the line that starts at in's front into b.line, up
// to limit bytes, consuming what it takes: ok once the line's LF is in it
// (the line, LF included), else what it has so far; an error past limit.
func (b *bodyState) gatherLine(in *buf.Composite, limit int) (line []byte, ok bool, err error) {
	for in.Len() > 0 {
		s := in.Span(0)
		room := limit - len(b.line)
		if room <= 0 {
			return b.line, false, errLineTooLong
		}
		s = s[:min(len(s), room)]
		if i := bytes.IndexByte(s, '\n'); i >= 0 {
			b.line = append(b.line, s[:i+1]...)
			in.Discard(i + 1)
			return b.line, true, nil
		}
		b.line = append(b.line, s...)
		in.Discard(len(s))
	}
	if len(b.line) >= limit {
		return b.line, false, errLineTooLong
	}
	return b.line, false, nil
}

var errLineTooLong = errors.New("line too long")

// bodyFail ends a streamed body on a framing error: the connection's
// framing is lost.
func (d *Decoder) bodyFail(err error) error {
	d.bs.active = false
	return err
}
