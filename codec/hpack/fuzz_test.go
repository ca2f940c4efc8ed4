package hpack

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode runs a sequence of blocks through a Decoder, whole or cut
// into fragments, and through the slow reference model (slow_test.go):
// the same fields, the same violations, the same dynamic table after every
// block. A validating decoder over the same blocks must emit a prefix of
// the same fields. Nothing may panic.
//
// Input: byte 0 picks the limits, byte 1 the fragment size (0: whole
// blocks); then blocks, each a length byte and that many bytes, or 0xff
// and a byte b: SetMaxTableSize(16*b) on both decoders.
func FuzzDecode(f *testing.F) {
	cold, warm := requestBlocks()
	seq := func(cfg, frag byte, blocks ...[]byte) []byte {
		b := []byte{cfg, frag}
		for _, x := range blocks {
			b = append(b, byte(len(x)))
			b = append(b, x...)
		}
		return b
	}
	f.Add(seq(0, 0, cold[:min(len(cold), 250)], warm))
	f.Add(seq(1, 3, litInc("custom-key", "custom-value"), idx(62), cat(upd(0), idx(2))))
	f.Add(seq(2, 1, cat(upd(100), litInc("a", "b")), never("k", "v"), cat(idx(2), upd(3))))
	f.Add(append(seq(3, 0, litInc("a", "bb")), 0xff, 2, 2, 0x22, 0x82))
	f.Add(seq(0, 2, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x0f}, []byte{0x80}))
	f.Add(seq(0x20, 0, litInc("k", strings.Repeat("v", 200)), litInc("k2", strings.Repeat("w", 240)), idx(63)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		cfg, fragSize := data[0], int(data[1])
		data = data[2:]
		maxTable := []int{4096, 256, 100, 0}[cfg&3]
		if cfg&0x20 != 0 {
			maxTable = 20000 // past the inline arena
		}
		maxList := []int{DefaultMaxHeaderListSize, 200}[cfg>>2&1]
		maxFields := []int{DefaultMaxFields, 5}[cfg>>3&1]
		maxString := []int{DefaultMaxHeaderListSize, 40}[cfg>>4&1]
		d := &Decoder{MaxTableSize: tableField(maxTable), MaxHeaderListSize: maxList, MaxFields: maxFields, MaxStringLength: maxString}
		v := &Decoder{Validate: Request, MaxTableSize: tableField(maxTable), MaxHeaderListSize: maxList, MaxFields: maxFields, MaxStringLength: maxString}
		ref := newSlowDecoder(maxTable, maxList, maxFields, maxString)
		for blk := 0; len(data) > 0; blk++ {
			n := int(data[0])
			data = data[1:]
			if n == 0xff {
				if len(data) == 0 {
					return
				}
				d.SetMaxTableSize(16 * int(data[0]))
				v.SetMaxTableSize(16 * int(data[0]))
				ref.setBound(16 * int(data[0]))
				data = data[1:]
				continue
			}
			n = min(n, len(data))
			block := data[:n]
			data = data[n:]

			var got []slowField
			emit := func(name, value []byte, s bool) error {
				got = append(got, slowField{string(name), string(value), s})
				return nil
			}
			var err error
			if fragSize == 0 {
				err = d.DecodeBlock(block, emit)
			} else {
				for i := 0; ; i += fragSize {
					end := min(i+fragSize, len(block))
					if err = d.DecodeFragment(Headers, block[i:end], end == len(block), emit); err != nil || end == len(block) {
						break
					}
				}
			}
			want, stream, conn := ref.decode(block)
			where := fmt.Sprintf("block %d % x", blk, block)
			switch {
			case conn != nil:
				require.False(t, !errors.Is(err, conn) && !(ref.broken && err != nil && !IsStreamError(err)), "%s: error %v, the model's %v", where, err, conn)
			case stream != nil:
				require.ErrorIs(t, err, stream, "%s: error %v, the model's %v", where, err, stream)
				require.True(t, IsStreamError(err), "%s: error %v, the model's %v", where, err, stream)
			default:
				require.NoError(t, err, "%s: the model accepts", where)
			}
			if conn == nil {
				require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "%s: fields, the model's", where)
				require.Equal(t, len(ref.entries), d.TableLen(), "%s: table entries, the model's", where)
				require.Equal(t, ref.size(), d.TableSize(), "%s: table size, the model's", where)
				for i, e := range ref.entries {
					n, v := d.TableEntry(i + 1)
					require.Equal(t, [2]string{string(e[0]), string(e[1])}, [2]string{string(n), string(v)}, "%s: entry %d, the model's", where, i+1)
				}
			}

			var vgot []slowField
			verr := v.DecodeBlock(block, func(name, value []byte, s bool) error {
				vgot = append(vgot, slowField{string(name), string(value), s})
				return nil
			})
			require.Equal(t, err != nil && !IsStreamError(err), verr != nil && !IsStreamError(verr),
				"%s: connection error of the validating decoder %v, the plain one %v", where, verr, err)
			if err == nil {
				require.LessOrEqual(t, len(vgot), len(got), "%s: the validating decoder emitted more fields", where)
			}
			require.Equal(t, fmt.Sprint(got[:min(len(vgot), len(got))]), fmt.Sprint(vgot), "%s: validating decoder emitted, plain", where)
		}
	})
}

// FuzzValidationCache decodes a sequence of blocks with two validating
// decoders: one that marks the dynamic entries it found clean and skips
// their characters when they are indexed again, and one that marks none
// and checks every field in full. They must agree on every field emitted
// and every error; and every entry marked clean must be clean.
//
// Input: byte 0 picks the mode (bit 0: response), whether blocks are
// trailers (bit 1) and the table size (bits 2-3); then blocks as for
// FuzzDecode (a length byte and the bytes, or 0xff and b:
// SetMaxTableSize(16*b)). With bit 4 set, the rest is pairs of bytes that
// build the blocks from representations instead (opsToBlocks), so that
// the fuzzer reaches literals whose indexed names are evicted by their own
// insertion without having to spell their encodings.
func FuzzValidationCache(f *testing.F) {
	req := cat(idx(2), idx(6), idx(4))
	seq := func(cfg byte, blocks ...[]byte) []byte {
		b := []byte{cfg}
		for _, x := range blocks {
			b = append(b, byte(len(x)))
			b = append(b, x...)
		}
		return b
	}
	// The regression: E's name is overwritten by the entry that evicts it.
	name := "Transfer-Encoding"
	n := len(name)
	f.Add(seq(0,
		cat(upd(2*n+2*entryOverhead+11), req, litInc("a", strings.Repeat("a", n+3)), litInc(name, "chunked")),
		cat(req, appendInt(nil, 0x40, 6, 62), rawStr(strings.Repeat("x", n+10))),
		cat(req, idx(62))))
	f.Add(seq(1, cat(idx(8), litInc("x-up", "a\r\nb")), cat(idx(8), idx(62), litInc("X", "y"), idx(62))))
	f.Add(seq(2, cat(litInc("te", "trailers"), litInc(":path", "/")), cat(idx(62), idx(63))))
	f.Add(append(seq(4, cat(req, litInc("k", "v"))), 0xff, 1, 2, 0x20, 0x82, 0x86, 0x84))
	f.Add([]byte{0x14, 3, 0, 0, 3, 0, 5, 7, 0, 3, 0, 1, 0x30, 7, 0, 3, 0, 2, 0})
	// The regression in ops, table 100: "a" with 8 bytes, "x-a\r\nx-b"
	// empty, then a literal named 62 with 21 bytes, which evicts both.
	f.Add([]byte{0x18, 0, 0x40, 0, 3, 1, 0xa8})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		cfg := data[0]
		data = data[1:]
		if cfg&0x10 != 0 {
			data = opsToBlocks(data)
		}
		mode := []Mode{Request, Response}[cfg&1]
		kind := []Block{Headers, Trailers}[cfg>>1&1]
		maxTable := []int{4096, 256, 100, 20000}[cfg>>2&3]
		cached := &Decoder{Validate: mode, MaxTableSize: maxTable}
		full := &Decoder{Validate: mode, MaxTableSize: maxTable, markNone: true}
		decode := func(d *Decoder, block []byte) ([]slowField, error) {
			var got []slowField
			emit := func(name, value []byte, s bool) error {
				got = append(got, slowField{string(name), string(value), s})
				return nil
			}
			if kind == Trailers {
				return got, d.DecodeTrailers(block, emit)
			}
			return got, d.DecodeBlock(block, emit)
		}
		for blk := 0; len(data) > 0; blk++ {
			n := int(data[0])
			data = data[1:]
			if n == 0xff {
				if len(data) == 0 {
					return
				}
				cached.SetMaxTableSize(16 * int(data[0]))
				full.SetMaxTableSize(16 * int(data[0]))
				data = data[1:]
				continue
			}
			n = min(n, len(data))
			block := data[:n]
			data = data[n:]
			got, err := decode(cached, block)
			want, wantErr := decode(full, block)
			where := fmt.Sprintf("block %d % x", blk, block)
			require.Equal(t, fmt.Sprint(wantErr), fmt.Sprint(err), "%s: error with the marks, checking every field", where)
			require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "%s: emitted with the marks, checking every field", where)
			if err != nil && !IsStreamError(err) {
				return
			}
			for i := 1; i <= cached.TableLen(); i++ {
				e := cached.tab.at(i)
				if e.clean {
					name, value := cached.TableEntry(i)
					require.True(t, clean(name, value), "%s: entry %d %q: %q marked clean", where, i, name, value)
				}
			}
		}
	})
}

// opsToBlocks builds the blocks of FuzzValidationCache from pairs of bytes
// (op, arg) and returns them in its length-prefixed form. op%8 is: 0 a
// literal with incremental indexing and a new name, fuzzNames[arg%8]; 1 the
// same with an indexed name, 62 + arg%4; 2 an indexed field 62 + arg%4; 3
// a request's :method, :scheme and :path (static); 4 a size update to
// 4*arg; 5 a literal without indexing named 62 + arg%4; 6 a response's
// :status; 7 the end of the block. A literal's value is arg>>3 bytes of
// 'x', with a CR LF inside when bit 2 of arg is set. A block that would
// pass 254 bytes ends first.
func opsToBlocks(ops []byte) []byte {
	var out, blk []byte
	flush := func() {
		out = append(out, byte(len(blk)))
		out = append(out, blk...)
		blk = blk[:0]
	}
	for i := 0; i+1 < len(ops); i += 2 {
		op, arg := ops[i]%8, int(ops[i+1])
		value := strings.Repeat("x", arg>>3)
		if arg&4 != 0 && len(value) >= 2 {
			value = value[:1] + "\r\n" + value[1:]
		}
		var r []byte
		switch op {
		case 0:
			r = litInc(fuzzNames[arg%len(fuzzNames)], value)
		case 1:
			r = append(appendInt(nil, 0x40, 6, 62+arg%4), rawStr(value)...)
		case 2:
			r = idx(62 + arg%4)
		case 3:
			r = cat(idx(2), idx(6), idx(4))
		case 4:
			r = upd(4 * arg)
		case 5:
			r = litIdx(62+arg%4, value)
		case 6:
			r = idx(8)
		case 7:
			flush()
			continue
		}
		if len(blk)+len(r) > 254 {
			flush()
		}
		if len(r) <= 254 {
			blk = append(blk, r...)
		}
	}
	if len(blk) > 0 {
		flush()
	}
	return out
}

// fuzzNames are the new names opsToBlocks uses: allowed ones, and ones a
// validating decoder refuses (uppercase, CR LF, connection-specific).
var fuzzNames = []string{"a", "x-k", "Transfer-Encoding", "x-a\r\nx-b", "transfer-encoding", "user-agent", "X", ":path"}
