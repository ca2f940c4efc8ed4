package http1

import (
	"bytes"
	"strconv"
)

// A ResponseHeader describes the head of a response, for
// AppendResponseHeader and ResponseWriter.
//
// Framing comes from the struct's fields, never from Headers: the writer
// writes Content-Length or Transfer-Encoding from ContentLength and
// "Connection: close" from Close, and refuses (ErrResponseFraming) a
// field in Headers that would contradict or repeat what it writes (see
// AppendResponseHeader). A server that decides framing in one place
// cannot be made to send two lengths for one body.
//
// A ResponseHeader is only read by the functions it is passed to; it can
// be a package-level value shared by every response that is alike.
type ResponseHeader struct {
	// Status is the status code, 100–999; 0 means 200.
	Status int

	// ContentLength is the length of the body in bytes, written as
	// Content-Length; -1 means a chunked body, written as
	// "Transfer-Encoding: chunked" (only for HTTP/1.1 clients: an
	// HTTP/1.0 client cannot read chunks, and a ResponseWriter answering
	// an HTTP/1.0 request sends the body unchunked, ended by the
	// connection's close). For a HEAD request it is the
	// length the GET would have, and no body follows. Responses with
	// status 1xx, 204 or 304 have no body and get neither field (RFC
	// 9110 §8.6, RFC 9112 §6.1), whatever ContentLength holds.
	ContentLength int64

	// Close adds "Connection: close": the server closes the connection
	// after this response.
	Close bool

	// ContentType, when not empty, is written as the Content-Type field.
	ContentType string

	// Server, when not empty, is written as the Server field.
	Server string

	// Headers are written after the fields above, in order, as given.
	// Names must be tokens and values free of control characters
	// other than HTAB and of leading and trailing whitespace.
	Headers []Header
}

// A ResponseError reports a response the package refuses to write: what
// (Kind, one of the ErrResponse* violations, so errors.Is works and
// StatusOf answers 500) and which field is at fault. Nothing of the
// refused response has been written.
type ResponseError struct {
	Kind error
	// Field names the field at fault: a ResponseHeader field ("Status",
	// "ContentLength", "ContentType", "Server", "Headers"), "date",
	// "trailers" or "body", or the ResponseWriter method misused.
	Field string
	// Index is the position in Headers or trailers, -1 for other fields.
	Index int
}

func (e *ResponseError) Error() string {
	s := e.Kind.Error() + ": " + e.Field
	if e.Index >= 0 {
		s += "[" + strconv.Itoa(e.Index) + "]"
	}
	return s
}

// Unwrap returns Kind, for errors.Is.
func (e *ResponseError) Unwrap() error { return e.Kind }

func respErr(kind *Violation, field string, index int) error {
	return &ResponseError{Kind: kind, Field: field, Index: index}
}

// tchar marks the characters of a token (RFC 9110 §5.6.2).
var tchar = func() (t [256]bool) {
	for _, c := range []byte("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		t[c] = true
	}
	return
}()

// valueByte marks the bytes a field value may hold (RFC 9110 §5.5):
// HTAB, SP, visible ASCII and obs-text; not NUL, CR, LF, other controls
// or DEL.
var valueByte = func() (t [256]bool) {
	t['\t'] = true
	for c := 0x20; c < 0x100; c++ {
		t[c] = c != 0x7f
	}
	return
}()

func validName(name []byte) bool {
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if !tchar[c] {
			return false
		}
	}
	return true
}

// validValue reports whether v is a field-value: field-vchars, with SP and
// HTAB only between them. It checks eight bytes at a time for a byte below
// 0x20 or equal to 0x7f (DEL), and looks at the bytes one by one only in
// a word that has one (HTAB is allowed).
func validValue[T ~string | ~[]byte](v T) bool {
	n := len(v)
	if n == 0 {
		return true
	}
	if isOWS(v[0]) || isOWS(v[n-1]) {
		return false
	}
	if n < 8 {
		return validBytes(v)
	}
	for i := 0; ; i += 8 {
		if i+8 > n {
			i = n - 8 // the last word overlaps the one before
		}
		w := v[i : i+8]
		_ = w[7]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if suspect(x) && !validBytes(w) {
			return false
		}
		if i+8 == n {
			return true
		}
	}
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// suspect reports whether a byte of x is below 0x20 or is 0x7f (the
// word tricks of "Bit Twiddling Hacks": hasless and haszero, exact for
// these constants).
func suspect(x uint64) bool {
	y := x ^ 0x7f*lsb
	return (x-0x20*lsb)&^x&msb|(y-lsb)&^y&msb != 0
}

func validBytes[T ~string | ~[]byte](v T) bool {
	for i := 0; i < len(v); i++ {
		if !valueByte[v[i]] {
			return false
		}
	}
	return true
}

func isOWS(c byte) bool { return c == ' ' || c == '\t' }

// fieldIs reports whether name equals lower, a lowercase ASCII string,
// ignoring ASCII case.
func fieldIs(name []byte, lower string) bool {
	if len(name) != len(lower) {
		return false
	}
	for i := range len(name) {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// checkList checks a Connection or (trailer set) Trailer value: a
// comma-separated list of tokens (RFC 9110 §7.6.1, §6.6.2), without the
// option close, which only ResponseHeader.Close may send, or the names of
// fields a trailer may not carry (see checkTrailerName). Empty elements
// are skipped, as a recipient does.
func checkList(v []byte, trailer bool) *Violation {
	for {
		tok := v
		i := bytes.IndexByte(v, ',')
		if i >= 0 {
			tok, v = v[:i], v[i+1:]
		}
		for len(tok) > 0 && isOWS(tok[0]) {
			tok = tok[1:]
		}
		for len(tok) > 0 && isOWS(tok[len(tok)-1]) {
			tok = tok[:len(tok)-1]
		}
		if len(tok) > 0 && !validName(tok) {
			return ErrResponseFieldValue
		}
		if trailer && framingName(tok) || !trailer && fieldIs(tok, "close") {
			return ErrResponseFraming
		}
		if i < 0 {
			return nil
		}
	}
}

// AppendResponseHeader appends the head of a response — status line,
// header fields and the empty line — and returns the extended slice. The
// fields come in this order: Date (from date, when not empty), Server,
// Content-Type, Content-Length or "Transfer-Encoding: chunked",
// "Connection: close", then h.Headers. A 1xx response gets only its
// status line and h.Headers; 204 and 304 get no Content-Length or
// Transfer-Encoding. date is an IMF-fixdate, from DateCache or
// httpdate.Append; it is checked like any field value.
//
// Nothing is written, dst is returned unchanged and the error is a
// *ResponseError, when the response would be broken:
//
//   - ErrResponseStatus: Status outside 100–999 (0 means 200);
//   - ErrResponseContentLength: ContentLength below -1;
//   - ErrResponseFieldName: a name in Headers that is not a token;
//   - ErrResponseFieldValue: a value (of Headers, ContentType, Server or
//     date) holding a control character other than HTAB — CR and LF above
//     all, which would let the value split the response — or leading or
//     trailing whitespace; or a Connection or Trailer value that is not
//     a comma-separated list of tokens;
//   - ErrResponseFraming: a field in Headers named (in any case)
//     Content-Length or Transfer-Encoding, always; Connection when Close
//     is set or when its value lists the close option (other options,
//     such as keep-alive for an HTTP/1.0 client or upgrade for a 101, are
//     fine); Date, Server or Content-Type when the call writes that field
//     itself; Trailer when it announces a field a trailer may not carry
//     (see AppendLastChunk).
//
// Cost: one pass over the fields, a table lookup per byte; integers are
// formatted with strconv.AppendInt. It allocates only when dst must grow
// or when it fails (the error).
func AppendResponseHeader(dst []byte, h *ResponseHeader, date []byte) ([]byte, error) {
	return appendHead(dst, h, h.ContentLength, date, false, 0)
}

// Framing a ResponseWriter decides from the request, for appendHead.
const (
	hdClose     uint8 = 1 << iota // "Connection: close", whatever h.Close says
	hdKeepAlive                   // "Connection: keep-alive" (to an HTTP/1.0 client)
	hdNoLength                    // neither Content-Length nor Transfer-Encoding: the close ends the body
)

// appendHead is AppendResponseHeader with the content length given apart
// from h, the date's check skipped when trusted (DateCache's), and the
// framing flags hd (hdClose, hdKeepAlive, hdNoLength) of final responses.
func appendHead(dst []byte, h *ResponseHeader, cl int64, date []byte, trusted bool, hd uint8) ([]byte, error) {
	status := h.Status
	if status == 0 {
		status = 200
	}
	if status < 100 || status > 999 {
		return dst, respErr(ErrResponseStatus, "Status", -1)
	}
	if cl < -1 {
		return dst, respErr(ErrResponseContentLength, "ContentLength", -1)
	}
	final := status >= 200
	if !final {
		date = nil
	}
	n0 := len(dst)
	dst = AppendStatusLine(dst, status)
	if final {
		if len(date) > 0 {
			if !trusted && !validValue(date) {
				return dst[:n0], respErr(ErrResponseFieldValue, "date", -1)
			}
			dst = append(dst, "Date: "...)
			dst = append(dst, date...)
			dst = append(dst, '\r', '\n')
		}
		if h.Server != "" {
			if !validValue(h.Server) {
				return dst[:n0], respErr(ErrResponseFieldValue, "Server", -1)
			}
			dst = append(dst, "Server: "...)
			dst = append(dst, h.Server...)
			dst = append(dst, '\r', '\n')
		}
		if h.ContentType != "" {
			if !validValue(h.ContentType) {
				return dst[:n0], respErr(ErrResponseFieldValue, "ContentType", -1)
			}
			dst = append(dst, "Content-Type: "...)
			dst = append(dst, h.ContentType...)
			dst = append(dst, '\r', '\n')
		}
		switch {
		case status == 204 || status == 304 || hd&hdNoLength != 0:
		case cl < 0:
			dst = append(dst, "Transfer-Encoding: chunked\r\n"...)
		default:
			dst = append(dst, "Content-Length: "...)
			dst = strconv.AppendInt(dst, cl, 10)
			dst = append(dst, '\r', '\n')
		}
		if h.Close || hd&hdClose != 0 {
			dst = append(dst, "Connection: close\r\n"...)
		} else if hd&hdKeepAlive != 0 {
			dst = append(dst, "Connection: keep-alive\r\n"...)
		}
	}
	for i := range h.Headers {
		f := &h.Headers[i]
		if v := checkField(f, h, final, len(date) > 0); v != nil {
			return dst[:n0], respErr(v, "Headers", i)
		}
		dst = append(dst, f.Name...)
		dst = append(dst, ':', ' ')
		dst = append(dst, f.Value...)
		dst = append(dst, '\r', '\n')
	}
	return append(dst, '\r', '\n'), nil
}

// checkField checks one of a ResponseHeader's Headers: final says the
// response is not 1xx (so the struct's fields are written), dated that a
// Date field is written.
func checkField(f *Header, h *ResponseHeader, final, dated bool) *Violation {
	if !validName(f.Name) {
		return ErrResponseFieldName
	}
	if !validValue(f.Value) {
		return ErrResponseFieldValue
	}
	switch len(f.Name) {
	case 4:
		if dated && fieldIs(f.Name, "date") {
			return ErrResponseFraming
		}
	case 6:
		if final && h.Server != "" && fieldIs(f.Name, "server") {
			return ErrResponseFraming
		}
	case 10:
		if fieldIs(f.Name, "connection") {
			if final && h.Close {
				return ErrResponseFraming
			}
			return checkList(f.Value, false)
		}
	case 7:
		if fieldIs(f.Name, "trailer") {
			return checkList(f.Value, true)
		}
	case 12:
		if final && h.ContentType != "" && fieldIs(f.Name, "content-type") {
			return ErrResponseFraming
		}
	case 14:
		if fieldIs(f.Name, "content-length") {
			return ErrResponseFraming
		}
	case 17:
		if fieldIs(f.Name, "transfer-encoding") {
			return ErrResponseFraming
		}
	}
	return nil
}

// headBound bounds the bytes appendHead writes for h and date.
func headBound(h *ResponseHeader, date []byte) int {
	// The longest status line (46 bytes), the names, colons and CRLFs of
	// the fields the struct decides (90), a 19-digit length and the
	// final CRLF.
	n := 160 + len(date) + len(h.Server) + len(h.ContentType)
	for i := range h.Headers {
		n += len(h.Headers[i].Name) + len(h.Headers[i].Value) + 4
	}
	return n
}

// AppendChunk appends p as one chunk of a chunked body (RFC 9112 §7.1):
// its size in hexadecimal, CRLF, p, CRLF. An empty p appends nothing,
// since a chunk of size zero is the last chunk, which ends the body (see
// AppendLastChunk). It allocates only when dst must grow.
func AppendChunk(dst, p []byte) []byte {
	if len(p) == 0 {
		return dst
	}
	dst = appendChunkSize(dst, len(p))
	dst = append(dst, p...)
	return append(dst, '\r', '\n')
}

// appendChunkSize appends a chunk's size line.
func appendChunkSize(dst []byte, n int) []byte {
	dst = strconv.AppendUint(dst, uint64(n), 16)
	return append(dst, '\r', '\n')
}

// AppendLastChunk appends the end of a chunked body (RFC 9112 §7.1): the
// last chunk ("0" CRLF), the trailer fields, and the empty line. Trailer
// names must be tokens and values valid field values, as in
// AppendResponseHeader; a trailer that would change the framing —
// Content-Length, Transfer-Encoding, Trailer or Connection (RFC 9110
// §6.5.1) — is refused with ErrResponseFraming. On an error nothing is
// written, dst is returned unchanged and the error is a *ResponseError
// naming "trailers" and the index. It allocates only when dst must grow
// or when it fails.
func AppendLastChunk(dst []byte, trailers []Header) ([]byte, error) {
	n0 := len(dst)
	dst = append(dst, '0', '\r', '\n')
	for i := range trailers {
		f := &trailers[i]
		if v := checkTrailer(f); v != nil {
			return dst[:n0], respErr(v, "trailers", i)
		}
		dst = append(dst, f.Name...)
		dst = append(dst, ':', ' ')
		dst = append(dst, f.Value...)
		dst = append(dst, '\r', '\n')
	}
	return append(dst, '\r', '\n'), nil
}

func checkTrailer(f *Header) *Violation {
	if !validName(f.Name) {
		return ErrResponseFieldName
	}
	if !validValue(f.Value) {
		return ErrResponseFieldValue
	}
	if framingName(f.Name) {
		return ErrResponseFraming
	}
	return nil
}

// framingName reports whether name is one a trailer may not carry because
// it changes the message's framing: Content-Length, Transfer-Encoding,
// Trailer, Connection.
func framingName(name []byte) bool {
	return fieldIs(name, "content-length") || fieldIs(name, "transfer-encoding") ||
		fieldIs(name, "trailer") || fieldIs(name, "connection")
}
