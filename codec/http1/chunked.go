package http1

import (
	"bytes"

	"github.com/netkit/netkit/codec/internal/ascii"
)

// maxChunkLine bounds a chunk-size line, extensions and line end included:
// a longer one is ErrChunkExtension. Chunk extensions have no registered
// use; the bound keeps Decode's copy of a line that straddles reads small.
const maxChunkLine = 4 << 10

// chunks walks the chunked body that starts at p[body] (RFC 9112 §7.1):
// chunk lines, data and the CRLF after it, the last chunk and the trailer
// section. It returns the request's end and the data's length. The first
// walk (compact false) checks everything, refuses a body over the limit,
// returns ErrShort when p ends early and appends the trailer fields to
// req.Trailers; it writes nothing. The second (compact true), on a body
// the first accepted, moves the data of each chunk to follow the previous
// one's from p[body] on.
//
// The first walk also notes where the data of the first len(sp.d) chunks
// lies, so that the second walk is needed only for bodies of more chunks:
// sp.n counts the chunks, and the data is moved by sp.compact.
func chunks(c *config, req *Request, p []byte, body int, compact bool, sp *chunkSpans) (end int, size int64, err error) {
	pos := body
	for {
		lim := min(len(p), pos+maxChunkLine)
		// A size of 16 digits is refused before the line end is looked
		// at, so that a prefix of the request is refused the same way
		// (a line whose 16th byte is not a hex digit cannot be one).
		if lim-pos > 15 && ascii.Unhex[p[pos+15]] < 16 {
			if err := partialChunkLine(p[pos:lim], pos); err != nil {
				return 0, 0, err
			}
		}
		i := bytes.IndexByte(p[pos:lim], '\n')
		if i < 0 {
			if len(p)-pos >= maxChunkLine {
				return 0, 0, serr(pos, ErrChunkExtension)
			}
			return 0, 0, ErrShort
		}
		lf := pos + i
		e := lf
		if e > pos && p[e-1] == '\r' {
			e--
		} else if !c.allowBareLF {
			return 0, 0, serr(lf, ErrBareLF)
		}
		n, err := chunkLine(p[pos:e], pos)
		if err != nil {
			return 0, 0, err
		}
		if n == 0 {
			end, err := trailers(c, req, p, lf+1, compact)
			return end, size, err
		}
		d := lf + 1
		if n > c.maxBodySize-int64(d-body)-2 {
			return 0, 0, serr(pos, ErrBodyTooLarge)
		}
		if n > int64(len(p)-d) {
			return 0, 0, ErrShort
		}
		de := d + int(n)
		next, err := chunkEnd(c, p, de)
		if err != nil {
			return 0, 0, err
		}
		if compact {
			copy(p[body+int(size):], p[d:de])
		} else if sp != nil {
			if sp.n < len(sp.d) {
				sp.d[sp.n] = [2]int{d, de}
			}
			sp.n++
		}
		size += n
		pos = next
	}
}

// chunkSpans holds where the data of a chunked body's first chunks lies,
// as chunks' first walk found it.
type chunkSpans struct {
	n int       // chunks in the body
	d [8][2]int // start and end of the first ones' data
}

// compact moves the data of the chunks noted in sp together from p[body]
// on, and reports false, moving nothing, when the body had more chunks
// than sp holds.
func (sp *chunkSpans) compact(p []byte, body int) bool {
	if sp.n > len(sp.d) {
		return false
	}
	at := body
	for _, s := range sp.d[:sp.n] {
		at += copy(p[at:], p[s[0]:s[1]])
	}
	return true
}

// chunkEnd checks the line end after chunk data ending at p[de] and
// returns the offset after it.
func chunkEnd(c *config, p []byte, de int) (int, error) {
	if de >= len(p) {
		return 0, ErrShort
	}
	switch p[de] {
	case '\r':
		if de+1 >= len(p) {
			return 0, ErrShort
		}
		if p[de+1] == '\n' {
			return de + 2, nil
		}
	case '\n':
		if c.allowBareLF {
			return de + 1, nil
		}
		return 0, serr(de, ErrBareLF)
	}
	return 0, serr(de, ErrChunkData)
}

// chunkLine parses chunk-size [ chunk-ext ] (RFC 9112 §7.1, §7.1.1), a
// line without its line end that starts at offset off of the request:
//
//	chunk-size = 1*HEXDIG
//	chunk-ext  = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )
//	ext-val    = token / quoted-string
//
// A size of more than 15 hex digits, leading zeros included, is
// ErrChunkSizeOverflow: 15 digits always fit in an int64.
func chunkLine(l []byte, off int) (int64, error) {
	var n int64
	i := 0
	for ; i < len(l); i++ {
		h := ascii.Unhex[l[i]]
		if h > 15 {
			break
		}
		if i == 15 {
			return 0, serr(off, ErrChunkSizeOverflow)
		}
		n = n<<4 | int64(h)
	}
	if i == 0 {
		return 0, serr(off, ErrChunkSize)
	}
	if i < len(l) && l[i] != ';' {
		// chunk-ext allows BWS before the first ';' (RFC 9112 §7.1.1);
		// net/http does not, and a size followed by whitespace is where
		// parsers have disagreed: refused, but for whitespace that ends
		// the line (which net/http takes too, and which cannot hide an
		// extension).
		if skipBWS(l, i) == len(l) && (l[i] == ' ' || l[i] == '\t') {
			return n, nil
		}
		return 0, serr(off+i, ErrChunkSize)
	}
	for i < len(l) {
		i = skipBWS(l, i)
		if i == len(l) || l[i] != ';' {
			return 0, serr(off+i, ErrChunkExtension)
		}
		i = skipBWS(l, i+1)
		j := skipToken(l, i)
		if j == i {
			return 0, serr(off+i, ErrChunkExtension)
		}
		i = j
		if k := skipBWS(l, i); k < len(l) && l[k] == '=' {
			i = skipBWS(l, k+1)
			if i < len(l) && l[i] == '"' {
				j = quoted(l, i)
			} else {
				j = skipToken(l, i)
			}
			if j <= i {
				return 0, serr(off+i, ErrChunkExtension)
			}
			i = j
		}
	}
	return n, nil
}

// partialChunkLine checks the start of a chunk line whose end has not
// arrived: a size of more than 15 digits is refused before its end.
func partialChunkLine(l []byte, off int) error {
	i := 0
	for i < len(l) && ascii.Unhex[l[i]] < 16 {
		i++
	}
	if i > 15 {
		return serr(off, ErrChunkSizeOverflow)
	}
	return nil
}

func skipBWS(l []byte, i int) int {
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return i
}

func skipToken(l []byte, i int) int {
	for i < len(l) && ascii.IsTokenByte(l[i]) {
		i++
	}
	return i
}

// quoted returns the offset after the quoted-string (RFC 9110 §5.6.4) that
// starts at l[i], or -1 when there is none.
func quoted(l []byte, i int) int {
	for i++; i < len(l); i++ {
		switch c := l[i]; {
		case c == '"':
			return i + 1
		case c == '\\':
			i++
			if i == len(l) || (!ascii.Is(l[i], ascii.VChar) && l[i] != ' ' && l[i] != '\t') {
				return -1
			}
		case !ascii.Is(c, ascii.QdText):
			return -1
		}
	}
	return -1
}

// trailers parses the trailer section that starts at p[pos] (RFC 9112
// §7.1.2), at most MaxTrailerBytes long and with at most MaxHeaders
// fields, into req.Trailers (unless compact: the second walk leaves them)
// and returns its end.
func trailers(c *config, req *Request, p []byte, pos int, compact bool) (int, error) {
	start := pos
	hlim := start + max(c.maxTrailer, 0)
	count := 0
	for {
		lf, e, err := sectionLine(c, p, pos, hlim)
		if err != nil {
			return 0, err
		}
		if e == pos {
			return lf + 1, nil
		}
		name, value, err := trailerLine(c, p, pos, e, count)
		if err != nil {
			return 0, err
		}
		count++
		if !compact {
			req.Trailers = append(req.Trailers, Header{Name: name, Value: value})
		}
		pos = lf + 1
	}
}

// trailerLine checks the trailer field line p[pos:end], the count-th of
// its section.
func trailerLine(c *config, p []byte, pos, end, count int) (name, value []byte, err error) {
	name, value, err = fieldLine(p, pos, end)
	if err != nil {
		return nil, nil, serr(err.(*SyntaxError).Offset, ErrTrailer)
	}
	if count >= c.maxHeaders {
		return nil, nil, serr(pos, ErrTooManyHeaders)
	}
	return name, value, nil
}
