package hpack

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncoderRepresentations(t *testing.T) {
	e := new(Encoder)
	cases := []struct {
		name, value string
		sensitive   bool
		want        []byte
	}{
		{":method", "GET", false, idx(2)},                                           // static field
		{"accept-encoding", "gzip, deflate", false, idx(16)},                        // static field
		{"custom-key", "custom-value", false, litInc("custom-key", "custom-value")}, // new name, added
		{"custom-key", "custom-value", false, idx(62)},                              // now dynamic
		{":path", "/x", false, cat([]byte{0x44}, rawStr("/x"))},                     // static name, added
		{":path", "/x", false, idx(62)},
		{"custom-key", "other", false, cat(appendInt(nil, 0x40, 6, 63), rawStr("other"))}, // dynamic name (63, behind the :path entry)
		{"authorization", "secret", true, cat([]byte{0x1f, 23 - 15}, rawStr("secret"))},   // never indexed, static name 23
		{"x-secret", "s", true, never("x-secret", "s")},
		{"custom-key", "custom-value", true, cat([]byte{0x1f, 62 - 15}, rawStr("custom-value"))}, // sensitive: not indexed even when in the table; the newest entry with the name
		{"big", strings.Repeat("b", 4100), false, lit("big", strings.Repeat("b", 4100))},         // larger than the table: not indexed
	}
	for i, c := range cases {
		got := e.AppendField(nil, c.name, c.value, c.sensitive)
		want := c.want
		if HuffmanLen(c.value) < len(c.value) || HuffmanLen(c.name) < len(c.name) {
			// Compare through a decoder when Huffman coding applies.
			want = nil
		}
		if want != nil {
			assert.Equal(t, want, got, "%d %s=%q", i, c.name, c.value[:min(len(c.value), 20)])
		}
	}
	assert.Equal(t, 3, e.TableLen(), "table entries")
}

// The encoder's size updates: none while nothing changes, the lowest then
// the final maximum after SetMaxTableSize calls, before the next field, and
// a decoder given the same settings follows.
func TestEncoderSizeUpdates(t *testing.T) {
	e := new(Encoder)
	d := new(Decoder)
	step := func(wantPrefix string, fields ...Field) {
		t.Helper()
		b := e.AppendFields(nil, fields)
		require.True(t, strings.HasPrefix(hex.EncodeToString(b), wantPrefix), "block % x, want prefix %s", b, wantPrefix)
		_, err := collect(d, Headers, b)
		require.NoError(t, err)
		require.Equal(t, d.TableSize(), e.TableSize(), "encoder table size, the decoder's")
		require.Equal(t, d.TableLen(), e.TableLen(), "encoder table entries, the decoder's")
	}
	f := Field{Name: "custom-key", Value: "custom-value"}
	step("40", f) // no update
	e.SetMaxTableSize(4096)
	step("be", f) // unchanged: no update, the entry is indexed
	e.SetMaxTableSize(0)
	e.SetMaxTableSize(100)
	d.SetMaxTableSize(0)
	d.SetMaxTableSize(100)
	step("203f45", f) // 0, then 100 (31 + 69), then a literal
	require.Equal(t, 1, e.TableLen(), "entries")
	e.SetMaxTableSize(8192) // above the encoder's limit of 4096
	d.SetMaxTableSize(8192)
	step("3fe11f", f) // 4096 = 31 + 4065 (0xe1 0x1f)
	require.Equal(t, 4096, e.TableMaxSize())

	small := &Encoder{MaxTableSize: 256}
	b := small.AppendField(nil, "a", "b", false)
	// 256 = 31 + 225
	require.True(t, bytes.HasPrefix(b, []byte{0x3f, 0xe1, 0x01}), "first block % x: no size update to 256", b)
	small.Reset()
	b = small.AppendField(nil, "a", "b", false)
	require.Equal(t, byte(0x3f), b[0], "after Reset % x: no size update to 256", b)
}

// Many entries whose hashes share buckets, evicted and re-added: every
// lookup still finds the newest live entry, never an evicted one.
func TestEncoderIndexChains(t *testing.T) {
	for _, limit := range []int{512, 4096, 20000} { // 4096, 20000: the indexes and the ring grow
		t.Run(fmt.Sprint(limit), func(t *testing.T) { testIndexChains(t, limit) })
	}
}

func testIndexChains(t *testing.T, limit int) {
	e := &Encoder{MaxTableSize: limit}
	e.SetMaxTableSize(limit)
	d := &Decoder{MaxTableSize: limit}
	most := 0
	for i := range 3000 {
		var fs []Field
		for j := range 4 {
			fs = append(fs, Field{Name: "n" + string(rune('a'+(i+j)%5)), Value: strings.Repeat("v", (i*7+j)%13) + fmt.Sprint(i%(limit/40))})
		}
		b := e.AppendFields(nil, fs)
		got, err := collect(d, Headers, b)
		require.NoError(t, err, "%v", i)
		for j, f := range fs {
			require.Equal(t, f.Name+": "+f.Value, got[j], "block %d field %d: %q, want %s: %s", i, j, got[j], f.Name, f.Value)
		}
		require.Equal(t, d.TableSize(), e.TableSize(), "block %d: table size", i)
		most = max(most, e.TableLen())
	}
	require.False(t, limit > 512 && most <= len(e.meta0), "at most %d entries: the indexes never grew", most)
}

// Values that share their length and ends share a bucket; a lookup
// compares at most maxChain of them, so a peer who crafts such headers
// (through a proxy) cannot make the encoder scan its table. An entry deeper
// in the chain is sent as a literal, and every block still decodes right.
func TestEncoderCollidingValues(t *testing.T) {
	const n = 200
	e := &Encoder{MaxTableSize: 1 << 16}
	e.SetMaxTableSize(1 << 16)
	d := &Decoder{MaxTableSize: 1 << 16}
	value := func(i int) string { return fmt.Sprintf("prefix-A%08dB-suffix", i) } // same length, same 8-byte ends
	var fields []Field
	for i := range n {
		fields = append(fields, Field{Name: "x-c", Value: value(i)})
	}
	b := e.AppendFields(nil, fields)
	_, err := collect(d, Headers, b)
	require.NoError(t, err)
	require.Equal(t, n, e.TableLen(), "entries")
	require.Equal(t, sampleHash(value(0)), sampleHash(value(n-1)), "the values do not collide: the test tests nothing")
	// The newest entries are indexed; the oldest, past maxChain in their
	// chain, are literals again.
	newest := e.AppendField(nil, "x-c", value(n-1), false)
	oldest := e.AppendField(nil, "x-c", value(0), false)
	assert.False(t, len(newest) != 1 || newest[0]&0x80 == 0, "newest entry: % x, want an index", newest)
	assert.Equal(t, byte(0x40), oldest[0]&0xc0, "oldest entry: % x, want a literal with indexing", oldest)
	got, err := collect(d, Headers, append(newest, oldest...))
	require.NoError(t, err, "%q", got)
	require.Equal(t, "x-c: "+value(n-1), got[0], "%q %v", got, err)
	require.Equal(t, "x-c: "+value(0), got[1], "%q %v", got, err)
}

// TestEncoderInsertionNumbersWrap runs the encoder's 32-bit insertion
// numbers past 2³² and checks that every block still decodes to its fields
// and that entries added across the wrap are found again.
func TestEncoderInsertionNumbersWrap(t *testing.T) {
	e, d := new(Encoder), new(Decoder)
	e.tab.added = 1<<32 - 10 // the index grows (at 16, 32, 64 entries) after the wrap
	var prev []Field
	var ids []uint32 // the insertion number of each field of prev
	for round := range 300 {
		var fields []Field
		for k := range 3 {
			fields = append(fields, Field{Name: fmt.Sprintf("x-%d", (round+k)%7), Value: fmt.Sprintf("v%d", round*3+k)})
		}
		if round >= 5 { // a field from five rounds ago, still in the table
			fields = append(fields, prev[len(prev)-15])
		}
		prev = append(prev, fields[:3]...)
		for k := range 3 {
			ids = append(ids, uint32(e.tab.added)+uint32(k))
		}
		b := e.AppendFields(nil, fields)
		got, err := collect(d, Headers, b)
		require.NoError(t, err, "round %d", round)
		for k, f := range fields {
			require.Equal(t, f.Name+": "+f.Value, got[k], "round %d: field %d is %q, want %s: %s", round, k, got[k], f.Name, f.Value)
		}
		// The entry numbered 2³²-1 has no bucket reference (it would be
		// 0, the empty one): it is never found, one miss in 2³² entries.
		if round >= 5 {
			found, unnumbered := b[len(b)-1]&0x80 != 0, ids[len(ids)-18] == 1<<32-1
			require.NotEqual(t, unnumbered, found, "round %d (added %#x): %v found", round, e.tab.added, fields[3])
		}
		last := fields[2]
		again := e.AppendField(nil, last.Name, last.Value, false)
		require.Len(t, again, 1, "round %d (added %#x): %s: %s encodes as % x, want an index", round, e.tab.added, last.Name, last.Value, again)
		_, err = collect(d, Headers, e.AppendField(nil, last.Name, last.Value, false))
		require.NoError(t, err)
	}
	require.False(t, e.tab.added < 1<<32+100, "added %#x: the numbers did not wrap", e.tab.added)
}

// TestEncoderStaleBucketHeads points bucket heads, as a number left over
// from 2³² insertions ago would, at a live entry holding other strings and
// at the next number to be given out, whose ring slot still holds an
// evicted entry with the very strings looked up: lookups must miss, not
// misfire.
func TestEncoderStaleBucketHeads(t *testing.T) {
	e := new(Encoder)
	fields := []Field{{Name: "x-stale", Value: "3"}}
	for i := range 15 {
		fields = append(fields, Field{Name: fmt.Sprintf("x-%02d", i), Value: "v"})
	}
	e.AppendFields(nil, fields)
	size := e.TableSize()
	e.SetMaxTableSize(size - 1)                 // evicts x-stale, the oldest
	e.AppendField(nil, ":method", "GET", false) // the next block applies it
	require.Equal(t, 15, e.tab.n, "entries")
	require.Len(t, e.tab.ents, 16, "ring")
	hn := sampleHash("x-stale")
	hnv := mixHash(hn, sampleHash("3"))
	for _, ref := range []uint32{uint32(e.tab.added), uint32(e.tab.added) + 1} {
		e.byName[uint32(hn)&e.mask], e.byNV[uint32(hnv)&e.mask] = ref, ref
		assert.Equal(t, 0, e.findField("x-stale", "3", hn, hnv), "ref %d: findField", ref)
		assert.Equal(t, 0, e.findName("x-stale", hn), "ref %d: findName", ref)
	}
}
