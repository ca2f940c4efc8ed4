// Package query escapes, unescapes and parses URL query strings
// (application/x-www-form-urlencoded) without allocating in steady state.
//
// The package follows the codec conventions of netkit/codec: it does no I/O,
// its decoders never panic on any input, malformed input is reported as a
// [*SyntaxError] that carries the byte offset and one of the exported sentinel
// kinds ([ErrBadEscape], [ErrSemicolon], [ErrTooManyParams]), encoders append
// to the caller's slice, and every limit has a safe default and an option.
//
// By default the package is exactly as strict as net/url: [Unescape] accepts
// and rejects the same inputs as url.QueryUnescape and returns the same
// bytes, [Escape] returns the same bytes as url.QueryEscape, and
// [Values.Parse] yields the pairs url.ParseQuery yields (in input order, where
// net/url's map keeps only the order of values per key) and fails on every
// input url.ParseQuery fails on. [Values] adds two opt-in relaxations, Netty's
// SemicolonIsNormalChar and fasthttp's pass-through of bad escapes (Lenient),
// and a parameter cap that is checked before anything is decoded.
//
// [Values] parses into storage it keeps across calls (so a warm Parse
// allocates nothing); Get, Has, Len and All read the pairs in input order,
// and AppendEncode writes them back. By default a ';' is refused, as
// net/url refuses it; the parameter cap defaults to 1000. Differential
// tests and fuzz targets hold the package to net/url's answers.
package query
