package http1

import (
	"errors"

	"github.com/netkit/netkit/codec"
)

// ErrShort means the input ends before the request does: append more bytes
// and call again. Nothing was consumed. It is codec.ErrShort.
var ErrShort = codec.ErrShort

// ErrContinue is returned once by Decoder.Decode for a request whose head
// is complete, that asks for "Expect: 100-continue" and whose body has not
// arrived: the server answers "HTTP/1.1 100 Continue" (or a final status,
// to refuse the body) and calls Decode again when more bytes arrive, which
// then returns ErrShort until the body is complete. Nothing was consumed.
var ErrContinue = errors.New("http1: the client waits for 100 Continue")

// A SyntaxError reports a request the parser refuses: what (Kind, one of
// the package's *Violation sentinels) and where (Offset, in bytes from the
// start of the request). StatusOf tells which status to answer. After a
// SyntaxError the connection's framing is lost: answer, then close.
type SyntaxError = codec.SyntaxError

// A Violation is a rule a request breaks, or a response would break. Every
// sentinel error of the package except ErrShort and ErrContinue is one;
// they are compared by identity (errors.Is).
type Violation struct {
	// Rule is the rule: where it is stated (Ref, such as "RFC 9112
	// §6.3") and what is wrong (Msg).
	codec.Rule
	// Status is the response status a server should answer: 400, 413,
	// 414, 417, 431, 501 or 505 for a request the parser refuses; 500 for
	// a response the writer refuses (the server's own fault).
	Status int
}

// Error returns "http1: <Msg> (<Ref>)".
func (v *Violation) Error() string { return "http1: " + v.Rule.String() }

func violation(status int, ref, msg string) *Violation {
	return &Violation{Rule: codec.Rule{Ref: ref, Msg: msg}, Status: status}
}

// StatusOf returns the status a server should answer for err: the Status
// of the *Violation it wraps, 0 for nil, ErrShort and ErrContinue, and 400
// for any other error.
func StatusOf(err error) int {
	if err == nil || err == ErrShort || err == ErrContinue {
		return 0
	}
	var v *Violation
	if errors.As(err, &v) {
		return v.Status
	}
	return 400
}

// The request line (RFC 9112 §3).
var (
	ErrRequestLine         = violation(400, "RFC 9112 §3", "malformed request line")
	ErrMethod              = violation(400, "RFC 9110 §9.1", "invalid method token")
	ErrTarget              = violation(400, "RFC 9112 §3.2", "invalid request-target")
	ErrVersion             = violation(400, "RFC 9112 §2.3", "malformed HTTP-version")
	ErrVersionNotSupported = violation(505, "RFC 9110 §15.6.6", "HTTP major version other than 1")
	ErrURITooLong          = violation(414, "RFC 9112 §3", "request line longer than the limit")
)

// The header section (RFC 9112 §5, RFC 9110 §5).
var (
	ErrHeaderName       = violation(400, "RFC 9110 §5.1", "invalid character in a field name")
	ErrHeaderValue      = violation(400, "RFC 9110 §5.5", "invalid character in a field value")
	ErrSpaceBeforeColon = violation(400, "RFC 9112 §5.1", "whitespace between field name and colon")
	ErrObsFold          = violation(400, "RFC 9112 §5.2", "obsolete line folding")
	ErrBareLF           = violation(400, "RFC 9112 §2.2", "line ended by LF without CR")
	ErrHeaderTooLarge   = violation(431, "RFC 6585 §5", "header section larger than the limit")
	ErrTooManyHeaders   = violation(431, "RFC 6585 §5", "more header fields than the limit")
	ErrHost             = violation(400, "RFC 9112 §3.2", "missing, repeated or invalid Host")
	ErrExpect           = violation(417, "RFC 9110 §10.1.1", "expectation other than 100-continue")
)

// Message body framing (RFC 9112 §6 and §7).
var (
	ErrContentLength          = violation(400, "RFC 9110 §8.6", "invalid Content-Length")
	ErrDuplicateContentLength = violation(400, "RFC 9112 §6.3", "Content-Length fields that differ")
	ErrLengthAndChunked       = violation(400, "RFC 9112 §6.3", "both Content-Length and Transfer-Encoding")
	ErrTransferEncoding       = violation(400, "RFC 9112 §6.3", "Transfer-Encoding whose final coding is not chunked, or in HTTP/1.0")
	ErrUnsupportedCoding      = violation(501, "RFC 9112 §6.1", "transfer coding other than chunked")
	ErrBodyTooLarge           = violation(413, "RFC 9110 §15.5.14", "body larger than the limit")
	ErrChunkSize              = violation(400, "RFC 9112 §7.1", "malformed chunk size")
	ErrChunkSizeOverflow      = violation(400, "RFC 9112 §7.1", "chunk size overflows 63 bits")
	ErrChunkExtension         = violation(400, "RFC 9112 §7.1.1", "malformed chunk extension")
	ErrChunkData              = violation(400, "RFC 9112 §7.1", "chunk data not followed by CRLF")
	ErrTrailer                = violation(400, "RFC 9112 §7.1.2", "malformed trailer field")
)

// Writing responses (RFC 9110 §5, RFC 9112 §4, §6 and §7). A response
// the package refuses to write is a fault of the server, not of the
// client: these violations carry Status 500, and AppendResponseHeader,
// AppendLastChunk and ResponseWriter return them wrapped in a
// *codec.FieldError that names the field at fault: Field is a
// ResponseHeader field ("Status", "ContentLength", "ContentType",
// "Server", "Headers"), "date", "trailers" or "body", or the
// ResponseWriter method misused; Index is the position in Headers or
// trailers, -1 for other fields. Nothing of the refused response has been
// written.
var (
	ErrResponseStatus        = violation(500, "RFC 9112 §4", "status code outside 100–999")
	ErrResponseFieldName     = violation(500, "RFC 9110 §5.1", "response field name is not a token")
	ErrResponseFieldValue    = violation(500, "RFC 9110 §5.5", "response field value with a control character (CR, LF, NUL…) or leading or trailing whitespace")
	ErrResponseFraming       = violation(500, "RFC 9112 §6", "response field that the writer's own fields decide (Content-Length, Transfer-Encoding, Connection: close, or one written from a set field)")
	ErrResponseContentLength = violation(500, "RFC 9110 §8.6", "content length below -1")
	ErrResponseBody          = violation(500, "RFC 9112 §6.3", "body longer or shorter than its Content-Length, or sent in a response that has none")
	ErrResponseState         = violation(500, "RFC 9112 §6", "response written out of order: body or end without a header, or a header before the previous response ended")
	ErrResponseAnswered      = violation(500, "RFC 9110 §15", "a second final response to one request (or a write after it)")
)
