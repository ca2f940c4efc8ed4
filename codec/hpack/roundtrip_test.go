package hpack

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Round trips: header lists go through an Encoder and come back out of a
// Decoder that follows it, block after block, with table-size changes in
// between. After every block the decoded list must be the encoded one
// (names, values and sensitive flags) and both dynamic tables must hold the
// same entries.

// A choice yields the decisions that drive a generated sequence of header
// lists: a number in [0, n).
type choice interface{ intn(n int) int }

// byteChoice takes the decisions from fuzz input; once the input is used up
// every decision is 0.
type byteChoice struct{ b []byte }

func (c *byteChoice) intn(n int) int {
	if n <= 1 || len(c.b) == 0 {
		return 0
	}
	v := int(c.b[0])
	c.b = c.b[1:]
	if n > 256 && len(c.b) > 0 {
		v = v<<8 | int(c.b[0])
		c.b = c.b[1:]
	}
	return v % n
}

// randChoice takes the decisions from a seeded generator.
type randChoice struct{ r *rand.Rand }

func (c randChoice) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return c.r.IntN(n)
}

// Names and values the generator prefers, so that fields repeat and hit the
// static and dynamic tables: static-table names (with and without their
// static values), a few custom names, and the empty string.
var (
	rtNames = []string{
		":authority", ":method", ":path", ":scheme", ":status", "accept",
		"accept-encoding", "accept-language", "authorization", "cache-control",
		"content-length", "content-type", "cookie", "date", "etag", "location",
		"set-cookie", "user-agent", "www-authenticate", "x-request-id",
		"x-custom", "grpc-status", "",
	}
	rtValues = []string{
		"", "GET", "POST", "/", "/index.html", "http", "https", "200", "204",
		"304", "404", "500", "gzip, deflate", "no-cache", "private", "0",
		"text/html; charset=utf-8", "Mon, 21 Oct 2013 20:13:21 GMT",
		"www.example.com", "Bearer abcdefghijklmnopqrstuvwxyz0123456789",
	}
	// rtTableSizes are the SETTINGS_HEADER_TABLE_SIZE values a sequence
	// moves between: none, less than one entry, one small entry, the RFC's
	// examples, the default and above.
	rtTableSizes = []int{0, 1, 31, 32, 40, 64, 100, 256, 1000, 4096, 8192, 65536}
	// rtEncoderLimits are the table limits an Encoder is built with.
	rtEncoderLimits = []int{4096, 0, 64, 256, 1000, 16384}
	// rtDecoderLimits are the table sizes a Decoder is built to allow
	// (Decoder.MaxTableSize): the SETTINGS_HEADER_TABLE_SIZE it advertises.
	rtDecoderLimits = []int{4096, 8192, 65536, 1000, 100, 0}
)

// genString returns a name or value: from the vocabulary, a few letters
// (small entries, so the table's ring of entries wraps before it empties),
// arbitrary octets (short, so often not Huffman-coded), printable text, or
// now and then a long run that fills or overflows a table.
func genString(c choice, vocab []string) string {
	switch k := c.intn(32); {
	case k < 14:
		return vocab[c.intn(len(vocab))]
	case k < 20:
		b := make([]byte, c.intn(4))
		for i := range b {
			b[i] = byte('a' + c.intn(4))
		}
		return string(b)
	case k < 25:
		b := make([]byte, c.intn(24))
		for i := range b {
			b[i] = byte(c.intn(256))
		}
		return string(b)
	case k < 31:
		// Printable text, which Huffman coding shortens.
		const printable = "abcdefghijklmnopqrstuvwxyz0123456789-/=;., "
		b := make([]byte, c.intn(80))
		for i := range b {
			b[i] = printable[c.intn(len(printable))]
		}
		return string(b)
	default:
		return strings.Repeat(string(rune('a'+c.intn(26))), c.intn(1200))
	}
}

// rtConn is one generated connection: an Encoder, the Decoder that follows
// it, and the fields sent so far (to repeat them).
type rtConn struct {
	enc  *Encoder
	dec  *Decoder
	sent []Field
	buf  []byte

	// The decoder's SETTINGS_HEADER_TABLE_SIZE, and one SETTINGS frame in
	// flight: the encoder reads it after toEnc more blocks, and the
	// decoder has the acknowledgement toAck blocks after that.
	setting      int
	inflight     bool
	toEnc, toAck int
}

func newRTConn(c choice) *rtConn {
	limit := rtEncoderLimits[c.intn(len(rtEncoderLimits))]
	setting := rtDecoderLimits[c.intn(len(rtDecoderLimits))]
	rc := &rtConn{
		enc:     &Encoder{MaxTableSize: tableField(limit)},
		dec:     &Decoder{MaxTableSize: tableField(setting), MaxHeaderListSize: 1 << 30, MaxFields: 1 << 20, MaxStringLength: 1 << 20},
		setting: setting,
	}
	// The decoder's first SETTINGS: a peer may encode its first blocks
	// before reading one that raises the table size (its table starts at
	// 4096, as the decoder's does), but must have read one that lowers it.
	if setting < DefaultMaxTableSize || c.intn(2) == 0 {
		rc.enc.SetMaxTableSize(setting)
	}
	return rc
}

// genList returns the next header list.
func (rc *rtConn) genList(c choice) []Field {
	fields := make([]Field, c.intn(14))
	for i := range fields {
		if len(rc.sent) > 0 && c.intn(3) == 0 {
			fields[i] = rc.sent[c.intn(len(rc.sent))]
		} else {
			fields[i] = Field{Name: genString(c, rtNames), Value: genString(c, rtValues)}
		}
		fields[i].Sensitive = c.intn(10) == 0
	}
	rc.sent = append(rc.sent, fields...)
	if len(rc.sent) > 256 {
		rc.sent = rc.sent[len(rc.sent)-128:]
	}
	return fields
}

// changeTableSize sends a new SETTINGS_HEADER_TABLE_SIZE as an HTTP/2
// connection does: our Decoder takes a higher value when the frame is
// sent, the peer's Encoder takes it when the frame arrives (0-2 blocks
// later), and our Decoder a lower value when the acknowledgement arrives
// (0-1 blocks after that). A frame still in flight arrives first.
// Sometimes the setting changes twice before the next block, which needs
// two size updates when the first is lower.
func (rc *rtConn) changeTableSize(c choice) {
	for range 1 + c.intn(2) {
		rc.settle()
		n := rtTableSizes[c.intn(len(rtTableSizes))]
		if n > rc.setting {
			rc.dec.SetMaxTableSize(n)
		}
		rc.setting = n
		rc.inflight, rc.toEnc, rc.toAck = true, c.intn(3), c.intn(2)
	}
}

// advance moves the SETTINGS frame in flight on by one block.
func (rc *rtConn) advance() {
	if !rc.inflight {
		return
	}
	if rc.toEnc > 0 {
		rc.toEnc--
		return
	}
	rc.enc.SetMaxTableSize(rc.setting)
	if rc.toAck > 0 {
		rc.toAck--
		return
	}
	rc.settle()
}

// settle delivers the SETTINGS frame in flight and its acknowledgement.
func (rc *rtConn) settle() {
	if rc.inflight {
		rc.enc.SetMaxTableSize(rc.setting)
		rc.dec.SetMaxTableSize(rc.setting)
		rc.inflight = false
	}
}

// step encodes one list, decodes it and checks the result.
func (rc *rtConn) step(tb testing.TB, fields []Field) {
	tb.Helper()
	rc.buf = rc.enc.AppendFields(rc.buf[:0], fields)
	var got []Field
	err := rc.dec.DecodeBlock(rc.buf, func(name, value []byte, sensitive bool) error {
		got = append(got, Field{Name: string(name), Value: string(value), Sensitive: sensitive})
		return nil
	})
	require.NoError(tb, err, "decoding %+v encoded as %x", fields, rc.buf)
	require.Len(tb, got, len(fields), "decoded fields, encoded %+v", fields)
	for i := range fields {
		require.Equal(tb, fields[i], got[i], "field %d (block %x)", i, rc.buf)
	}
	checkTablesInStep(tb, rc.enc, rc.dec)
}

// checkTablesInStep compares the encoder's dynamic table with the decoder's.
// Size updates pending in the encoder go out before the next field, so an
// empty list leaves them pending: the decoder has already applied a lower
// bound (at SETTINGS acknowledgement) and the encoder applies it then, so
// the tables are compared only when no update is pending.
func checkTablesInStep(tb testing.TB, enc *Encoder, dec *Decoder) {
	tb.Helper()
	if !enc.ready || enc.pending { // a new encoder announces its bound with its first field
		return
	}
	es, ds := enc.TableSize(), dec.TableSize()
	require.Equal(tb, ds, es, "encoder table size %d, decoder %d", es, ds)
	em, dm := enc.TableMaxSize(), dec.TableMaxSize()
	require.Equal(tb, dm, em, "encoder table maximum %d, decoder %d", em, dm)
	ents := encoderEntries(enc)
	require.Len(tb, ents, dec.TableLen(), "encoder table entries, the decoder's")
	for i, en := range ents {
		name, value := dec.TableEntry(i + 1)
		require.Equal(tb, en.name, string(name), "table entry %d: encoder %q: %q, decoder %q: %q", i+1, en.name, en.value, name, value)
		require.Equal(tb, en.value, string(value), "table entry %d: encoder %q: %q, decoder %q: %q", i+1, en.name, en.value, name, value)
	}
}

// roundTrip runs blocks lists on one connection drawn from c.
func roundTrip(tb testing.TB, c choice, blocks int, more func() bool) {
	rc := newRTConn(c)
	for i := 0; i < blocks && more(); i++ {
		if c.intn(6) == 0 {
			rc.changeTableSize(c)
		}
		rc.advance()
		rc.step(tb, rc.genList(c))
	}
}

// FuzzRoundTrip derives a sequence of header lists and table-size changes
// from the input, encodes each list and decodes it again: the lists and the
// tables must agree after every block, and nothing panics.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 3, 0, 1, 0, 2, 0, 3, 9, 9, 9, 0, 0, 0, 0, 5, 4, 3, 2, 1})
	f.Add([]byte("\x01\x05\x00\x07\x00\x09\x00\x03\x00\x00\x00\x00\x00\x07\x00\x10\x10"))
	seed := make([]byte, 512)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 4 {
		for j := range seed {
			seed[j] = byte(r.Uint32())
		}
		binary.BigEndian.PutUint16(seed, uint16(i))
		f.Add(append([]byte(nil), seed...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &byteChoice{b: data}
		roundTrip(t, c, 1<<20, func() bool { return len(c.b) > 0 })
	})
}

// TestRoundTripRandom runs 2000 generated blocks over 10 connections.
func TestRoundTripRandom(t *testing.T) {
	for conn := range 10 {
		c := randChoice{rand.New(rand.NewPCG(15, uint64(conn)))}
		roundTrip(t, c, 200, func() bool { return true })
	}
}

// TestRoundTripLargeTable fills a 64 KiB table with a thousand small
// entries, more than the inline storage for a 4096-octet table holds, then
// sends them again (all indexed), shrinks the table to 4096 and grows it
// back, with both ends in step after every block.
func TestRoundTripLargeTable(t *testing.T) {
	rc := &rtConn{
		enc: &Encoder{MaxTableSize: 64 << 10},
		dec: &Decoder{MaxTableSize: 64 << 10, MaxFields: 1 << 10, MaxHeaderListSize: 1 << 20},
	}
	rc.enc.SetMaxTableSize(64 << 10) // the peer's SETTINGS: our decoder's bound
	var all []Field
	for i := range 1000 {
		all = append(all, Field{Name: "k" + strconv.Itoa(i%37), Value: strconv.Itoa(i)})
	}
	blocks := func() {
		for lo := 0; lo < len(all); lo += 100 {
			rc.step(t, all[lo:lo+100])
		}
	}
	blocks()
	require.Equal(t, len(all), rc.dec.TableLen(), "TableLen() after %d small fields", len(all))
	// Every field is now indexed: one or two octets (indexes above 127
	// take two).
	before := len(rc.buf)
	blocks()
	assert.LessOrEqual(t, len(rc.buf), 2*100, "last block of repeats: at most 2 octets per field")
	assert.Less(t, len(rc.buf), before, "last block of repeats, shorter than the first time")
	for _, n := range []int{4096, 64 << 10} {
		rc.enc.SetMaxTableSize(n)
		rc.dec.SetMaxTableSize(n)
		blocks()
	}
}

// TestRoundTripListTooLarge sends header lists whose decoded size is over
// the default limit (RFC 9113 §6.5.2, 64 KiB): the decoder reports
// ErrListTooLarge as a stream error, emits only fields from before the one
// at fault, and keeps its table in step, so the next block decodes.
func TestRoundTripListTooLarge(t *testing.T) {
	big := strings.Repeat("b", 3000)
	huge := strings.Repeat("h", 15000)
	tests := []struct {
		name   string
		fields []Field
		next   []Field // must decode after fields, using entries they added
	}{
		{
			// One 3000-octet field indexed once, then sent 29 times more by
			// index: 30 × 3037 octets decoded from a small block. The
			// entries added after the fault must reach the table.
			name:   "repeated-index",
			fields: append(repeatField(Field{Name: "x-big", Value: big}, 30), Field{Name: "x-after", Value: "1"}, Field{Name: "x-after-2", Value: "2"}),
			next:   []Field{{Name: "x-after", Value: "1"}, {Name: "x-big", Value: big}, {Name: "x-after-2", Value: "2"}},
		},
		{
			// Five 15000-octet literals, too large for the table, then new
			// small fields the table keeps.
			name:   "literals",
			fields: append(repeatField(Field{Name: "x-huge", Value: huge}, 5), Field{Name: "x-after", Value: "1"}),
			next:   []Field{{Name: "x-after", Value: "1"}, {Name: "x-huge", Value: "small now"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			enc := new(Encoder)
			dec := new(Decoder)
			block := enc.AppendFields(nil, tt.fields)
			var got []Field
			err := dec.DecodeBlock(block, func(name, value []byte, sensitive bool) error {
				got = append(got, Field{Name: string(name), Value: string(value), Sensitive: sensitive})
				return nil
			})
			require.ErrorIs(t, err, ErrListTooLarge, "Decode: %v, want ErrListTooLarge", err)
			assert.True(t, IsStreamError(err), "IsStreamError(%v) = false", err)
			var fe *FieldError
			require.ErrorAs(t, err, &fe)
			require.True(t, IsStreamError(err))
			// The field at fault is the first whose running total passes
			// the limit.
			fault, total := -1, 0
			for i, fl := range tt.fields {
				total += len(fl.Name) + len(fl.Value) + 32
				if total > 64<<10 {
					fault = i
					break
				}
			}
			assert.Equal(t, fault, fe.Index, "FieldError.Index")
			assert.LessOrEqual(t, len(got), fault, "emitted %d fields, want at most the %d before the one at fault", len(got), fault)
			for i := range min(len(got), len(tt.fields)) {
				assert.Equal(t, tt.fields[i], got[i], "field %d emitted as %q, want %q", i, got[i].Name, tt.fields[i].Name)
			}
			checkTablesInStep(t, enc, dec)

			rc := &rtConn{enc: enc, dec: dec}
			rc.step(t, tt.next)
		})
	}
}

func repeatField(fl Field, n int) []Field {
	fs := make([]Field, n)
	for i := range fs {
		fs[i] = fl
	}
	return fs
}

// A decoder that allows a larger table than the default starts at the
// protocol's initial size, 4096 (RFC 7541 §4.2, RFC 9113 §6.5.2), as the
// peer's encoder does: the peer may grow it with a size update once it has
// our SETTINGS. Before the fix the table started at the larger limit, kept
// entries the encoder had evicted, and when the limit was later lowered to
// 4096 it demanded a size update the encoder had no reason to send.
func TestDecoderStartsAtInitialTableSize(t *testing.T) {
	for _, limit := range []int{8192, 65536} {
		t.Run(strconv.Itoa(limit), func(t *testing.T) {
			dec := &Decoder{MaxTableSize: limit}
			require.Equal(t, DefaultMaxTableSize, dec.TableMaxSize())

			// The peer has not seen our SETTINGS: its table is 4096.
			rc := &rtConn{enc: new(Encoder), dec: dec}
			var fields []Field
			for i := range 100 {
				fields = append(fields, Field{Name: "x-k", Value: strings.Repeat("v", 40) + strconv.Itoa(i)})
			}
			rc.step(t, fields)
			// Our SETTINGS lowers the limit to 4096 after all: the
			// encoder's table is already that size and sends no update.
			rc.enc.SetMaxTableSize(4096)
			rc.dec.SetMaxTableSize(4096)
			rc.step(t, fields[:3])

			// A size update up to the advertised limit is allowed.
			dec = &Decoder{MaxTableSize: limit}
			_, err := collect(dec, Headers, cat(upd(limit), idx(2)))
			require.NoError(t, err)
			require.Equal(t, limit, dec.TableMaxSize())
			_, err = collect(&Decoder{MaxTableSize: limit}, Headers, cat(upd(limit+1), idx(2)))
			wantKind(t, err, ErrSizeUpdateLarge)
		})
	}
}
