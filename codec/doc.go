// Package codec holds netkit's protocol codecs, one subpackage per format.
// This package has no code; it states once the conventions every codec
// follows, so that frame, query, httpdate, mqtt, hpack and http1 read and
// fail the same way.
//
// # Conventions
//
//   - No I/O. A codec never reads from or writes to a connection, never
//     starts a goroutine and never logs. It works on memory it is handed.
//   - Decoders read from []byte, and from *buf.Composite when a message can
//     straddle reads. They report how much input they consumed. When the
//     input ends before the message does they return the package's ErrShort
//     and consume nothing, so the caller appends more bytes and calls again.
//     (One exception, for bounded memory: a frame decoder discarding a
//     too-long frame drops its bytes as they arrive; see codec/frame.)
//   - Decoders never panic, whatever the input. Every decoder has a fuzz
//     target beside a slow reference model that checks this.
//   - Malformed input is a typed error that says what is wrong and where: a
//     *SyntaxError carrying the byte offset and a Kind, one of the package's
//     exported sentinels. The type is defined once here (codec.SyntaxError)
//     and each codec names it as its own with a type alias. Sentinels are prefixed
//     with the package name ("httpdate: bad month"), and both errors.Is on the
//     sentinel and errors.As on the typed error work.
//   - Every limit (frame length, parameter count, …) has a safe default and
//     an option to change it; no input can make a decoder use memory beyond
//     its limits.
//   - Fields that alias the input say in their documentation how long they
//     stay valid (usually: until the input is modified or released).
//   - Encoders append to the caller's slice: AppendX(dst []byte, …) []byte,
//     or AppendX(dst []byte, …) ([]byte, error) when the value can be
//     invalid. They allocate only when dst must grow.
//   - Hot paths allocate nothing in steady state; tests assert it with
//     testing.AllocsPerRun, and benchmarks compare against the standard
//     library (or the loop people write by hand) as sibling sub-benchmarks.
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
//
// There is no hex codec: encoding/hex already decodes through a lookup table
// and allocates nothing with its Append functions.
package codec
