package http1

import (
	"bytes"
	"strconv"

	"github.com/netkit/netkit/codec"
	"github.com/netkit/netkit/codec/internal/ascii"
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
	// length the GET would have, and no body follows; -1 there (a length
	// only the body would tell) gets neither field from a
	// ResponseWriter given the request. Responses with
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

// ResponseError is the type of the errors that report a response the
// package refuses to write.
//
// Deprecated: use codec.FieldError, which it names.
type ResponseError = codec.FieldError

func respErr(kind *Violation, field string, index int) error {
	return &codec.FieldError{Kind: kind, Field: field, Index: index}
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
		for len(tok) > 0 && ascii.IsOWS(tok[0]) {
			tok = tok[1:]
		}
		for len(tok) > 0 && ascii.IsOWS(tok[len(tok)-1]) {
			tok = tok[:len(tok)-1]
		}
		if len(tok) > 0 && !ascii.IsToken(tok) {
			return ErrResponseFieldValue
		}
		if trailer && framingName(tok) || !trailer && ascii.EqualLower(tok, "close") {
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
// *codec.FieldError, when the response would be broken:
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
			if !trusted && !ascii.ValidFieldValue(date) {
				return dst[:n0], respErr(ErrResponseFieldValue, "date", -1)
			}
			dst = append(dst, "Date: "...)
			dst = append(dst, date...)
			dst = append(dst, '\r', '\n')
		}
		if h.Server != "" {
			if !ascii.ValidFieldValue(h.Server) {
				return dst[:n0], respErr(ErrResponseFieldValue, "Server", -1)
			}
			dst = append(dst, "Server: "...)
			dst = append(dst, h.Server...)
			dst = append(dst, '\r', '\n')
		}
		if h.ContentType != "" {
			if !ascii.ValidFieldValue(h.ContentType) {
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
	if !ascii.IsToken(f.Name) {
		return ErrResponseFieldName
	}
	if !ascii.ValidFieldValue(f.Value) {
		return ErrResponseFieldValue
	}
	switch len(f.Name) {
	case 4:
		if dated && ascii.EqualLower(f.Name, "date") {
			return ErrResponseFraming
		}
	case 6:
		if final && h.Server != "" && ascii.EqualLower(f.Name, "server") {
			return ErrResponseFraming
		}
	case 10:
		if ascii.EqualLower(f.Name, "connection") {
			if final && h.Close {
				return ErrResponseFraming
			}
			return checkList(f.Value, false)
		}
	case 7:
		if ascii.EqualLower(f.Name, "trailer") {
			return checkList(f.Value, true)
		}
	case 12:
		if final && h.ContentType != "" && ascii.EqualLower(f.Name, "content-type") {
			return ErrResponseFraming
		}
	case 14:
		if ascii.EqualLower(f.Name, "content-length") {
			return ErrResponseFraming
		}
	case 17:
		if ascii.EqualLower(f.Name, "transfer-encoding") {
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
// written, dst is returned unchanged and the error is a *codec.FieldError
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
	if !ascii.IsToken(f.Name) {
		return ErrResponseFieldName
	}
	if !ascii.ValidFieldValue(f.Value) {
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
	return ascii.EqualLower(name, "content-length") || ascii.EqualLower(name, "transfer-encoding") ||
		ascii.EqualLower(name, "trailer") || ascii.EqualLower(name, "connection")
}
