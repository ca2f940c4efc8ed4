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
// Answering one request: a server calls Begin with each request before
// its handler writes, and the writer then holds the response to that
// request's rules — exactly one final response, after any number of 1xx
// (a second is refused with ErrResponseAnswered, writing nothing); no body
// bytes in the answer to HEAD, whatever is written (RFC 9110 §9.3.2); no
// chunked body and no 1xx to an HTTP/1.0 client (RFC 9112 §6.1, RFC 9110
// §15.2); "Connection: close" when the request did not let the connection
// stay open, and "Connection: keep-alive" to an HTTP/1.0 client whose
// connection stays open. Answered tells whether the final response is
// written, MustClose whether the connection must close after it, and
// AbortResponse drops what was written of it (for a handler that
// panicked) while keeping the responses before it. Without Begin the
// writer checks framing only, response after response.
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
	// Owner is for the server that drives the writer: httpserver keeps
	// its connection here, so that a handler given only the writer can
	// reach it (httpserver.Detach). The writer never reads it.
	Owner any

	cur    *buf.Buffer   // the buffer being appended to; nil or empty when none
	queue  []*buf.Buffer // finished buffers, before cur, from queue[next]
	next   int
	state  uint8
	remain int64 // body bytes due, in state stLength
	taken  int   // buffers Take has handed over, in all: numbers the buffers

	// The request being answered, from Begin.
	bound   bool     // Begin was given a request
	headReq bool     // it is HEAD: body bytes are counted, never written
	http10  bool     // it is HTTP/1.0: no chunked body, no 1xx
	req     *Request // it, for its KeepAlive when a final head is written
	final   bool     // its final response's head is written
	closes  bool     // a final response said "Connection: close" (MustClose)
	markSeq int      // the number of the buffer the response starts in (see seq)
	markLen int      // and the bytes of that buffer before it
}

// Writer states.
const (
	stIdle    uint8 = iota // between responses
	stLength               // in a body of known length
	stChunked              // in a chunked body
	stClose                // in a body that the connection's close ends (HTTP/1.0)
)

// Begin starts the response to req: what is written until the next Begin
// answers it, and follows its rules (see ResponseWriter). Begin reads
// req's method and version now; it keeps req until the next Begin, Abort
// or AbortResponse and reads req.KeepAlive when it writes the final
// response's head, so that a handler that clears it before it responds
// gets "Connection: close" (req must stay valid until then). Begin(nil)
// forgets the request: the writer checks framing only, as its zero value
// does. A response still open (Open) is not ended: the next response is
// refused until it is. Begin costs a few stores.
func (w *ResponseWriter) Begin(req *Request) {
	w.markSeq, w.markLen = w.seq(), 0
	if w.cur != nil {
		w.markLen = w.cur.Len()
	}
	w.final, w.closes = false, false
	if req == nil {
		w.bound, w.headReq, w.http10, w.req = false, false, false, nil
		return
	}
	w.bound = true
	w.headReq = req.Method == MethodHead
	w.http10 = req.Minor == 0
	w.req = req
}

// Answered reports whether the final response to the request given to
// Begin has been written whole: by Respond, WriteHeaderOnly, or
// WriteHeader and End. A 1xx response is not a final one. Without a
// request (no Begin, Begin(nil)) it reports false.
func (w *ResponseWriter) Answered() bool { return w.bound && w.final && w.state == stIdle }

// MustClose reports whether the connection must close after the
// responses written since Begin: one said "Connection: close" (its
// ResponseHeader.Close, or a request that did not let the connection stay
// open), its body ends with the connection (a body of unknown length to
// an HTTP/1.0 client), or End found its body short of its Content-Length
// (the client waits for the rest: only the close tells it there is none).
func (w *ResponseWriter) MustClose() bool { return w.closes }

// seq returns the number the buffer appended to next has: buffers are
// numbered in the order they are handed over, from 0.
func (w *ResponseWriter) seq() int { return w.taken + len(w.queue) - w.next }

// AbortResponse drops what was written since Begin — the response to its
// request, 1xx included, whole or in part — and keeps the responses
// written before it, for a server whose handler failed half-way (a
// panic): it sends those and closes the connection. The writer is left
// between responses, with the request forgotten (as Begin(nil)). It
// reports false when Take has handed over buffers since Begin: what they
// held of the response is out of the writer's reach (the rest is dropped
// all the same).
func (w *ResponseWriter) AbortResponse() bool {
	whole := w.taken <= w.markSeq
	n := w.next
	k := w.next
	for i := w.next; i < len(w.queue); i++ {
		b := w.queue[i]
		w.queue[i] = nil
		switch seq := w.taken + i - n; {
		case seq < w.markSeq:
			w.queue[k] = b
			k++
		case seq == w.markSeq && w.markLen > 0:
			truncate(b, w.markLen)
			w.queue[k] = b
			k++
		default:
			b.Release()
		}
	}
	curSeq := w.taken + len(w.queue) - n
	w.queue = w.queue[:k]
	if k == n {
		w.queue, w.next = w.queue[:0], 0
	}
	if w.cur != nil {
		if curSeq == w.markSeq && w.markLen > 0 {
			truncate(w.cur, w.markLen)
		} else {
			w.cur.Release()
			w.cur = nil
		}
	}
	w.state, w.remain = stIdle, 0
	w.Begin(nil)
	return whole
}

// truncate keeps the first n readable bytes of b, one of the writer's own
// buffers, without copying them.
func truncate(b *buf.Buffer, n int) {
	r := b.ReaderIndex()
	b.Reset()
	b.Commit(r + n)
	b.SetReaderIndex(r)
}

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
// body: none for a head-only response, 1xx, 204 and 304. For a request
// given to Begin it refuses a second final response, skips a 1xx to an
// HTTP/1.0 client (skipped reports it) and decides the Connection field
// and, for a body of unknown length to an HTTP/1.0 client, the close
// framing.
func (w *ResponseWriter) head(method string, h *ResponseHeader, cl int64, bodyless bool) (skipped bool, err error) {
	if w.state != stIdle {
		return false, respErr(ErrResponseState, method, -1)
	}
	interim := h.Status >= 100 && h.Status < 200
	var hd uint8
	if w.bound {
		if w.final {
			return false, respErr(ErrResponseAnswered, method, -1)
		}
		switch {
		case interim && w.http10:
			return true, nil
		case interim:
		case !w.req.KeepAlive:
			hd |= hdClose
		case w.http10:
			hd |= hdKeepAlive
		}
		if (w.http10 || w.headReq) && cl < 0 && !interim && h.Status != 204 && h.Status != 304 {
			// No Transfer-Encoding to HTTP/1.0 (RFC 9112 §6.1): the
			// close ends the body. (For HEAD, or a head-only response,
			// nothing follows, and the connection stays open.) Nor in
			// the answer to HEAD of a body of unknown length: no
			// framing field then, as net/http sends (RFC 9110 §9.3.2
			// lets a HEAD answer omit what only the content decides).
			hd |= hdNoLength
			if !w.headReq && !bodyless {
				hd = hd&^hdKeepAlive | hdClose
			}
		}
	}
	var date []byte
	if w.Dates != nil {
		date = w.Dates.cached()
	}
	b := w.buffer(headBound(h, date))
	p := b.AvailableBuffer()
	q, err := appendHead(p, h, cl, date, true, hd)
	if err != nil {
		return false, err
	}
	if cap(q) == cap(p) {
		b.Commit(len(q)) // appended in place
	} else {
		b.Write(q) // cannot happen: headBound was wrong
	}
	if !interim {
		w.final = true
		w.closes = w.closes || h.Close || hd&hdClose != 0
	}
	switch s := h.Status; {
	case bodyless || interim:
	case s == 204 || s == 304:
		w.state, w.remain = stLength, 0
	case hd&hdNoLength != 0:
		w.state = stClose
	case cl < 0:
		w.state = stChunked
	default:
		w.state, w.remain = stLength, cl
	}
	return false, nil
}

// WriteHeader begins a response with h's head. A final response then
// takes its body from Write and WriteBuffer, and ends with End; one with
// status 204 or 304 has no body, and ends with End. A 1xx response (such
// as "100 Continue" before the client sends its body) is whole as it is:
// the final response follows it. A 1xx to an HTTP/1.0 request (Begin) is
// not written, and WriteHeader returns nil. A chunked body
// (h.ContentLength -1) to an HTTP/1.0 request is sent as it is written,
// without chunks and with "Connection: close": the close ends it
// (MustClose). The errors are those of AppendResponseHeader,
// ErrResponseState while a response is open, and ErrResponseAnswered
// after the final response to the request given to Begin.
func (w *ResponseWriter) WriteHeader(h *ResponseHeader) error {
	_, err := w.head("WriteHeader", h, h.ContentLength, false)
	return err
}

// WriteHeaderOnly writes h's head as a whole response without a body:
// the answer to a HEAD request, whose Content-Length is the length a GET
// would get. No End follows. Errors as WriteHeader; for a request other
// than HEAD given to Begin, a response that would announce a body
// (h.ContentLength other than 0, status other than 1xx, 204 and 304) is
// refused with ErrResponseBody, since none follows.
func (w *ResponseWriter) WriteHeaderOnly(h *ResponseHeader) error {
	if s := h.Status; w.bound && !w.headReq && h.ContentLength != 0 && (s == 0 || s >= 200 && s != 204 && s != 304) {
		return respErr(ErrResponseBody, "WriteHeaderOnly", -1)
	}
	_, err := w.head("WriteHeaderOnly", h, h.ContentLength, true)
	return err
}

// Respond writes a whole response: h's head with a Content-Length of
// len(body) (h.ContentLength is not used), and body, copied — except in
// the answer to a HEAD request given to Begin, which gets the head alone,
// with the Content-Length of body. No End follows. A response with status
// 1xx, 204 or 304 must have an empty body (ErrResponseBody). Other errors
// as WriteHeader. This is the plaintext benchmark's call:
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
	skipped, err := w.head("Respond", h, int64(len(body)), true)
	if err != nil {
		return err
	}
	if len(body) > 0 && !skipped && !w.headReq {
		w.buffer(len(body)).Write(body)
	}
	return nil
}

// Write appends p to the body of the response begun by WriteHeader: as
// it is for a body of known length (or one the close ends), as one chunk
// for a chunked body (an empty p writes nothing). In the answer to a HEAD
// request given to Begin, p is counted against the Content-Length but
// not written. It refuses bytes past the Content-Length with
// ErrResponseBody, and a write with no body open with ErrResponseState
// (ErrResponseAnswered once the final response to the request given to
// Begin is whole); either way nothing is written. It copies p, which the
// caller may reuse at once.
func (w *ResponseWriter) Write(p []byte) (int, error) {
	switch w.state {
	case stLength:
		if int64(len(p)) > w.remain {
			return 0, respErr(ErrResponseBody, "Write", -1)
		}
		w.remain -= int64(len(p))
		if len(p) > 0 && !w.headReq {
			w.buffer(len(p)).Write(p)
		}
	case stChunked:
		if len(p) > 0 && !w.headReq {
			b := w.buffer(len(p) + 20)
			b.Commit(len(AppendChunk(b.AvailableBuffer(), p)))
		}
	case stClose:
		if len(p) > 0 && !w.headReq {
			w.buffer(len(p)).Write(p)
		}
	default:
		return 0, respErr(w.idleErr(), "Write", -1)
	}
	return len(p), nil
}

// idleErr is the error of a body write or End with no response open.
func (w *ResponseWriter) idleErr() *Violation {
	if w.bound && w.final {
		return ErrResponseAnswered
	}
	return ErrResponseState
}

// WriteBuffer appends b's readable bytes to the body without copying them:
// b goes out as its own buffer, between the bytes written before and
// after (in the answer to HEAD it is counted, then released). The writer
// takes over b's reference, also on an error (it is then released).
// Errors and framing as Write.
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
		if n > 0 && !w.headReq {
			c := w.buffer(20)
			c.Commit(len(appendChunkSize(c.AvailableBuffer(), n)))
		}
	case stClose:
	default:
		b.Release()
		return respErr(w.idleErr(), "WriteBuffer", -1)
	}
	if n == 0 || w.headReq {
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
// broken, and the connection must close. In the answer to HEAD nothing
// is written and a short body is no error (no body is sent); a body the
// close ends (HTTP/1.0) has no trailers: they are checked, then dropped,
// as RFC 9110 §6.5.1 lets a recipient do. Without an open response End
// returns ErrResponseState (ErrResponseAnswered once the final response
// to the request given to Begin is whole).
func (w *ResponseWriter) End(trailers []Header) error {
	switch w.state {
	case stChunked:
		if w.headReq {
			if err := checkTrailers(trailers); err != nil {
				return err
			}
			break
		}
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
	case stClose:
		if err := checkTrailers(trailers); err != nil {
			return err
		}
	case stLength:
		if len(trailers) > 0 {
			return respErr(ErrResponseFraming, "trailers", 0)
		}
		w.state = stIdle
		if w.remain != 0 && !w.headReq {
			w.closes = true // the client waits for the rest: only the close ends it
			return respErr(ErrResponseBody, "End", -1)
		}
	default:
		return respErr(w.idleErr(), "End", -1)
	}
	w.state = stIdle
	return nil
}

// checkTrailers checks trailers as AppendLastChunk does, writing nothing.
func checkTrailers(trailers []Header) error {
	for i := range trailers {
		if v := checkTrailer(&trailers[i]); v != nil {
			return respErr(v, "trailers", i)
		}
	}
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
		w.taken++
		if w.next == len(w.queue) {
			w.queue, w.next = w.queue[:0], 0
		}
		return b
	}
	if w.cur != nil && w.cur.Len() > 0 {
		b := w.cur
		w.cur = nil
		w.taken++
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
// progress and its request (as Begin(nil)): for a connection that closes.
// The writer can be used again.
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
	w.Begin(nil)
}
