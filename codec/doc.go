// Package codec states the contract every netkit codec follows and holds
// the types the codecs share: ErrShort, StreamDecoder, Rule, SyntaxError
// and FieldError. The codecs are its subpackages; a newcomer who has
// learned one knows the shape of all.
//
// # The contract
//
//   - No I/O. A codec never reads from or writes to a connection, never
//     starts a goroutine and never logs. It works on memory it is handed.
//   - Streams: Decode(in *buf.Composite, dst *T) error takes one message
//     off the front of in (see StreamDecoder). When in ends before the
//     message does it returns ErrShort and consumes nothing, so the caller
//     appends more bytes and calls again. (One exception, for bounded
//     memory: a frame decoder discarding a too-long frame drops its bytes
//     as they arrive; see codec/frame.)
//   - Slices: DecodeBytes(p []byte, dst *T) (n int, err error) decodes the
//     message at the front of p and says how many bytes it used.
//   - Encoders append: AppendX(dst []byte, …) ([]byte, error), returning
//     dst unchanged on error (AppendX(dst, …) []byte when no value can be
//     refused). They allocate only when dst must grow. What an encoder
//     writes, its decoder accepts.
//   - Limits are exported Max* fields of the decoder or encoder, where 0
//     means the documented default; every default is safe, and no input
//     makes a decoder use memory beyond its limits. The zero value of a
//     decoder or encoder is ready to use; a single New function exists
//     only where state must be built (a search automaton, a table).
//   - Decoders never panic, whatever the input. Every decoder has a fuzz
//     target beside a slow reference model or a peer that checks this.
//   - Errors. ErrShort is the one "more input" sentinel (a package may
//     name it as its own: var ErrShort = codec.ErrShort). Malformed input
//     is a *SyntaxError carrying the byte offset and a Kind, one of the
//     codec's exported sentinels; each codec names the type as its own with
//     a type alias. A sentinel that is a rule of a specification is the
//     codec's Violation type, which embeds Rule{Ref, Msg} and adds what the
//     protocol answers with (an HTTP status, an MQTT reason code, an
//     HTTP/2 stream flag). A value refused for one field is a *FieldError.
//     Sentinels are prefixed with the package name ("httpdate: bad month"),
//     and errors.Is on the sentinel and errors.As on the typed error work.
//   - Fields that alias the input say in their documentation how long they
//     stay valid (usually: until the input is modified or released).
//     Borrowed views are the default; ownership (*buf.Buffer) only on
//     request.
//   - Hot paths allocate nothing in steady state; tests assert it with
//     testing.AllocsPerRun, and benchmarks compare against the standard
//     library (or a peer) as sibling sub-benchmarks.
//
// # Subpackages
//
//	package    what                                           reference in tests
//	frame      line, delimiter, fixed and length-field        naive model, random chunkings
//	           frame decoders over *buf.Composite
//	query      query-string escape, unescape and parse        net/url
//	httpdate   RFC 9110 dates (IMF-fixdate, RFC 850,          net/http.ParseTime,
//	           asctime) and RFC 6265 cookie dates             a slow RFC 6265 model
//	mqtt       MQTT 3.1.1 and 5.0 control packets, over       a real mosquitto broker;
//	           []byte and *buf.Composite                      mochi and paho (peers)
//	hpack      HTTP/2 header compression (RFC 7541) with      a slow model; x/net's
//	           limits and RFC 9113 §8 validation              hpack (peers)
//	http1      HTTP/1.1 requests (RFC 9112), strict against   a slow model;
//	           smuggling, and responses                       net/http (peers)
//	http2      HTTP/2 frames (RFC 9113): every type, the      x/net's Framer
//	           checks one frame allows, header-block order    (peers)
//
// There is no hex codec: encoding/hex already decodes through a lookup table
// and allocates nothing with its Append functions.
package codec
