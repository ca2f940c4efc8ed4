// Package httpdate reads and writes the dates of HTTP (RFC 9110 §5.6.7) and
// of cookies (RFC 6265 §5.1.1) without allocating.
//
// Parse accepts the three forms a recipient must accept: IMF-fixdate
// ("Sun, 06 Nov 1994 08:49:37 GMT"), the obsolete RFC 850 form
// ("Sunday, 06-Nov-94 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994").
// It accepts exactly what net/http.ParseTime accepts and yields the same
// instant, with one documented exception: in the RFC 850 form the zone must
// be GMT (or UTC), where net/http takes any zone abbreviation and reads its
// offset from the local zone database. Results are always in UTC.
//
// Append writes IMF-fixdate, byte for byte what
// t.UTC().AppendFormat(dst, http.TimeFormat) writes.
//
// ParseCookie implements the lenient algorithm browsers use for the Expires
// attribute of Set-Cookie.
//
// The package follows the conventions of package codec: no I/O, no panics
// on any input, errors of type *SyntaxError carrying the offset and one of
// the exported kinds.
//
// Differential tests and fuzz targets compare Parse with net/http.ParseTime,
// Append with time.AppendFormat, and ParseCookie with a slow model of the
// RFC 6265 algorithm.
package httpdate
