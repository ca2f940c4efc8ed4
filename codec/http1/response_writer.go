package http1

import "github.com/netkit/netkit/buf"

// DefaultResponseBuffer is the size of the pooled buffers a
// ResponseWriter starts responses in: room for the 16 pipelined
// plaintext responses of the TechEmpower benchmark (about 2.1 KiB), so
// that the buffer does not regrow, copying, in every batch.
const DefaultResponseBuffer = 4 << 10

// A ResponseWriter builds responses into pooled buffers (package buf) for
// a server to send with writev. A server keeps one per connection (or
// one per loop, handing everything over before it serves another
// connection), and for each request parsed writes one response; the
// responses to pipelined requests follow each other in the same buffer,
// so that one writev sends them all. Then it hands the buffers over with
// Take:
//
//	for b := w.Take(); b != nil; b = w.Take() {
//		conn.Write(b) // takes over the reference
//	}
//	conn.Flush()
//
// A response is either written whole with Respond (or WriteHeaderOnly),
// or streamed: WriteHeader, then Write or WriteBuffer for the body, then
// End. The writer checks the framing as the body goes: Write refuses
// bytes past the Content-Length, End a body shorter than it, and a
// chunked body is chunk-encoded by Write and ended, with its trailers, by
// End. An error leaves nothing of the failed call written, but a response
// that fails after its header was written is broken: the server sends
// what it has and closes the connection (or calls Abort).
//
// The Date field comes from Dates without reading the clock; the server
// updates Dates once per second. Body bytes given to Write are copied
// once, into the buffer that writev sends; a body already in a
// *buf.Buffer goes out without a copy through WriteBuffer.
//
// Memory: buffers come from Alloc; the one being filled is held until
// Take hands it over or Abort releases it (a writer dropped without Abort
// leaks that buffer: buf counts it). A write that does not fit in the
// buffer's room starts a new buffer rather than growing the full one, so
// no byte is copied twice; a body larger than BufferSize gets a buffer of
// its size. In steady state nothing is allocated: every buffer comes from
// a pool and goes back to it once written. A ResponseWriter is not safe
// for concurrent use; its zero value is ready to use (no Date field,
// buf.Default, DefaultResponseBuffer).
type ResponseWriter struct {
	// Dates, when not nil, supplies every final response's Date field
	// (DateCache.AppendCached).
	Dates *DateCache
	// Alloc supplies the buffers; nil means buf.Default.
	Alloc *buf.Allocator
	// BufferSize is the size asked of Alloc for a new buffer; 0 means
	// DefaultResponseBuffer.
	BufferSize int

	cur    *buf.Buffer   // the buffer being appended to; nil or empty when none
	queue  []*buf.Buffer // finished buffers, before cur, from queue[next]
	next   int
	state  uint8
	remain int64 // body bytes due, in state stLength
}

// Writer states.
const (
	stIdle    uint8 = iota // between responses
	stLength               // in a body of known length
	stChunked              // in a chunked body
)

// buffer returns the buffer to append to, with room for n more bytes. A
// buffer without room is not grown (which would copy what it holds): it
// is queued as it is, and a new one started, of BufferSize or n bytes —
// one more iovec for writev instead of a copy.
func (w *ResponseWriter) buffer(n int) *buf.Buffer {
	if w.cur != nil && w.cur.Cap()-w.cur.ReaderIndex()-w.cur.Len() < n && w.cur.Len() > 0 {
		w.queue = append(w.queue, w.cur)
		w.cur = nil
	}
	if w.cur == nil {
		size := w.BufferSize
		if size <= 0 {
			size = DefaultResponseBuffer
		}
		a := w.Alloc
		if a == nil {
			a = buf.Default
		}
		w.cur = a.Get(max(size, n))
	}
	w.cur.Grow(n)
	return w.cur
}

// head appends h's head with content length cl and sets the state for its
// body: none for a head-only response, 1xx, 204 and 304.
func (w *ResponseWriter) head(method string, h *ResponseHeader, cl int64, bodyless bool) error {
	if w.state != stIdle {
		return respErr(ErrResponseState, method, -1)
	}
	var date []byte
	if w.Dates != nil {
		date = w.Dates.cached()
	}
	b := w.buffer(headBound(h, date))
	p := b.AvailableBuffer()
	q, err := appendHead(p, h, cl, date, true)
	if err != nil {
		return err
	}
	if cap(q) == cap(p) {
		b.Commit(len(q)) // appended in place
	} else {
		b.Write(q) // cannot happen: headBound was wrong
	}
	switch s := h.Status; {
	case bodyless || s >= 100 && s < 200:
	case s == 204 || s == 304:
		w.state, w.remain = stLength, 0
	case cl < 0:
		w.state = stChunked
	default:
		w.state, w.remain = stLength, cl
	}
	return nil
}

// WriteHeader begins a response with h's head. A final response then
// takes its body from Write and WriteBuffer, and ends with End; one with
// status 204 or 304 has no body, and ends with End. A 1xx response (such
// as "100 Continue" before the client sends its body) is whole as it is:
// the final response follows it. The errors are those of
// AppendResponseHeader, and ErrResponseState while a response is open.
func (w *ResponseWriter) WriteHeader(h *ResponseHeader) error {
	return w.head("WriteHeader", h, h.ContentLength, false)
}

// WriteHeaderOnly writes h's head as a whole response without a body:
// the answer to a HEAD request, whose Content-Length is the length a GET
// would get. No End follows. Errors as WriteHeader.
func (w *ResponseWriter) WriteHeaderOnly(h *ResponseHeader) error {
	return w.head("WriteHeaderOnly", h, h.ContentLength, true)
}

// Respond writes a whole response: h's head with a Content-Length of
// len(body) (h.ContentLength is not used), and body, copied. No End
// follows. A response with status 1xx, 204 or 304 must have an empty
// body (ErrResponseBody). This is the plaintext benchmark's call:
//
//	var plaintext = http1.ResponseHeader{ContentType: "text/plain", Server: "netkit"}
//	w.Respond(&plaintext, hello)
//
// Cost: AppendResponseHeader's and a copy of body; no allocation in
// steady state.
func (w *ResponseWriter) Respond(h *ResponseHeader, body []byte) error {
	if len(body) > 0 && (h.Status >= 100 && h.Status < 200 || h.Status == 204 || h.Status == 304) {
		return respErr(ErrResponseBody, "Respond", -1)
	}
	if err := w.head("Respond", h, int64(len(body)), true); err != nil {
		return err
	}
	if len(body) > 0 {
		w.buffer(len(body)).Write(body)
	}
	return nil
}

// Write appends p to the body of the response begun by WriteHeader: as
// it is for a body of known length, as one chunk for a chunked body (an
// empty p writes nothing). It refuses bytes past the Content-Length with
// ErrResponseBody, and a write with no body open with ErrResponseState;
// either way nothing is written. It copies p, which the caller may reuse
// at once.
func (w *ResponseWriter) Write(p []byte) (int, error) {
	switch w.state {
	case stLength:
		if int64(len(p)) > w.remain {
			return 0, respErr(ErrResponseBody, "Write", -1)
		}
		w.remain -= int64(len(p))
		if len(p) > 0 {
			w.buffer(len(p)).Write(p)
		}
	case stChunked:
		if len(p) > 0 {
			b := w.buffer(len(p) + 20)
			b.Commit(len(AppendChunk(b.AvailableBuffer(), p)))
		}
	default:
		return 0, respErr(ErrResponseState, "Write", -1)
	}
	return len(p), nil
}

// WriteBuffer appends b's readable bytes to the body without copying them:
// b goes out as its own buffer, between the bytes written before and
// after. The writer takes over b's reference, also on an error (it is
// then released). Errors and framing as Write.
func (w *ResponseWriter) WriteBuffer(b *buf.Buffer) error {
	n := b.Len()
	switch w.state {
	case stLength:
		if int64(n) > w.remain {
			b.Release()
			return respErr(ErrResponseBody, "WriteBuffer", -1)
		}
		w.remain -= int64(n)
	case stChunked:
		if n > 0 {
			c := w.buffer(20)
			c.Commit(len(appendChunkSize(c.AvailableBuffer(), n)))
		}
	default:
		b.Release()
		return respErr(ErrResponseState, "WriteBuffer", -1)
	}
	if n == 0 {
		b.Release()
		return nil
	}
	if w.cur != nil && w.cur.Len() > 0 {
		w.queue = append(w.queue, w.cur)
		w.cur = nil
	}
	w.queue = append(w.queue, b)
	if w.state == stChunked {
		w.buffer(2).WriteString("\r\n")
	}
	return nil
}

// End ends the response begun by WriteHeader: for a chunked body it
// writes the last chunk and trailers (see AppendLastChunk; on its error
// the response stays open); for a body of known length it checks that
// the whole body was written, and refuses trailers. A body shorter than
// its Content-Length is ErrResponseBody: the response is over, and
// broken, and the connection must close. Without an open response End
// returns ErrResponseState.
func (w *ResponseWriter) End(trailers []Header) error {
	switch w.state {
	case stChunked:
		n := 5
		for i := range trailers {
			n += len(trailers[i].Name) + len(trailers[i].Value) + 4
		}
		b := w.buffer(n)
		q, err := AppendLastChunk(b.AvailableBuffer(), trailers)
		if err != nil {
			return err
		}
		b.Commit(len(q))
	case stLength:
		if len(trailers) > 0 {
			return respErr(ErrResponseFraming, "trailers", 0)
		}
		w.state = stIdle
		if w.remain != 0 {
			return respErr(ErrResponseBody, "End", -1)
		}
	default:
		return respErr(ErrResponseState, "End", -1)
	}
	w.state = stIdle
	return nil
}

// Open reports whether a response begun by WriteHeader awaits its End: a
// server checks it after its handler returns (a response left open has
// broken framing: close the connection). It costs a field load.
func (w *ResponseWriter) Open() bool { return w.state != stIdle }

// Take hands over the next buffer of written responses, in order, or nil
// when there is none: the caller owns its reference (eventloop's
// Conn.Write takes it over). Take may be called in the middle of a
// streamed response, to send what is written so far.
func (w *ResponseWriter) Take() *buf.Buffer {
	if w.next < len(w.queue) {
		b := w.queue[w.next]
		w.queue[w.next] = nil
		w.next++
		if w.next == len(w.queue) {
			w.queue, w.next = w.queue[:0], 0
		}
		return b
	}
	if w.cur != nil && w.cur.Len() > 0 {
		b := w.cur
		w.cur = nil
		return b
	}
	return nil
}

// Len returns the number of bytes written and not yet taken.
func (w *ResponseWriter) Len() int {
	n := 0
	for _, b := range w.queue[w.next:] {
		n += b.Len()
	}
	if w.cur != nil {
		n += w.cur.Len()
	}
	return n
}

// Abort releases every buffer not taken and forgets the response in
// progress: for a connection that closes, or a response that failed. The
// writer can be used again.
func (w *ResponseWriter) Abort() {
	for _, b := range w.queue[w.next:] {
		b.Release()
	}
	clear(w.queue)
	w.queue, w.next = w.queue[:0], 0
	if w.cur != nil {
		w.cur.Release()
		w.cur = nil
	}
	w.state, w.remain = stIdle, 0
}
