package hpack

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every RFC 9113 §8 rule a validating decoder enforces: the error is a
// stream error raised after the whole block, naming the field at fault,
// and no field after it is emitted.
func TestValidation(t *testing.T) {
	req := cat(idx(2), idx(7), idx(4), lit(":authority", "example.com")) // GET https / example.com
	resp := idx(8)                                                       // :status 200
	cases := []struct {
		name   string
		mode   Mode
		kind   Block
		block  []byte
		want   *Violation
		field  int    // -1: the whole list
		fname  string // the FieldError's Field
		before int    // fields emitted before the error
	}{
		{"RFC9113_8.3.1/request_ok", Request, Headers, cat(req, lit("accept", "*/*"), lit("te", "trailers")), nil, 0, "", 6},
		{"RFC9113_8.3.2/response_ok", Response, Headers, cat(resp, lit("content-type", "text/plain")), nil, 0, "", 2},
		{"RFC9113_8.1/trailers_ok", Request, Trailers, lit("grpc-status", "0"), nil, 0, "", 1},
		{"RFC9113_8.5/connect_ok", Request, Headers, cat(lit(":method", "CONNECT"), lit(":authority", "h:443")), nil, 0, "", 2},
		{"RFC8441_4/extended_connect_ok", Request, Headers, cat(lit(":method", "CONNECT"), lit(":protocol", "websocket"), idx(7), lit(":path", "/chat"), lit(":authority", "h")), nil, 0, "", 5},
		{"RFC9113_8.3.1/options_asterisk_ok", Request, Headers, cat(lit(":method", "OPTIONS"), idx(7), lit(":path", "*")), nil, 0, "", 3},

		{"RFC9113_8.3/unknown_pseudo", Request, Headers, cat(req, lit(":foo", "x")), ErrPseudoUnknown, 4, ":foo", 4},
		{"RFC9113_8.3/response_pseudo_in_request", Request, Headers, cat(idx(2), idx(8), idx(7), idx(4)), ErrPseudoWrongKind, 1, ":status", 1},
		{"RFC9113_8.3/request_pseudo_in_response", Response, Headers, cat(resp, idx(4)), ErrPseudoWrongKind, 1, ":path", 1},
		{"RFC9113_8.3/duplicate_pseudo", Request, Headers, cat(req, idx(5)), ErrPseudoDuplicate, 4, ":path", 4},
		{"RFC9113_8.3/duplicate_status", Response, Headers, cat(resp, idx(13)), ErrPseudoDuplicate, 1, ":status", 1},
		{"RFC9113_8.3/pseudo_after_regular", Request, Headers, cat(idx(2), idx(7), lit("accept", "*/*"), idx(4)), ErrPseudoAfterRegular, 3, ":path", 3},
		{"RFC9113_8.1/pseudo_in_trailers", Request, Trailers, cat(lit("a", "b"), idx(4)), ErrPseudoInTrailers, 1, ":path", 1},
		{"RFC9113_8.1/status_in_response_trailers", Response, Trailers, idx(8), ErrPseudoInTrailers, 0, ":status", 0},
		{"RFC9113_8.3.1/missing_method", Request, Headers, cat(idx(7), idx(4)), ErrPseudoMissing, -1, ":method", 2},
		{"RFC9113_8.3.1/missing_scheme", Request, Headers, cat(idx(2), idx(4)), ErrPseudoMissing, -1, ":scheme", 2},
		{"RFC9113_8.3.1/missing_path", Request, Headers, cat(idx(2), idx(7)), ErrPseudoMissing, -1, ":path", 2},
		{"RFC9113_8.3.1/empty_path", Request, Headers, cat(idx(2), idx(7), lit(":path", "")), ErrPathEmpty, -1, ":path", 3},
		{"RFC9113_8.3.2/missing_status", Response, Headers, lit("content-type", "x"), ErrPseudoMissing, -1, ":status", 1},
		{"RFC9113_8.3.2/status_two_digits", Response, Headers, lit(":status", "20"), ErrStatusInvalid, 0, ":status", 0},
		{"RFC9113_8.3.2/status_not_digits", Response, Headers, lit(":status", "2x0"), ErrStatusInvalid, 0, ":status", 0},
		{"RFC9113_8.5/connect_without_authority", Request, Headers, lit(":method", "CONNECT"), ErrConnectInvalid, -1, ":authority", 1},
		{"RFC9113_8.5/connect_with_path", Request, Headers, cat(lit(":method", "CONNECT"), lit(":authority", "h"), idx(4)), ErrConnectInvalid, -1, ":path", 3},
		{"RFC9113_8.5/connect_with_scheme", Request, Headers, cat(lit(":method", "CONNECT"), lit(":authority", "h"), idx(7)), ErrConnectInvalid, -1, ":scheme", 3},
		{"RFC8441_4/protocol_without_connect", Request, Headers, cat(req, lit(":protocol", "websocket")), ErrConnectInvalid, -1, ":protocol", 5},
		{"RFC9113_8.2.1/uppercase_name", Request, Headers, cat(req, lit("Accept", "*/*")), ErrNameUppercase, 4, "Accept", 4},
		{"RFC9113_8.2.1/space_in_name", Request, Headers, cat(req, lit("a b", "c")), ErrNameInvalid, 4, "a b", 4},
		{"RFC9113_8.2.1/colon_inside_name", Request, Headers, cat(req, lit("a:b", "c")), ErrNameInvalid, 4, "a:b", 4},
		{"RFC9113_8.2.1/nul_in_name", Request, Headers, cat(req, lit("a\x00", "c")), ErrNameInvalid, 4, "a\x00", 4},
		{"RFC9113_8.2.1/non_ascii_in_name", Request, Headers, cat(req, lit("caf\xc3\xa9", "c")), ErrNameInvalid, 4, "caf\xc3\xa9", 4},
		{"RFC9113_8.2.1/empty_name", Request, Headers, cat(req, lit("", "c")), ErrNameEmpty, 4, "", 4},
		{"RFC9113_8.2.1/nul_in_value", Request, Headers, cat(req, lit("a", "b\x00c")), ErrValueInvalid, 4, "a", 4},
		{"RFC9113_8.2.1/cr_in_value", Request, Headers, cat(req, lit("a", "b\rc")), ErrValueInvalid, 4, "a", 4},
		{"RFC9113_8.2.1/lf_in_value", Request, Headers, cat(req, lit("a", "b\nX-Injected: 1")), ErrValueInvalid, 4, "a", 4},
		{"RFC9113_8.2.1/lf_in_pseudo_value", Request, Headers, cat(idx(2), idx(7), lit(":path", "/\nx")), ErrValueInvalid, 2, ":path", 2},
		{"RFC9113_8.2.1/value_leading_space", Request, Headers, cat(req, lit("a", " b")), ErrValueSpace, 4, "a", 4},
		{"RFC9113_8.2.1/value_trailing_tab", Request, Headers, cat(req, lit("a", "b\t")), ErrValueSpace, 4, "a", 4},
		{"RFC9113_8.2.2/connection", Request, Headers, cat(req, lit("connection", "close")), ErrConnectionSpecific, 4, "connection", 4},
		{"RFC9113_8.2.2/proxy_connection", Request, Headers, cat(req, lit("proxy-connection", "keep-alive")), ErrConnectionSpecific, 4, "proxy-connection", 4},
		{"RFC9113_8.2.2/keep_alive", Request, Headers, cat(req, lit("keep-alive", "timeout=5")), ErrConnectionSpecific, 4, "keep-alive", 4},
		{"RFC9113_8.2.2/transfer_encoding", Request, Headers, cat(req, lit("transfer-encoding", "chunked")), ErrConnectionSpecific, 4, "transfer-encoding", 4},
		{"RFC9113_8.2.2/upgrade", Request, Headers, cat(req, lit("upgrade", "h2c")), ErrConnectionSpecific, 4, "upgrade", 4},
		{"RFC9113_8.2.2/te_not_trailers", Request, Headers, cat(req, lit("te", "gzip")), ErrTE, 4, "te", 4},
		{"RFC9113_8.2.2/connection_in_response", Response, Headers, cat(resp, lit("connection", "keep-alive")), ErrConnectionSpecific, 1, "connection", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &Decoder{Validate: c.mode}
			// A literal with indexing after the fault must still reach the
			// table: the block is processed to its end.
			block := cat(c.block, litInc("x-after", "1"))
			if c.kind == Headers && c.field == -1 && c.want != nil {
				block = c.block // appending a field would not change a whole-list rule
			}
			got, err := collect(d, c.kind, block)
			if c.want == nil {
				require.NoError(t, err)
				require.Equal(t, c.before+1, len(got), "emitted %q", got)
				return
			}
			wantKind(t, err, c.want)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, c.field, fe.Index, "%v", err)
			assert.Equal(t, c.fname, fe.Field, "%v", err)
			assert.Equal(t, c.before, len(got), "emitted %d fields, want %d: %q", len(got), c.before, got)
			if c.field >= 0 {
				n, v := d.TableEntry(1)
				assert.False(t, string(n) != "x-after" || string(v) != "1", "the field after the fault did not reach the table: %q %q", n, v)
			}
			// The connection goes on: a valid block decodes next.
			next := req
			if c.mode == Response {
				next = resp
			}
			got, err = collect(d, Headers, next)
			assert.NoError(t, err, "next block")
			assert.NotEmpty(t, got, "next block")
		})
	}
}

// The zero Decoder validates nothing; Validate set to Request or Response
// makes it validate.
func TestValidationModes(t *testing.T) {
	block := cat(lit("Upper", "x"), idx(8), lit("connection", "close"))
	_, err := collect(new(Decoder), Headers, block)
	require.NoError(t, err)
	_, err = collect(&Decoder{Validate: Request}, Headers, block)
	wantKind(t, err, ErrNameUppercase)
	_, err = collect(&Decoder{Validate: Response}, Headers, block)
	wantKind(t, err, ErrNameUppercase)
	_, err = collect(&Decoder{Validate: NoValidation}, Headers, block)
	require.NoError(t, err)
	got, err := collect(&Decoder{Validate: Response}, Headers, cat(idx(8), lit("server", "netkit")))
	require.NoError(t, err, "%q", got)
	require.Equal(t, []string{":status: 200", "server: netkit"}, got)
}

// A validating decoder remembers which dynamic entries it found clean; an
// entry with a forbidden character is checked again each time it is
// indexed, and a literal too large to be added changes no other entry's
// mark.
func TestValidationIndexedEntries(t *testing.T) {
	d := &Decoder{Validate: Request, MaxTableSize: 200}
	req := cat(idx(2), idx(7), idx(4))
	// Entry 62 holds a value with a LF: refused when emitted as a literal,
	// and refused again when indexed.
	_, err := collect(d, Headers, cat(req, litInc("x-bad", "a\nb")))
	wantKind(t, err, ErrValueInvalid)
	_, err = collect(d, Headers, cat(req, idx(62)))
	wantKind(t, err, ErrValueInvalid)
	// A literal larger than the table empties it and is not added; the
	// dirty entry is gone rather than marked clean.
	_, err = collect(d, Headers, cat(req, litInc("x-big", strings.Repeat("v", 200))))
	require.NoError(t, err)
	require.Equal(t, 0, d.TableLen(), "entries")
	// An uppercase name, then a clean entry: only the clean one passes.
	_, err = collect(d, Headers, cat(req, litInc("X-Up", "1")))
	wantKind(t, err, ErrNameUppercase)
	_, err = collect(d, Headers, cat(req, litInc("x-ok", "1")))
	require.NoError(t, err)
	_, err = collect(d, Headers, cat(req, idx(62)))
	require.NoError(t, err)
	_, err = collect(d, Headers, cat(req, idx(63)))
	wantKind(t, err, ErrNameUppercase)
}

// A literal with incremental indexing whose name is a dynamic entry that
// the insertion itself evicts: the new entry's bytes overwrite where the
// name lay, and its "already validated" mark must describe the name and
// value stored, not what the old bytes became. Before the fix the mark was
// computed after the insertion from the stale name slice (here reading
// the new value's "x…x"), so a forbidden name was stored as clean and a
// later one-byte index emitted it through a validating decoder: header
// injection for an HTTP/2 to HTTP/1 proxy.
func TestValidationNameOfEvictedEntry(t *testing.T) {
	req := cat(idx(2), idx(6), idx(4)) // GET http /
	for _, c := range []struct {
		name string
		want *Violation
	}{
		{"Transfer-Encoding", ErrNameUppercase},
		{"x-a\r\nTransfer-Encoding", ErrNameInvalid},
		{"x-a:b", ErrNameInvalid},
	} {
		t.Run(fmt.Sprintf("%q", c.name), func(t *testing.T) {
			n := len(c.name)
			// Entry A at arena offset 0 holds n+4 bytes; E, named
			// c.name, follows it; the table holds exactly both.
			aValue := strings.Repeat("a", n+3)
			sizeA, sizeE := n+4+entryOverhead, n+len("chunked")+entryOverhead
			d := &Decoder{Validate: Request}
			_, err := collect(d, Headers, cat(upd(sizeA+sizeE), req, litInc("a", aValue), litInc(c.name, "chunked")))
			wantKind(t, err, c.want)
			require.Equal(t, 2, d.TableLen())

			// A literal named by index 62 (E) with a value of n+10
			// bytes: too large to keep A or E, small enough to be
			// added, and long enough to cover E's old name bytes.
			value := strings.Repeat("x", n+10)
			_, err = collect(d, Headers, cat(req, append(appendInt(nil, 0x40, 6, 62), rawStr(value)...)))
			wantKind(t, err, c.want)
			require.Equal(t, 1, d.TableLen())
			name, v := d.TableEntry(1)
			require.Equal(t, c.name, string(name))
			require.Equal(t, value, string(v))

			// The stored entry, indexed in one byte (0xbe) after a
			// valid request's pseudo-headers, is refused again.
			got, err := collect(d, Headers, cat(req, idx(62)))
			wantKind(t, err, c.want)
			require.NotContains(t, got, c.name+": "+value)
		})
	}
}
