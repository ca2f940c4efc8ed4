// Package hpack implements HPACK, the header compression of HTTP/2 (RFC
// 7541), with the limits and the header-list validation (RFC 9113 §8) an
// HTTP/2 server needs inside the decoder rather than around it.
//
// # Decoding
//
// A [Decoder] belongs to one connection and decodes its header blocks in
// order. [Decoder.DecodeBlock] takes a whole block and calls an
// [EmitFunc] per field; [Decoder.DecodeFragment] takes a block frame by
// frame (HEADERS, then CONTINUATION) and emits each field as soon as it is
// whole:
//
//	d := &hpack.Decoder{Validate: hpack.Request} // a server's
//	err := d.DecodeBlock(block, func(name, value []byte, sensitive bool) error {
//		req.Header.Add(string(name), string(value)) // copies
//		return nil
//	})
//
// The name and value handed to emit alias the decoder's memory (its
// dynamic table, a scratch buffer for Huffman-decoded strings) or the
// block itself, and are valid only until emit returns. Fields taken from
// the static table or indexed in the dynamic table cost no copy and no
// allocation; a warm decoder allocates nothing.
//
// How this fits the contract of netkit's codecs (package codec): the
// zero Decoder and Encoder are ready to use, limits are Max* fields whose
// zero is the default, errors are a *SyntaxError or a *FieldError whose
// Kind is a *Violation embedding codec.Rule. The decode verbs differ, on
// purpose. A header block is not a stream of messages, nor a message that
// says where it ends: HTTP/2's frames delimit it, so there is no Decode
// over a *buf.Composite and no byte count to return. And a decoded list is
// handed out field by field, each aliasing the decoder's table or the
// block until the next field, because collecting the fields into a value
// would mean copying them. So the methods are DecodeBlock (a whole block)
// and DecodeFragment (a block frame by frame), each with an EmitFunc.
//
// The dynamic table is a ring of entries over one byte arena of twice the
// table's maximum size (inline in the Decoder at the default 4096), so
// adding an entry copies its bytes and allocates nothing. Huffman decoding
// uses lookup tables that decode up to two symbols per step; it rejects
// padding longer than 7 bits, padding that is not a prefix of EOS, and an
// encoded EOS (RFC 7541 §5.2).
//
// # Errors
//
// Two kinds, as HTTP/2 needs them:
//
//   - A *[SyntaxError] (Kind a [Violation] sentinel such as [ErrIndexRange]
//     or [ErrHuffmanPadding], Offset in the block) means the block cannot
//     be decoded and the dynamic table may be out of step: a connection
//     error of type COMPRESSION_ERROR. The Decoder refuses every later
//     block until [Decoder.Reset].
//   - A *[FieldError] is a stream error: the block was decoded to its end
//     and the table is in step, but the header list is refused, because it
//     is over a limit ([ErrListTooLarge], [ErrTooManyFields]: answer 431 or
//     RST_STREAM) or malformed (RFC 9113 §8.1.1: RST_STREAM with
//     PROTOCOL_ERROR). Its Kind is a [Violation] with Stream set, Field
//     the name of the field at fault and Index its position (-1 for a rule
//     about the whole list). As in Netty, the error is raised after the
//     whole block; the decoder emits no field from the one at fault on,
//     and the caller discards the fields it emitted before. [IsStreamError]
//     tells the two apart.
//
// An error the EmitFunc returns is returned as it is, after the whole
// block, with the table in step.
//
// Stricter than RFC 7541 readers usually are, by design: a dynamic table
// size update after the block's first field is an error even when the
// table is empty (golang.org/x/net's decoder lets it pass then,
// golang/go#29187); more than two updates in a block are an error; after
// [Decoder.SetMaxTableSize] lowers the bound, the peer's next block must
// begin with an update no larger (RFC 7541 §4.2's MUST); integers span at
// most five continuation bytes and 32 bits.
//
// # Limits
//
// Every limit is on by default and bounds memory before it is taken; each
// is a field of the Decoder, 0 meaning the default:
//
//	limit                      default   Decoder field       error
//	header list size           64 KiB    MaxHeaderListSize   ErrListTooLarge (stream)
//	fields per list            256       MaxFields           ErrTooManyFields (stream)
//	string length (decoded)    list size MaxStringLength     ErrStringTooLong (connection)
//	dynamic table size         4096      MaxTableSize        ErrSizeUpdateLarge (connection)
//
// A table size of 0 is a real setting (no dynamic table): MaxTableSize
// spells it with a negative value, on the Decoder and the Encoder.
//
// The header-list size counts name + value + 32 per field, as
// SETTINGS_MAX_HEADER_LIST_SIZE does (RFC 9113 §6.5.2). 64 KiB sits
// between the peers': net/http's server allows 1 MiB of header bytes
// (http.DefaultMaxHeaderBytes) and x/net's Framer 16 MiB when unset, far
// beyond any real request and enough for an HPACK bomb (CVE-2016-6581: 16
// KB of block becoming 64 MB of headers) to cost a server real memory and
// time; Netty's 8 KiB refuses real traffic — a browser with a few large
// cookies, or a service mesh's tracing and auth headers, passes 8 KiB. 64
// KiB is eight times Netty's, four times the 16 KiB HTTP/2 frame that
// carries most blocks whole. The bound also caps what a
// decoder emits for one block: once over it, the decoder stops emitting,
// processes the rest of the block to keep its table in step (no string is
// held beyond the table and the string limit), then reports. The fields
// limit stops floods of tiny fields, which a byte budget alone lets
// through by the thousand. The string limit defaults to the list size,
// since a longer string cannot be part of an acceptable list.
//
// # Validation
//
// A Decoder whose Validate is Request (a server's) or Response (a
// client's) checks each header list against RFC 9113 §8: unknown pseudo-headers,
// response pseudo-headers in a request and request ones in a response,
// repeated pseudo-headers, pseudo-headers after regular fields or in
// trailers ([Decoder.DecodeTrailers]), a request without :method, :scheme
// or :path (CONNECT: only :method and :authority, RFC 9113 §8.5; :protocol
// only with CONNECT, RFC 8441), an empty :path for http and https, a
// response without a three-digit :status, uppercase letters or characters
// outside RFC 9110's token in names, NUL, CR or LF in values and values
// starting or ending with a space or tab, connection-specific fields
// (connection, proxy-connection, keep-alive, transfer-encoding, upgrade)
// and te other than "trailers". The zero Decoder (NoValidation)
// validates nothing but still enforces the limits.
//
// # Encoding
//
// An [Encoder] also belongs to one connection; its MaxTableSize bounds
// the table it keeps whatever the peer allows. [Encoder.AppendField] and
// [Encoder.AppendFields] append a field's shortest representation: an
// index when the static or dynamic table holds the field, a literal
// (indexing its name when known) added to the dynamic table when it fits,
// a never-indexed literal for sensitive fields. Lookups go through hash
// indexes of both tables, never a scan. Strings are Huffman-coded only
// when that is strictly shorter. When the peer's SETTINGS_HEADER_TABLE_SIZE
// changes ([Encoder.SetMaxTableSize]), the next block starts with the size
// updates RFC 7541 §4.2 asks for. A warm encoder allocates nothing. The
// Append methods return no error: every field can be encoded.
//
// # Decoding details
//
// Huffman decoding reads 13 bits per table lookup. A validating decoder
// marks each dynamic-table entry it has checked, so a field indexed again
// is not checked twice. The HPACK bomb (CVE-2016-6581: one 4 KiB entry,
// then 16,384 one-byte references to it) is refused with ErrListTooLarge
// once 64 KiB of headers have been emitted.
//
// # Testing
//
// RFC 7541 Appendix C (C.1 to C.6: decoding, with the table checked after
// every block, and byte-exact encoding) runs as tables; FuzzDecode checks
// the decoder against a slow reference decoder, on whole blocks and on
// fragments; FuzzRoundTrip encodes and decodes; the Huffman code is
// checked against a bit-by-bit reference (FuzzHuffmanDecode,
// FuzzHuffmanRoundTrip) and against x/net (every byte, 20,000 random
// strings, the same accept or reject). In internal/peers/hpackpeers,
// differential tests run both ways (this package's encoder to both
// decoders, x/net's encoder to both) over 300 random connections of 60
// blocks with table-size changes mid-stream, comparing the header lists
// and the dynamic tables after every block, and a fuzz target must agree
// with x/net on accept or reject except in the rows its README documents:
// this package is stricter on three, and x/net wrongly refuses the two
// size updates its own encoder sends after a setting went down and up.
package hpack
