package hpack

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The examples of RFC 7541 Appendix C, as tables. Each sequence is decoded
// by one Decoder and encoded by one Encoder, block after block, because the
// blocks of a sequence share the dynamic table. After every block the test
// checks the header list the decoder emits (names, values, sensitive flags)
// and the dynamic table as the RFC lists it (entries newest first, and the
// table size with 32 octets of overhead per entry).

// appField is one field of an example's header list.
type appField struct {
	name, value string
	sensitive   bool
}

// appEntry is one dynamic-table entry; a block's table lists them newest
// first, as the RFC's "Dynamic Table (after decoding)" does, so entry i of
// the slice is TableEntry(i+1).
type appEntry struct{ name, value string }

type appBlock struct {
	name   string // the appendix section, "C.3.1"
	wire   string // the RFC's hex dump
	fields []appField
	table  []appEntry
	size   int // the RFC's "Table size"

	// encWire is what our Encoder emits for fields when the sequence's
	// encoding is compared byte for byte (appSequence.encode); empty means
	// wire. It differs from the RFC's bytes only where the RFC's encoder made
	// a choice our policy does not (see the comments at each use).
	encWire string
	// encTable and encSize, when encSize is not 0, are the dynamic table
	// after our encoder's block, where our policy indexes a field the RFC's
	// encoder does not.
	encTable []appEntry
	encSize  int
}

type appSequence struct {
	name     string
	maxTable int // the decoder's SETTINGS_HEADER_TABLE_SIZE and the encoder's table limit
	blocks   []appBlock

	// encPrefix is what our Encoder sends before the first block's fields:
	// with a table limit below 4096 it announces the limit with a size
	// update (RFC 7541 §6.3), which the RFC's examples, whose decoder
	// starts at 256 by agreement, do not carry.
	encPrefix string

	// encode says how the encoding of the sequence's header lists is
	// checked. Our Encoder has one policy (index every field that fits,
	// Huffman only when strictly shorter, never-indexed for sensitive
	// fields), so the RFC's bytes are reproduced only where the RFC's
	// encoder chose the same representations.
	encode encodeCheck
}

type encodeCheck uint8

const (
	// encodeRoundTrip: the encoder's output must decode (by a decoder that
	// follows the encoder's sequence) to the RFC's header list, and both
	// coders' tables must be the RFC's (or encTable where our policy
	// indexes more).
	encodeRoundTrip encodeCheck = iota
	// encodeExact: additionally the output must equal encWire (or wire).
	encodeExact
)

func af(name, value string) appField { return appField{name: name, value: value} }

func ae(name, value string) appEntry { return appEntry{name: name, value: value} }

const (
	c5date21 = "Mon, 21 Oct 2013 20:13:21 GMT"
	c5date22 = "Mon, 21 Oct 2013 20:13:22 GMT"
	c5loc    = "https://www.example.com"
	c5cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"
)

// The request lists of C.3 and C.4 (the same lists; C.4 Huffman-codes the
// strings) and their dynamic tables.
var (
	c3list1 = []appField{af(":method", "GET"), af(":scheme", "http"), af(":path", "/"), af(":authority", "www.example.com")}
	c3list2 = []appField{af(":method", "GET"), af(":scheme", "http"), af(":path", "/"), af(":authority", "www.example.com"), af("cache-control", "no-cache")}
	c3list3 = []appField{af(":method", "GET"), af(":scheme", "https"), af(":path", "/index.html"), af(":authority", "www.example.com"), af("custom-key", "custom-value")}

	c3table1 = []appEntry{ae(":authority", "www.example.com")}
	c3table2 = []appEntry{ae("cache-control", "no-cache"), ae(":authority", "www.example.com")}
	c3table3 = []appEntry{ae("custom-key", "custom-value"), ae("cache-control", "no-cache"), ae(":authority", "www.example.com")}
)

// The response lists of C.5 and C.6 and their dynamic tables (256 octets,
// so entries are evicted).
var (
	c5list1 = []appField{af(":status", "302"), af("cache-control", "private"), af("date", c5date21), af("location", c5loc)}
	c5list2 = []appField{af(":status", "307"), af("cache-control", "private"), af("date", c5date21), af("location", c5loc)}
	c5list3 = []appField{af(":status", "200"), af("cache-control", "private"), af("date", c5date22), af("location", c5loc), af("content-encoding", "gzip"), af("set-cookie", c5cookie)}

	c5table1 = []appEntry{ae("location", c5loc), ae("date", c5date21), ae("cache-control", "private"), ae(":status", "302")}
	c5table2 = []appEntry{ae(":status", "307"), ae("location", c5loc), ae("date", c5date21), ae("cache-control", "private")}
	c5table3 = []appEntry{ae("set-cookie", c5cookie), ae("content-encoding", "gzip"), ae("date", c5date22)}
)

var appendixC = []appSequence{
	{
		name: "C.2.1", maxTable: 4096, encode: encodeRoundTrip, // the RFC's strings are not Huffman-coded; ours are, being shorter
		blocks: []appBlock{{
			name:   "C.2.1",
			wire:   "400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572",
			fields: []appField{af("custom-key", "custom-header")},
			table:  []appEntry{ae("custom-key", "custom-header")},
			size:   55,
		}},
	},
	{
		name: "C.2.2", maxTable: 4096, encode: encodeRoundTrip, // the RFC does not index; we do
		blocks: []appBlock{{
			name:   "C.2.2",
			wire:   "040c 2f73 616d 706c 652f 7061 7468",
			fields: []appField{af(":path", "/sample/path")},
			// :path is in the static table with another value; our encoder
			// indexes the field, the RFC's example does not.
			encTable: []appEntry{ae(":path", "/sample/path")},
			encSize:  49,
		}},
	},
	{
		name: "C.2.3", maxTable: 4096, encode: encodeRoundTrip, // never indexed as in the RFC, but Huffman-coded
		blocks: []appBlock{{
			name:   "C.2.3",
			wire:   "1008 7061 7373 776f 7264 0673 6563 7265 74",
			fields: []appField{{name: "password", value: "secret", sensitive: true}},
		}},
	},
	{
		name: "C.2.4", maxTable: 4096, encode: encodeExact,
		blocks: []appBlock{{
			name:   "C.2.4",
			wire:   "82",
			fields: []appField{af(":method", "GET")},
		}},
	},
	{
		// C.3 has no Huffman coding; our encoder Huffman-codes every string
		// of these lists (each is shorter so), which gives exactly the C.4
		// bytes.
		name: "C.3", maxTable: 4096, encode: encodeExact,
		blocks: []appBlock{
			{
				name:    "C.3.1",
				wire:    "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
				fields:  c3list1,
				table:   c3table1,
				size:    57,
				encWire: "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
			},
			{
				name:    "C.3.2",
				wire:    "8286 84be 5808 6e6f 2d63 6163 6865",
				fields:  c3list2,
				table:   c3table2,
				size:    110,
				encWire: "8286 84be 5886 a8eb 1064 9cbf",
			},
			{
				name:    "C.3.3",
				wire:    "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
				fields:  c3list3,
				table:   c3table3,
				size:    164,
				encWire: "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
			},
		},
	},
	{
		name: "C.4", maxTable: 4096, encode: encodeExact,
		blocks: []appBlock{
			{
				name:   "C.4.1",
				wire:   "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
				fields: c3list1,
				table:  c3table1,
				size:   57,
			},
			{
				name:   "C.4.2",
				wire:   "8286 84be 5886 a8eb 1064 9cbf",
				fields: c3list2,
				table:  c3table2,
				size:   110,
			},
			{
				name:   "C.4.3",
				wire:   "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
				fields: c3list3,
				table:  c3table3,
				size:   164,
			},
		},
	},
	{
		// C.5 has no Huffman coding; our encoder gives the C.6 bytes, but
		// for C.6.2 (below).
		name: "C.5", maxTable: 256, encode: encodeExact, encPrefix: "3fe1 01",
		blocks: []appBlock{
			{
				name:    "C.5.1",
				wire:    "4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
				fields:  c5list1,
				table:   c5table1,
				size:    222,
				encWire: "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
			},
			{
				name:    "C.5.2",
				wire:    "4803 3330 37c1 c0bf",
				fields:  c5list2,
				table:   c5table2,
				size:    222,
				encWire: "4803 3330 37c1 c0bf", // "307" Huffman-codes to 3 octets, no shorter: raw, as in C.5.2
			},
			{
				name:    "C.5.3",
				wire:    "88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d 54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049 5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31",
				fields:  c5list3,
				table:   c5table3,
				size:    215,
				encWire: "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
			},
		},
	},
	{
		name: "C.6", maxTable: 256, encode: encodeExact, encPrefix: "3fe1 01",
		blocks: []appBlock{
			{
				name:   "C.6.1",
				wire:   "4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3",
				fields: c5list1,
				table:  c5table1,
				size:   222,
			},
			{
				name:   "C.6.2",
				wire:   "4883 640e ffc1 c0bf",
				fields: c5list2,
				table:  c5table2,
				size:   222,
				// The RFC Huffman-codes "307" (640eff) although that is no
				// shorter than the three raw octets; our encoder sends
				// Huffman only when strictly shorter.
				encWire: "4803 3330 37c1 c0bf",
			},
			{
				name:   "C.6.3",
				wire:   "88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07",
				fields: c5list3,
				table:  c5table3,
				size:   215,
			},
		},
	},
}

// unhex decodes an RFC hex dump ("8286 8441 …").
func unhex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	require.NoError(tb, err, "bad hex %q", s)
	return b
}

// decodeList decodes one block and returns the emitted fields, copied.
func decodeList(d *Decoder, block []byte) ([]appField, error) {
	var got []appField
	err := d.DecodeBlock(block, func(name, value []byte, sensitive bool) error {
		got = append(got, appField{name: string(name), value: string(value), sensitive: sensitive})
		return nil
	})
	return got, err
}

// checkList compares a decoded header list with the expected one.
func checkList(tb testing.TB, got, want []appField) {
	tb.Helper()
	if !assert.Len(tb, got, len(want), "decoded fields, want %+v", want) {
		return
	}
	for i := range want {
		assert.Equal(tb, want[i], got[i], "field %d = %q: %q (sensitive %v), want %q: %q (sensitive %v)", i, got[i].name, got[i].value, got[i].sensitive, want[i].name, want[i].value, want[i].sensitive)
	}
}

// checkTable compares the decoder's dynamic table with the RFC's listing.
func checkTable(tb testing.TB, d *Decoder, want []appEntry, size int) {
	tb.Helper()
	n := d.TableLen()
	assert.Equal(tb, len(want), n, "TableLen() = %d, want %d", n, len(want))
	for i := range min(d.TableLen(), len(want)) {
		name, value := d.TableEntry(i + 1)
		assert.Equal(tb, want[i].name, string(name), "TableEntry(%d) name", i+1)
		assert.Equal(tb, want[i].value, string(value), "TableEntry(%d) value", i+1)
	}
	got := d.TableSize()
	assert.Equal(tb, size, got, "TableSize() = %d, want %d", got, size)
}

// newDecoder returns a decoder for the sequence. For C.5 and C.6 the RFC's
// decoder has a table of 256 octets from the start: our SETTINGS bound is
// 256, so the table starts at 256 and the blocks need no size update.
func (s appSequence) newDecoder() *Decoder { return &Decoder{MaxTableSize: s.maxTable} }

func (s appSequence) newEncoder() *Encoder {
	return &Encoder{MaxTableSize: s.maxTable}
}

// The integer examples of C.1 (RFC 7541 §5.1), checked through the
// package's integer coding: the prefix bits the RFC marks X are the
// caller's flags, kept by appendInt and masked by readInt.
var appendixCIntegers = []struct {
	name   string
	value  int
	prefix uint8
	wire   string // with the X bits 0
}{
	{"C.1.1", 10, 5, "0a"},
	{"C.1.2", 1337, 5, "1f9a 0a"},
	{"C.1.3", 42, 8, "2a"},
}

func checkAppendixCInteger(t *testing.T, value int, prefix uint8, wire string) {
	want := unhex(t, wire)
	assert.Equal(t, want, appendInt(nil, 0, prefix, value), "appendInt(%d, %d-bit prefix)", value, prefix)
	flags := byte(0xff) << prefix // the X bits, all set (none for an 8-bit prefix)
	withFlags := append([]byte{want[0] | flags}, want[1:]...)
	got := appendInt([]byte{0x55}, flags, prefix, value)
	assert.Equal(t, append([]byte{0x55}, withFlags...), got, "appendInt with flags %#x = %x, want 55%x", flags, got, withFlags)
	// Decode from an offset, with the X bits set and a byte after.
	p := append(append([]byte{0x55}, withFlags...), 0x77)
	v, j, bad := readInt(p, 1, prefix)
	assert.False(t, v != value || j != 1+len(want) || bad != nil, "readInt(%x, 1, %d) = %d, %d, %v; want %d, %d, nil", p, prefix, v, j, bad, value, 1+len(want))
	// Cut before its last byte, the integer is unfinished.
	if len(want) > 1 {
		_, j, bad := readInt(withFlags[:len(withFlags)-1], 0, prefix)
		assert.False(t, j >= 0 || bad != nil, "readInt of %x cut short: j = %d, %v; want j < 0", withFlags, j, bad)
	}
}

// TestAppendixC checks the integers of RFC 7541 Appendix C (C.1), decodes
// every header block (C.2 to C.6) and encodes every header list. Each block's subtests first replay the
// blocks before it in its sequence, with fresh coders, so that any one of
// them can run alone (-run 'TestAppendixC/C.6.3').
func TestAppendixC(t *testing.T) {
	for _, tt := range appendixCIntegers {
		t.Run(tt.name, func(t *testing.T) { checkAppendixCInteger(t, tt.value, tt.prefix, tt.wire) })
	}
	for _, seq := range appendixC {
		for k, b := range seq.blocks {
			t.Run(b.name+"/decode", func(t *testing.T) {
				dec := seq.newDecoder()
				for _, prev := range seq.blocks[:k] {
					_, err := decodeList(dec, unhex(t, prev.wire))
					require.NoError(t, err, "decoding %s", prev.name)
				}
				got, err := decodeList(dec, unhex(t, b.wire))
				require.NoError(t, err, "Decode")
				checkList(t, got, b.fields)
				checkTable(t, dec, b.table, b.size)
			})
			t.Run(b.name+"/encode", func(t *testing.T) {
				enc := seq.newEncoder()
				// follow decodes what enc emits.
				follow := seq.newDecoder()
				for _, prev := range seq.blocks[:k] {
					out := enc.AppendFields(nil, appFields(prev.fields))
					_, err := decodeList(follow, out)
					require.NoError(t, err, "decoding the encoder's %s", prev.name)
				}
				out := enc.AppendFields(nil, appFields(b.fields))
				if seq.encode == encodeExact {
					want := b.encWire
					if want == "" {
						want = b.wire
					}
					if k == 0 {
						want = seq.encPrefix + want
					}
					w := unhex(t, want)
					assert.Equal(t, w, out, "AppendFields = %x\n                 want %x", out, w)
				}
				got, err := decodeList(follow, out)
				require.NoError(t, err, "decoding the encoder's %x", out)
				checkList(t, got, b.fields)
				table, size := b.table, b.size
				if b.encSize != 0 {
					table, size = b.encTable, b.encSize
				}
				checkTable(t, follow, table, size)
				checkEncoderTable(t, enc, table, size)
			})
		}
	}
}

func appFields(list []appField) []Field {
	fields := make([]Field, len(list))
	for i, fl := range list {
		fields[i] = Field{Name: fl.name, Value: fl.value, Sensitive: fl.sensitive}
	}
	return fields
}

// checkEncoderTable compares the encoder's dynamic table with the RFC's
// listing.
func checkEncoderTable(tb testing.TB, enc *Encoder, want []appEntry, size int) {
	tb.Helper()
	got := encoderEntries(enc)
	if assert.Len(tb, got, len(want), "encoder table %+v", got) {
		for i := range want {
			assert.Equal(tb, want[i], got[i], "encoder table entry %d", i+1)
		}
	}
	assert.Equal(tb, size, enc.TableSize(), "encoder TableSize()")
}

// encoderEntries lists the encoder's dynamic table, newest first.
func encoderEntries(enc *Encoder) []appEntry {
	ents := make([]appEntry, enc.TableLen())
	for i := range ents {
		en := enc.tab.at(i + 1)
		ents[i] = appEntry{string(enc.tab.name(en)), string(enc.tab.value(en))}
	}
	return ents
}
