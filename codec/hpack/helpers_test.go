package hpack

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Block builders: each returns one representation's bytes.

func idx(i int) []byte { return appendInt(nil, 0x80, 7, i) }
func upd(n int) []byte { return appendInt(nil, 0x20, 5, n) }

func rawStr(s string) []byte { return append(appendInt(nil, 0, 7, len(s)), s...) }

// lit is a literal without indexing with a new name (§6.2.2).
func lit(name, value string) []byte { return cat([]byte{0}, rawStr(name), rawStr(value)) }

// litInc is a literal with incremental indexing and a new name (§6.2.1).
func litInc(name, value string) []byte { return cat([]byte{0x40}, rawStr(name), rawStr(value)) }

// litIdx is a literal without indexing whose name is index i.
func litIdx(i int, value string) []byte { return cat(appendInt(nil, 0, 4, i), rawStr(value)) }

// never is a never-indexed literal with a new name (§6.2.3).
func never(name, value string) []byte { return cat([]byte{0x10}, rawStr(name), rawStr(value)) }

func cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// collect decodes block with d and returns the fields as "name: value"
// lines ("name:: value" when sensitive).
func collect(d *Decoder, kind Block, block []byte) ([]string, error) {
	var out []string
	emit := func(n, v []byte, s bool) error {
		sep := ": "
		if s {
			sep = ":: "
		}
		out = append(out, string(n)+sep+string(v))
		return nil
	}
	var err error
	if kind == Trailers {
		err = d.DecodeTrailers(block, emit)
	} else {
		err = d.DecodeBlock(block, emit)
	}
	return out, err
}

// tableString renders a decoder's dynamic table, newest first.
func tableString(d *Decoder) string {
	var b strings.Builder
	for i := 1; i <= d.TableLen(); i++ {
		n, v := d.TableEntry(i)
		fmt.Fprintf(&b, "[%d] %s: %s\n", i, n, v)
	}
	return b.String()
}

// wantKind checks that err is the violation want, as a *SyntaxError or a
// *FieldError according to want.Stream.
func wantKind(t *testing.T, err error, want *Violation) {
	t.Helper()
	require.ErrorIs(t, err, want)
	require.Equal(t, want.Stream, IsStreamError(err), "IsStreamError(%v)", err)
	if !want.Stream {
		var se *SyntaxError
		require.ErrorAs(t, err, &se)
	}
}

// tableField turns a table size the tests pick, where 0 means no dynamic
// table, into a MaxTableSize field's value, where 0 means the default and
// a negative value no table.
func tableField(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
