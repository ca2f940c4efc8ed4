package query

import (
	"bytes"
	"iter"

	"github.com/netkit/netkit/codec/internal/ascii"
)

// DefaultMaxParams is the parameter cap of a [Values] whose MaxParams is 0.
const DefaultMaxParams = 1000

// Values holds the decoded pairs of one query string, in input order. The
// zero value is an empty Values ready for use with the default options;
// set the option fields before calling Parse. A Values keeps its storage
// across calls, so parsing queries of similar size into the same Values does
// not allocate once it has grown. A Values is not safe for concurrent use.
//
// Keys and values returned by [Values.Get] and [Values.All] alias the Values'
// own buffer: they stay valid, and keep their contents, only until the next
// call to Parse, Add or Reset. Copy them (string(b)) to keep them longer.
type Values struct {
	// MaxParams caps the number of parameters Parse accepts: a query with
	// more than MaxParams '&'-separated parameters (empty ones included, as
	// net/url counts) fails with ErrTooManyParams before anything is
	// decoded. 0 means DefaultMaxParams; a negative value means no cap.
	MaxParams int

	// SemicolonIsNormalChar makes ';' an ordinary byte of keys and values,
	// as Netty's QueryStringDecoder option of that name does. By default, as
	// in net/url, a parameter holding an unescaped ';' is an error
	// (ErrSemicolon) and is left out.
	SemicolonIsNormalChar bool

	// Lenient keeps a '%' that does not start a valid %XX escape as a
	// literal '%', as fasthttp does, instead of failing with ErrBadEscape.
	Lenient bool

	buf   []byte // decoded keys and values, back to back
	pairs []pair
}

// pair locates one key and its value in Values.buf: the key is buf[k:v] and
// the value buf[v:end].
type pair struct{ k, v, end int }

func (p pair) key(buf []byte) []byte   { return buf[p.k:p.v:p.v] }
func (p pair) value(buf []byte) []byte { return buf[p.v:p.end:p.end] }

// Reset removes all pairs and keeps the storage and the options.
func (vs *Values) Reset() {
	vs.buf = vs.buf[:0]
	vs.pairs = vs.pairs[:0]
}

// Parse replaces the contents of vs with the pairs of query, a string of
// key=value parameters separated by '&' (without the leading '?'). A
// parameter without '=' has an empty value; empty parameters are skipped;
// keys and values are unescaped as by [AppendUnescape].
//
// As url.ParseQuery does, Parse keeps every well-formed pair and leaves out a
// malformed one; it returns the first error as a [*SyntaxError] whose Offset
// is in query. The exception is ErrTooManyParams, which Parse reports before
// decoding anything, leaving vs empty.
//
// Parse allocates only to grow vs's storage: at most len(query) bytes and
// one slot per parameter. O(len(query)).
func (vs *Values) Parse(query []byte) error {
	vs.Reset()
	if len(query) == 0 {
		return nil
	}
	n := bytes.Count(query, []byte{'&'}) + 1
	if limit := vs.limit(); limit >= 0 && n > limit {
		return &SyntaxError{Offset: nthAmp(query, limit), Kind: ErrTooManyParams}
	}
	if cap(vs.buf) < len(query) {
		vs.buf = make([]byte, 0, len(query))
	}
	if cap(vs.pairs) < n {
		vs.pairs = make([]pair, 0, n)
	}
	return vs.parse(query)
}

func (vs *Values) limit() int {
	if vs.MaxParams == 0 {
		return DefaultMaxParams
	}
	return vs.MaxParams
}

// nthAmp returns the offset of the n-th '&' (n >= 1) in q, the separator
// that starts parameter n+1.
func nthAmp(q []byte, n int) int {
	off := -1
	for ; n > 0; n-- {
		off += 1 + bytes.IndexByte(q[off+1:], '&')
	}
	return off
}

// Byte classes of the parser; plain bytes are copied as they are.
const (
	plain = iota
	clsPercent
	clsPlus
	clsEqual
	clsAmp
	clsSemicolon
)

var class = [256]uint8{'%': clsPercent, '+': clsPlus, '=': clsEqual, '&': clsAmp, ';': clsSemicolon}

// parse decodes query in one pass into vs.buf, which has room for
// len(query) bytes (decoding never lengthens a parameter), and vs.pairs,
// which has room for every parameter. A separator is never a hex digit, so
// checking an escape's digits against the whole query is the same as
// checking them against its key or value alone, as net/url does.
func (vs *Values) parse(query []byte) error {
	buf := vs.buf[:len(query)]
	lenient, semicolonOK := vs.Lenient, vs.SemicolonIsNormalChar
	var first error
	j := 0     // write position in buf
	k := 0     // start of the current key in buf
	v := -1    // start of the current value in buf; -1 while in the key
	start := 0 // start of the current parameter in query
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch class[c] {
		case plain:
			buf[j] = c
			j++
			continue
		case clsPlus:
			buf[j] = ' '
			j++
			continue
		case clsPercent:
			if i+2 < len(query) {
				if h, l := ascii.Unhex[query[i+1]], ascii.Unhex[query[i+2]]; h|l < 16 {
					buf[j] = h<<4 | l
					j++
					i += 2
					continue
				}
			}
			if lenient {
				buf[j] = '%'
				j++
				continue
			}
			if first == nil {
				first = &SyntaxError{Offset: i, Kind: ErrBadEscape}
			}
		case clsEqual:
			if v < 0 {
				v = j
			} else {
				buf[j] = '='
				j++
			}
			continue
		case clsSemicolon:
			if semicolonOK {
				buf[j] = ';'
				j++
				continue
			}
			if first == nil {
				first = &SyntaxError{Offset: i, Kind: ErrSemicolon}
			}
		case clsAmp:
			if start < i {
				vs.pairs = append(vs.pairs, makePair(k, v, j))
			}
			k, v, start = j, -1, i+1
			continue
		}
		// A malformed parameter: drop what it wrote and skip to the next.
		j = k
		amp := bytes.IndexByte(query[i:], '&')
		if amp < 0 {
			vs.buf = buf[:j]
			return first
		}
		i += amp
		v, start = -1, i+1
	}
	if start < len(query) {
		vs.pairs = append(vs.pairs, makePair(k, v, j))
	}
	vs.buf = buf[:j]
	return first
}

func makePair(k, v, end int) pair {
	if v < 0 {
		v = end
	}
	return pair{k: k, v: v, end: end}
}

// Add appends the pair key=value, copying both (unescaped, as they are to be
// read back). It may move the storage that earlier results alias.
func (vs *Values) Add(key, value []byte) {
	k := len(vs.buf)
	vs.buf = append(append(vs.buf, key...), value...)
	vs.pairs = append(vs.pairs, pair{k: k, v: k + len(key), end: len(vs.buf)})
}

// Len returns the number of pairs, counting repeated keys once per pair.
func (vs *Values) Len() int { return len(vs.pairs) }

// Get returns the first value of key and whether key is present. The value
// aliases vs's storage (see [Values]); a present key may have an empty
// value. Get does not allocate; it is O(Len()) (queries are short, and a
// linear scan of them beats hashing).
func (vs *Values) Get(key string) ([]byte, bool) {
	for _, p := range vs.pairs {
		if string(p.key(vs.buf)) == key {
			return p.value(vs.buf), true
		}
	}
	return nil, false
}

// Has reports whether key is present. O(Len()).
func (vs *Values) Has(key string) bool {
	_, ok := vs.Get(key)
	return ok
}

// All returns an iterator over the pairs in input order, repeated keys
// included. The slices alias vs's storage (see [Values]) and have no spare
// capacity, so appending to one cannot overwrite another.
func (vs *Values) All() iter.Seq2[[]byte, []byte] {
	return func(yield func(k, v []byte) bool) {
		for _, p := range vs.pairs {
			if !yield(p.key(vs.buf), p.value(vs.buf)) {
				return
			}
		}
	}
}

// AppendEncode appends the pairs to dst as "k1=v1&k2=v2", each key and value
// escaped by [AppendEscape], every pair written with '=' even when its value
// is empty. Unlike url.Values.Encode, which sorts by key (and groups a key's
// values), AppendEncode keeps the pairs in their order in vs: the two give the
// same bytes when vs's keys are already in sorted order. O(total length).
func (vs *Values) AppendEncode(dst []byte) []byte {
	for i, p := range vs.pairs {
		if i > 0 {
			dst = append(dst, '&')
		}
		dst = AppendEscape(dst, p.key(vs.buf))
		dst = append(dst, '=')
		dst = AppendEscape(dst, p.value(vs.buf))
	}
	return dst
}
