// Package http1 parses HTTP/1.1 requests (RFC 9112) and writes responses,
// without allocating, and strictly: every framing ambiguity that lets
// requests be smuggled past a proxy is refused with a typed error that
// names the status to answer (see StatusOf).
//
// The package follows the contract of package codec: no I/O, no panics on
// any input, ErrShort (codec.ErrShort) when more input is needed, errors
// of type *SyntaxError carrying the offset and one of the exported
// *Violation kinds (each a codec.Rule plus the status to answer), a
// *codec.FieldError for a response the writer refuses, and limits on by
// default as exported fields of Decoder, whose zero value is ready to use.
//
// # Parsing requests
//
// Decoder.DecodeBytes parses one whole request from a []byte;
// Decoder.Decode parses the request at the front of a connection's
// *buf.Composite, whether it arrives over several reads or several arrive
// in one. Both fill a Request in place, whose slices alias the input.
//
// What is refused, each with its own *Violation: a request line, header
// section or header count over its limit; a method, target, field name or
// field value with a character its grammar does not allow (field values
// may hold obs-text, 0x80–0xFF); whitespace between a field name and its
// colon; obs-fold; a line ended by LF alone (unless Decoder.AllowBareLF); a
// Content-Length that is not 1*DIGIT or overflows, or two that differ;
// Content-Length with Transfer-Encoding; a Transfer-Encoding whose last
// coding is not chunked, that names chunked twice, or in an HTTP/1.0
// request; a transfer coding other than chunked (501); a missing or
// repeated Host in HTTP/1.1; an Expect other than 100-continue (417); a
// chunk size that is not hex or has more than 15 digits, a malformed chunk
// extension (RFC 9112 §7.1.1 grammar) or chunk line longer than 4 KiB,
// chunk data not followed by CRLF, a malformed trailer field; a body over
// the limit (413). A request without Content-Length or Transfer-Encoding
// has no body (RFC 9112 §6.3).
//
// Decisions where the RFCs leave a choice: HTTP/1.2 to HTTP/1.9 are parsed
// as HTTP/1.1 (RFC 9110 §2.5); empty lines before the request line are
// refused rather than skipped; the request-target may hold only the
// characters RFC 3986 allows (so not '"', '<', '>', '\', '^', '`', '{',
// '|', '}', nor '#'); an absolute-form target's authority is not compared
// with the Host field, it replaces it in Request.Host (RFC 9112 §3.2.2),
// as a CONNECT's target does, and its path after the authority is
// Request.Path ("/x" for "http://a/x", as for the origin-form "/x"); an Expect: 100-continue in HTTP/1.0 is
// ignored (RFC 9110 §10.1.1).
//
// # Limits
//
// Limits are checked as bytes arrive, so a request is refused as soon as
// it passes one, never after it was buffered whole: the request line 8 KiB
// (414); the header section 16 KiB and 100 fields (431); a chunked body's
// trailer section 4 KiB (431, net/http's limit) and 100 fields; the body
// 4 MiB (413), from the Content-Length at once, or as the chunks pass it.
// Each is a field of Decoder (MaxRequestLine, MaxHeaderBytes,
// MaxTrailerBytes, MaxHeaders, MaxBodySize), where 0 means the default.
//
// # How a request is parsed
//
// One pass over the head: line ends by bytes.IndexByte, names by a table
// four bytes per step, values 16 bytes per step, the method by a switch on
// length and bytes. Host (or the host an absolute-form or CONNECT target
// names), Content-Length, Transfer-Encoding, Connection, Expect and Upgrade
// are found on the way. A chunked body is checked whole first, then
// de-chunked in place. Decoding over a *buf.Composite parses the first
// read's bytes where they lie, scans a slowly arriving head once, answers
// ErrContinue once for "Expect: 100-continue", and keeps the request's
// bytes (a view of the read, or a pooled copy when it straddles reads)
// until the next Decode or Release.
//
// # Responses
//
// AppendStatusLine writes status lines precomputed for 38 codes.
// DateCache formats the IMF-fixdate once per second, with codec/httpdate.
// AppendResponseHeader writes the framing from its struct (Content-Length
// or chunked; none for 1xx, 204 and 304) and refuses header names and
// values that would split a response. AppendChunk and AppendLastChunk
// write chunked bodies. ResponseWriter writes into pooled buf buffers that
// it hands to the connection for writev.
//
// # Testing
//
// TestSmuggling has 39 cases, one or more per rule above, each refused
// with its sentinel, status and offset, by the slice parser and by Decode,
// in one read and byte by byte; TestRules 43 more, named by RFC section;
// TestDecodeEverySplit tries every split of three requests into two and
// three reads. FuzzDecodeBytes compares the parser with a slow reference
// parser (same verdict, violation and fields, and Decode over random
// splits). The writer has FuzzAppendResponseHeader, its responses are read
// back by net/http.ReadResponse, and it allocates nothing. In
// internal/peers/http1peers, TestDifferentialNetHTTP runs 20,000 valid and
// 60,000 mutated requests through this parser and net/http.ReadRequest:
// where both accept they agree, every request net/http refuses is refused
// here too, and each request only this package refuses is a row of the
// stricter table (24 rows: CL with TE, bare LF, obs-fold, Host rules,
// limits …) whose status a live net/http server confirms. The table of
// requests this package took and net/http refused is empty (its first four
// rows were fixed in the parser); FuzzParseRequest there runs the same
// comparison on arbitrary bytes. Both tables are in
// internal/peers/http1peers/README.md.
package http1
