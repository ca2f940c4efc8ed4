package hpack

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The RFC 7541 rules a decoder enforces: each a connection error at the
// offset of the representation at fault.
func TestDecodeRejects(t *testing.T) {
	big := strings.Repeat("x", 100)
	cases := []struct {
		name  string
		setup func(d *Decoder)
		block []byte
		want  *Violation
		off   int
	}{
		{"RFC7541_6.1/index_0", nil, cat(idx(2), idx(0)), ErrIndexZero, 1},
		{"RFC7541_2.3.3/index_past_static_empty_table", nil, idx(62), ErrIndexRange, 0},
		{"RFC7541_2.3.3/index_past_dynamic", nil, cat(litInc("a", "b"), idx(63)), ErrIndexRange, 5},
		{"RFC7541_2.3.3/name_index_past_tables", nil, litIdx(70, "v"), ErrIndexRange, 0},
		{"RFC7541_2.3.3/literal_name_index_0_is_a_new_name_not_an_error", nil, nil, nil, 0},
		{"RFC7541_5.1/integer_over_32_bits", nil, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, ErrIntegerOverflow, 0},
		{"RFC7541_5.1/six_continuation_bytes", nil, []byte{0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, ErrIntegerOverflow, 0},
		{"RFC7541_4.2/size_update_after_a_field", nil, cat(idx(2), upd(0)), ErrSizeUpdateLate, 1},
		{"RFC7541_4.2/size_update_after_a_field_empty_table_go29187", nil, cat(lit("a", "b"), upd(100)), ErrSizeUpdateLate, 5},
		{"RFC7541_4.2/three_size_updates", nil, cat(upd(0), upd(10), upd(20), idx(2)), ErrSizeUpdateMany, 2},
		{"RFC7541_6.3/size_update_above_settings", nil, upd(4097), ErrSizeUpdateLarge, 0},
		{"RFC7541_6.3/size_update_above_lowered_settings", func(d *Decoder) { d.SetMaxTableSize(100) }, upd(200), ErrSizeUpdateLarge, 0},
		{"RFC7541_4.2/no_size_update_after_settings_lowered", func(d *Decoder) { d.SetMaxTableSize(100) }, idx(2), ErrSizeUpdateMissed, 0},
		{"RFC7541_4.2/size_update_not_down_to_lowest_settings", func(d *Decoder) { d.SetMaxTableSize(100); d.SetMaxTableSize(200) }, cat(upd(150), idx(2)), ErrSizeUpdateMissed, 2},
		{"RFC7541_2.3/block_ends_inside_a_string", nil, lit("name", "value")[:8], ErrTruncated, 0},
		{"RFC7541_2.3/block_ends_inside_an_integer", nil, []byte{0x82, 0xff}, ErrTruncated, 1},
		{"RFC7541_7.4/string_longer_than_maximum", func(d *Decoder) { *d = Decoder{MaxStringLength: 99} }, lit("a", big), ErrStringTooLong, 0},
		{"RFC7541_7.4/string_length_checked_before_bytes_arrive", func(d *Decoder) { *d = Decoder{MaxStringLength: 99} }, lit("a", big)[:5], ErrStringTooLong, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil {
				d := new(Decoder)
				got, err := collect(d, Headers, cat([]byte{0x00}, rawStr(":path"), rawStr("/x")))
				require.NoError(t, err, "%q", got)
				require.Equal(t, []string{":path: /x"}, got)
				return
			}
			d := new(Decoder)
			if c.setup != nil {
				c.setup(d)
			}
			_, err := collect(d, Headers, c.block)
			wantKind(t, err, c.want)
			var se *SyntaxError
			errors.As(err, &se)
			assert.Equal(t, c.off, se.Offset, "offset %d, want %d (%v)", se.Offset, c.off, err)
			// A connection error is final until Reset.
			_, err2 := collect(d, Headers, idx(2))
			assert.Same(t, err, err2, "after the error, the same error again")
			d.Reset()
			got, err := collect(d, Headers, idx(2))
			assert.NoError(t, err, "after Reset")
			assert.Equal(t, []string{":method: GET"}, got, "after Reset")
		})
	}
}

func TestDecodeSizeUpdates(t *testing.T) {
	d := new(Decoder)
	_, err := collect(d, Headers, cat(litInc("aaaa", "bbbb"), litInc("cccc", "dddd")))
	require.NoError(t, err)
	// Two updates at the start: down to 0 (evicts all), then up again.
	got, err := collect(d, Headers, cat(upd(0), upd(4096), litInc("e", "f"), idx(62)))
	require.NoError(t, err, "%q", got)
	require.Equal(t, []string{"e: f", "e: f"}, got)
	require.Equal(t, 1, d.TableLen(), tableString(d))
	require.Equal(t, 34, d.TableSize(), tableString(d))
	require.Equal(t, 4096, d.TableMaxSize())
	// SETTINGS lowered: the table shrinks now, the next block must start
	// with an update no larger, after which blocks go on.
	d.SetMaxTableSize(10)
	require.Equal(t, 0, d.TableLen(), "entries after SetMaxTableSize(10)")
	require.Equal(t, 10, d.TableMaxSize(), "after SetMaxTableSize(10)")
	_, err = collect(d, Headers, cat(upd(10), idx(2)))
	require.NoError(t, err)
	_, err = collect(d, Headers, idx(2))
	require.NoError(t, err)
	// SETTINGS raised: nothing changes until the peer's update.
	d.SetMaxTableSize(8192)
	require.Equal(t, 10, d.TableMaxSize(), "before the update")
	big := strings.Repeat("v", 5000)
	_, err = collect(d, Headers, cat(upd(8192), litInc("k", big), idx(62)))
	require.NoError(t, err)
	n, v := d.TableEntry(1)
	require.Equal(t, "k", string(n))
	require.Equal(t, big, string(v))
	require.Equal(t, 5033, d.TableSize())
}

// An entry larger than the table empties it and is not added (RFC 7541
// §4.4); eviction makes room for the new entry first, even when the new
// entry's name is the evicted entry's (§4.4's last paragraph).
func TestDecodeEviction(t *testing.T) {
	d := &Decoder{MaxTableSize: 100}
	blocks := [][]byte{
		litInc("name-one", "value-one"),                         // 8+9+32 = 49
		litInc("name-two", "value-two"),                         // 98
		cat([]byte{0x40 | 62}, rawStr("v3")),                    // name of entry 62 (name-two), evicts name-one: 49+42 = 91
		cat([]byte{0x40 | 62}, rawStr(strings.Repeat("z", 58))), // name "name-two" (entry 62), needs 98: evicts both
	}
	want := []string{
		"[1] name-one: value-one\n",
		"[1] name-two: value-two\n[2] name-one: value-one\n",
		"[1] name-two: v3\n[2] name-two: value-two\n",
		"[1] name-two: " + strings.Repeat("z", 58) + "\n",
	}
	for i, b := range blocks {
		_, err := collect(d, Headers, b)
		require.NoError(t, err, "%v", i)
		got := tableString(d)
		require.Equal(t, want[i], got, "block %d: table\n%swant\n%s", i, got, want[i])
	}
	// 101 > 100
	_, err := collect(d, Headers, litInc("k", strings.Repeat("x", 68)))
	require.NoError(t, err)
	require.Equal(t, 0, d.TableLen(), "an oversized entry left entries:\n%s", tableString(d))
	require.Equal(t, 0, d.TableSize())
}

// The arena placement: many entries of random sizes wrap around the ring
// and the arena, and every entry reads back as written.
func TestDecodeTableWraps(t *testing.T) {
	for _, max := range []int{300, 20000} { // 20000: the arena outgrows the inline one
		t.Run(fmt.Sprint(max), func(t *testing.T) { testTableWraps(t, max) })
	}
	// A large maximum with small entries keeps a small arena.
	d := &Decoder{MaxTableSize: 1 << 20}
	_, err := collect(d, Headers, cat(upd(1<<20), idx(2)))
	require.NoError(t, err)
	require.Equal(t, 1<<20, d.TableMaxSize())
	for i := range 100 {
		_, err := collect(d, Headers, litInc(fmt.Sprint("k", i), "v"))
		require.NoError(t, err)
	}
	require.LessOrEqual(t, len(d.tab.arena), 2*DefaultMaxTableSize, "arena bytes for 100 small entries")
	require.LessOrEqual(t, len(d.tab.ents), 256, "ring entries for 100 small entries")
}

func testTableWraps(t *testing.T, max int) {
	d := &Decoder{MaxTableSize: max}
	// The table starts at 4096 at most; the peer grows it to max.
	_, err := collect(d, Headers, cat(upd(max), idx(2)))
	require.NoError(t, err)
	var model [][2]string // newest first
	size := func() int {
		n := 0
		for _, e := range model {
			n += len(e[0]) + len(e[1]) + 32
		}
		return n
	}
	for i := 0; i < 5000; i++ {
		name := strings.Repeat(string(rune('a'+i%26)), 1+i%7)
		value := strings.Repeat("v", (i*37)%(max/2+50)%1000)
		_, err := collect(d, Headers, litInc(name, value))
		require.NoError(t, err)
		model = append([][2]string{{name, value}}, model...)
		for size() > max {
			model = model[:len(model)-1]
		}
		require.Equal(t, len(model), d.TableLen(), "step %d: entries", i)
		require.Equal(t, size(), d.TableSize(), "step %d: size", i)
		for j, e := range model {
			n, v := d.TableEntry(j + 1)
			require.Equal(t, e, [2]string{string(n), string(v)}, "step %d entry %d", i, j+1)
		}
	}
}

// Limits are stream errors raised after the whole block: the decoder
// stops emitting at the field over the limit but keeps the table in step.
func TestDecodeLimits(t *testing.T) {
	t.Run("RFC9113_6.5.2/header_list_size", func(t *testing.T) {
		d := &Decoder{MaxHeaderListSize: 100}
		// 32+1+30 = 63, then 126 > 100: the second field is at fault; the
		// third is added to the table although not emitted.
		block := cat(lit("a", strings.Repeat("1", 30)), lit("b", strings.Repeat("2", 30)), litInc("c", "3"))
		got, err := collect(d, Headers, block)
		wantKind(t, err, ErrListTooLarge)
		var fe *FieldError
		require.ErrorAs(t, err, &fe)
		assert.Equal(t, 1, fe.Index)
		assert.Equal(t, "b", fe.Field)
		require.Equal(t, []string{"a: " + strings.Repeat("1", 30)}, got, "emitted")
		got, err = collect(d, Headers, idx(62))
		require.NoError(t, err, "table out of step")
		require.Equal(t, []string{"c: 3"}, got, "table out of step")
	})
	t.Run("RFC9113_10.5.1/field_count", func(t *testing.T) {
		d := &Decoder{MaxFields: 3}
		got, err := collect(d, Headers, cat(idx(2), idx(4), idx(6), idx(8), litInc("x", "y")))
		wantKind(t, err, ErrTooManyFields)
		require.Len(t, got, 3, "emitted")
		got, err = collect(d, Headers, idx(62))
		require.NoError(t, err, "table out of step")
		require.Equal(t, []string{"x: y"}, got, "table out of step")
	})
	t.Run("defaults", func(t *testing.T) {
		d := new(Decoder)
		assert.Equal(t, config{maxList: 64 << 10, maxFields: 256, maxString: 64 << 10}, d.limits())
		assert.Equal(t, 4096, d.TableMaxSize())
		var b []byte
		for range 257 {
			b = append(b, idx(2)...)
		}
		_, err := collect(d, Headers, b)
		wantKind(t, err, ErrTooManyFields)
	})
}

// CVE-2016-6581's HPACK bomb: one 4 KiB entry, then 16 KB of 1-byte
// references to it (64 MB of headers). A decoder with the default limits
// refuses it without allocating, having emitted at most the list budget.
func TestDecodeBomb(t *testing.T) {
	block := bombBlock()
	d := new(Decoder)
	emitted := 0
	emit := func(n, v []byte, _ bool) error { emitted += len(n) + len(v) + 32; return nil }
	err := d.DecodeBlock(block, emit)
	wantKind(t, err, ErrListTooLarge)
	require.LessOrEqual(t, emitted, DefaultMaxHeaderListSize, "emitted %d bytes of headers", emitted)
	allocs := testing.AllocsPerRun(20, func() {
		d.Reset()
		require.ErrorIs(t, d.DecodeBlock(block, emit), ErrListTooLarge)
	})
	// The error and the field name it quotes are the only allocations.
	require.LessOrEqual(t, allocs, 2.0, "allocations per bomb")
}

// bombBlock is one literal with incremental indexing holding a 4,000-byte
// value, then 16,000 indexed references to it.
func bombBlock() []byte {
	b := litInc("bomb", strings.Repeat("x", 4000))
	for range 16000 {
		b = append(b, 0x80|62)
	}
	return b
}

// Fields are emitted in order with the sensitive flag of never-indexed
// literals; an error from emit stops the emitting, and the block is still
// processed to its end.
func TestDecodeEmit(t *testing.T) {
	d := new(Decoder)
	got, err := collect(d, Headers, cat(idx(2), never("authorization", "secret"), litIdx(4, "/a")))
	require.NoError(t, err, "%q", got)
	require.Equal(t, []string{":method: GET", "authorization:: secret", ":path: /a"}, got)
	stop := errors.New("stop")
	n := 0
	err = d.DecodeBlock(cat(idx(2), idx(3), litInc("k", "v")), func(_, _ []byte, _ bool) error {
		n++
		return stop
	})
	require.Same(t, stop, err)
	require.Equal(t, 1, n, "emit calls")
	got, err = collect(d, Headers, idx(62))
	require.NoError(t, err, "table out of step")
	require.Equal(t, []string{"k: v"}, got, "table out of step")
	require.NoError(t, d.DecodeBlock(idx(2), nil), "nil emit")
}

// A block split anywhere into fragments decodes as the whole block does.
func TestDecodeFragments(t *testing.T) {
	block := cat(upd(256), idx(2), litInc("custom-key", "custom-value"), never("secret", strings.Repeat("s", 200)),
		litIdx(4, "/path"), idx(62), lit("x", ""))
	ref := new(Decoder)
	want, err := collect(ref, Headers, block)
	require.NoError(t, err)
	for cut1 := 0; cut1 <= len(block); cut1++ {
		for _, cut2 := range []int{cut1, (cut1 + len(block)) / 2, len(block)} {
			d := new(Decoder)
			var got []string
			emit := func(n, v []byte, s bool) error {
				sep := ": "
				if s {
					sep = ":: "
				}
				got = append(got, string(n)+sep+string(v))
				return nil
			}
			frags := [][]byte{block[:cut1], block[cut1:cut2], block[cut2:]}
			for i, f := range frags {
				require.NoError(t, d.DecodeFragment(Headers, f, i == 2, emit), "cuts %d,%d fragment %d", cut1, cut2, i)
			}
			require.Equal(t, want, got, "cuts %d,%d", cut1, cut2)
			require.Equal(t, tableString(ref), tableString(d), "cuts %d,%d", cut1, cut2)
		}
	}
	// Ending the block inside a representation is a truncation at the
	// representation's block offset.
	d := new(Decoder)
	require.NoError(t, d.DecodeFragment(Headers, block[:10], false, nil))
	err = d.DecodeFragment(Headers, block[10:20], true, nil)
	wantKind(t, err, ErrTruncated)
	// A whole block may not start while a fragmented one is open.
	d = new(Decoder)
	require.NoError(t, d.DecodeFragment(Headers, block[:10], false, nil))
	wantKind(t, d.DecodeBlock(idx(2), nil), ErrBlockUnfinished)
}

// Integers are summed in 64 bits and capped at 2^32-1, or at
// math.MaxInt where an int is 32 bits (GOARCH=386): none wraps around to a
// small or negative size, index or length. Before, on 386, the package did
// not build (1<<32-1 overflows int), and a sum in int would have read
// 2^32+5 as 5.
func TestReadIntLimits(t *testing.T) {
	// enc writes v with a 5-bit prefix (a size update's), as RFC 7541
	// §5.1 does, in 64 bits.
	enc := func(v uint64) []byte {
		b := []byte{0x3f}
		for v -= 31; v >= 0x80; v >>= 7 {
			b = append(b, byte(v)|0x80)
		}
		return append(b, byte(v))
	}
	for _, v := range []uint64{31, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<32 + 5, 1<<32 + 1<<31, 1 << 34} {
		t.Run(strconv.FormatUint(v, 10), func(t *testing.T) {
			p := enc(v)
			got, j, bad := readInt(p, 0, 5)
			if v > 1<<32-1 || v > math.MaxInt {
				require.Equal(t, ErrIntegerOverflow, bad)
				return
			}
			require.Nil(t, bad)
			require.Equal(t, len(p), j)
			require.Equal(t, v, uint64(got))
		})
	}
}
