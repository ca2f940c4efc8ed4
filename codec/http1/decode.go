package http1

import (
	"bytes"

	"github.com/netkit/netkit/buf"
)

// decodeState is Decode's progress on the request at the front of the
// input, so that bytes arriving a few at a time are each looked at a
// bounded number of times. Offsets are from the front of the input.
type decodeState struct {
	off     int       // bytes scanned for the current line's end
	line    int       // start of the current line
	reqLine int       // end of the request line once found, else 0
	fields  int       // lines seen in the header (or trailer) section
	head    int       // end of the head once found, else 0
	chunked bool      // the head said chunked: total is found by walking chunks
	body    int       // start of a chunked body
	chunk   int       // start of the next chunk line
	trailer bool      // the last chunk is past: scanning trailer lines
	total   int       // the request's length once known, else 0
	hs      headState // what the head's fields told so far
	expect  bool      // the head asked for 100-continue
	cont    bool      // ErrContinue was returned
}

// Decode parses the request at the front of in, a connection's input,
// into req and consumes its bytes. Requests may arrive in pieces over
// several reads, and several pipelined requests may arrive in one: call
// Decode again after each request, and after each read while it returns
// ErrShort.
//
// It returns ErrShort, consuming nothing, while the request is incomplete
// (see ErrContinue for a request that expects 100-continue), and a
// *SyntaxError as soon as the bytes received break a rule or pass a limit.
// After a SyntaxError the framing of the connection is lost: answer
// StatusOf(err) and close it.
//
// req's []byte fields alias the request's bytes, which req holds: a view
// of the read that holds them, or a pooled copy when the request straddles
// reads. They stay valid until req is decoded into again or released with
// Request.Release; in may discard or release its own bytes meanwhile. A
// chunked body is de-chunked in place in those bytes.
//
// The Decoder remembers how far it scanned: a head that arrives a byte at
// a time costs O(length) in all, not O(length²). The request line and
// header section are bounded by the limits as they arrive. Decode
// allocates nothing in steady state; it copies a head (at most the request
// line and header section limits) into a buffer it keeps only when the
// head straddles reads.
func (d *Decoder) Decode(in *buf.Composite, req *Request) error {
	if d.bs.active {
		return errBodyPending
	}
	req.Release()
	d.cfg = d.config()
	st := &d.st
	if st.off == 0 && st.head == 0 {
		// The common case: the whole request is in the first read.
		s := in.Span(0)
		if len(s) == 0 {
			return ErrShort
		}
		n, err := parse(&d.cfg, req, s)
		if err == nil {
			b, _ := in.NextRetained(n)
			in.Discard(0)
			req.held = b
			return nil
		}
		if err != ErrShort {
			return err
		}
	}
	if st.head == 0 {
		if st.off == 0 {
			d.scan.reset()
			st.hs = headState{teOff: -1}
		}
		if err := d.scanHead(in); err != nil {
			if err == ErrShort {
				return err
			}
			return d.fail(req, err)
		}
	}
	if st.total == 0 && !st.chunked {
		p := d.front(in, st.head)
		if _, err := parseHead(&d.cfg, req, p); err != nil {
			return d.fail(req, err)
		}
		if d.StreamBodies && (req.Chunked || req.ContentLength > 0) {
			return d.streamHead(in, req)
		}
		st.expect = req.Expect100
		if req.Chunked {
			st.chunked = true
			st.body, st.chunk, st.off = st.head, st.head, st.head
		} else {
			st.total = st.head + int(req.ContentLength)
		}
		req.reset()
	}
	if st.total == 0 {
		if err := d.walkChunks(in); err != nil {
			if err == ErrShort {
				return d.short()
			}
			return d.fail(req, err)
		}
	}
	if in.Len() < st.total {
		return d.short()
	}
	b, _ := in.NextRetained(st.total)
	in.Discard(0)
	n, err := parse(&d.cfg, req, b.Bytes())
	if err == nil && n != st.total {
		err = serr(n, ErrRequestLine) // cannot happen: the scan and DecodeBytes agree on framing
	}
	d.st = decodeState{}
	if err != nil {
		b.Release()
		return err
	}
	req.held = b
	return nil
}

// InBody reports whether the request Decode is waiting for has its head
// complete and waits for (the rest of) its body: after Decode returns
// ErrShort (or ErrContinue), a server tells a slow head from a slow body
// by it, to time each out by its own rule.
func (d *Decoder) InBody() bool { return d.st.head != 0 }

// streamHead returns the request whose head ends at st.head, its body to
// follow through DecodeBody (StreamBodies): the head's bytes are taken
// from in and held by req, whose fields are parsed again from them.
func (d *Decoder) streamHead(in *buf.Composite, req *Request) error {
	head := d.st.head
	b, _ := in.NextRetained(head)
	in.Discard(0)
	req.reset()
	if _, err := parseHead(&d.cfg, req, b.Bytes()); err != nil {
		b.Release()
		return d.fail(req, err) // cannot happen: the same bytes parsed above
	}
	req.held = b
	req.BodyFollows = true
	d.st = decodeState{}
	bs := &d.bs
	*bs = bodyState{active: true, chunked: req.Chunked, remain: req.ContentLength, base: head,
		line: bs.line[:0], trail: bs.trail[:0]}
	return nil
}

// short returns ErrContinue the first time a request that expects
// 100-continue is incomplete after its head, else ErrShort.
func (d *Decoder) short() error {
	if d.st.expect && !d.st.cont {
		d.st.cont = true
		return ErrContinue
	}
	return ErrShort
}

// fail forgets the request's progress and returns err.
func (d *Decoder) fail(req *Request, err error) error {
	req.reset()
	d.st = decodeState{}
	return err
}

// front returns the first n bytes of in, in place when they are in one
// read, else copied into d.scratch.
func (d *Decoder) front(in *buf.Composite, n int) []byte {
	if s := in.Span(0); len(s) >= n {
		return s[:n]
	}
	if cap(d.scratch) < n {
		d.scratch = make([]byte, n)
	}
	p := d.scratch[:n]
	for k := 0; k < n; {
		k += copy(p[k:], in.Span(k))
	}
	return p
}

// scanHead looks for the end of the head in the bytes that arrived since
// the last call. It checks each line as it ends, as DecodeBytes does and in the
// same order (limit, line end, request line or field, field count), so
// that a request DecodeBytes refuses is refused by Decode with the same error as
// soon as the offending line is in. It returns ErrShort while the head is
// incomplete.
func (d *Decoder) scanHead(in *buf.Composite) error {
	st, c := &d.st, &d.cfg
	for {
		var lf int
		if st.reqLine == 0 {
			lf = d.lineEnd(in, max(c.maxRequestLine, 0))
			if lf < 0 {
				if in.Len() >= c.maxRequestLine {
					return serr(max(c.maxRequestLine, 0), ErrURITooLong)
				}
				return ErrShort
			}
		} else {
			hlim := st.reqLine + max(c.maxHeaderBytes, 0)
			lf = d.lineEnd(in, hlim)
			if lf < 0 {
				if in.Len() >= hlim {
					return serr(hlim, ErrHeaderTooLarge)
				}
				return ErrShort
			}
		}
		l := d.lineAt(in, st.line, lf+1)
		e := len(l) - 1
		if e > 0 && l[e-1] == '\r' {
			e--
		} else if !c.allowBareLF {
			return serr(lf, ErrBareLF)
		}
		if st.reqLine == 0 {
			if err := requestLine(&d.scan, l[:e]); err != nil {
				return err
			}
			st.reqLine = lf + 1
		} else {
			if e == 0 {
				st.head = lf + 1
				return nil
			}
			if err := field(c, &d.scan, &st.hs, l, 0, e, st.fields); err != nil {
				se := err.(*SyntaxError)
				se.Offset += st.line
				return se
			}
			st.fields++
		}
		st.line, st.off = lf+1, lf+1
	}
}

// at returns the byte at offset i of in, which holds more than i bytes.
func at(in *buf.Composite, i int) byte { return in.Span(i)[0] }

// lineEnd finds the next LF from st.off within [st.line, limit) and returns
// its offset, or -1 when the bytes received hold none.
func (d *Decoder) lineEnd(in *buf.Composite, limit int) int {
	st := &d.st
	end := min(in.Len(), limit)
	for st.off < end {
		s := in.Span(st.off)
		if len(s) > end-st.off {
			s = s[:end-st.off]
		}
		if i := bytes.IndexByte(s, '\n'); i >= 0 {
			return st.off + i
		}
		st.off += len(s)
	}
	return -1
}

// walkChunks finds the end of a chunked body as chunks arrives, checking
// what chunks (in DecodeBytes) checks in the same order, so that both report the
// same error. It sets st.total once the trailer section has ended.
func (d *Decoder) walkChunks(in *buf.Composite) error {
	st, c := &d.st, &d.cfg
	for {
		if st.trailer {
			hlim := st.line + max(c.maxTrailer, 0)
			lf := d.lineEnd(in, hlim)
			if lf < 0 {
				if in.Len() >= hlim {
					return serr(hlim, ErrHeaderTooLarge)
				}
				return ErrShort
			}
			// st.line is reused as the trailer section's start; the
			// current line starts at st.chunk.
			l := d.lineAt(in, st.chunk, lf+1)
			e := len(l) - 1
			if e > 0 && l[e-1] == '\r' {
				e--
			} else if !c.allowBareLF {
				return serr(lf, ErrBareLF)
			}
			if e == 0 {
				st.total = lf + 1
				return nil
			}
			if _, _, err := trailerLine(c, l, 0, e, st.fields); err != nil {
				se := err.(*SyntaxError)
				se.Offset += st.chunk
				return se
			}
			st.fields++
			st.chunk, st.off = lf+1, lf+1
			continue
		}
		if err := partialChunkLine(d.lineAt(in, st.chunk, min(in.Len(), st.chunk+16)), st.chunk); err != nil {
			return err
		}
		lf := d.lineEnd(in, st.chunk+maxChunkLine)
		if lf < 0 {
			if in.Len()-st.chunk >= maxChunkLine {
				return serr(st.chunk, ErrChunkExtension)
			}
			return ErrShort
		}
		l := d.lineAt(in, st.chunk, lf+1)
		e := len(l) - 1
		if e > 0 && l[e-1] == '\r' {
			e--
		} else if !c.allowBareLF {
			return serr(lf, ErrBareLF)
		}
		n, err := chunkLine(l[:e], st.chunk)
		if err != nil {
			return err
		}
		if n == 0 {
			st.trailer = true
			st.line, st.chunk, st.off, st.fields = lf+1, lf+1, lf+1, 0
			continue
		}
		dd := lf + 1
		if n > c.maxBodySize-int64(dd-st.body)-2 {
			return serr(st.chunk, ErrBodyTooLarge)
		}
		if n > int64(in.Len()-dd) {
			return ErrShort
		}
		de := dd + int(n)
		if de >= in.Len() {
			return ErrShort
		}
		next := 0
		switch at(in, de) {
		case '\r':
			if de+1 >= in.Len() {
				return ErrShort
			}
			if at(in, de+1) != '\n' {
				return serr(de, ErrChunkData)
			}
			next = de + 2
		case '\n':
			if !c.allowBareLF {
				return serr(de, ErrBareLF)
			}
			next = de + 1
		default:
			return serr(de, ErrChunkData)
		}
		st.chunk, st.off = next, next
	}
}

// lineAt returns in's bytes [from, to), in place when they are in one
// read, else copied into d.scratch (a line is at most maxChunkLine or the
// header section limit long).
func (d *Decoder) lineAt(in *buf.Composite, from, to int) []byte {
	n := to - from
	if s := in.Span(from); len(s) >= n {
		return s[:n]
	}
	if cap(d.scratch) < n {
		d.scratch = make([]byte, n)
	}
	p := d.scratch[:n]
	for k := 0; k < n; {
		k += copy(p[k:], in.Span(from+k))
	}
	return p
}
