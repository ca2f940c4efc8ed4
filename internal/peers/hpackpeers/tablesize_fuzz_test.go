package hpackpeers

import (
	"fmt"
	"testing"

	xhpack "golang.org/x/net/http2/hpack"

	"github.com/netkit/netkit/codec/hpack"
)

// newDecodersAllowing returns both decoders built to allow a table of
// limit (the SETTINGS_HEADER_TABLE_SIZE they advertise): each starts at
// the protocol's 4096, or at limit if lower (x/net: NewDecoder with the
// starting size, SetAllowedMaxDynamicTableSize with the bound).
func newDecodersAllowing(limit int) *decoders {
	xn := xhpack.NewDecoder(uint32(min(limit, hpack.DefaultMaxTableSize)), nil)
	xn.SetAllowedMaxDynamicTableSize(uint32(limit))
	return &decoders{
		nk: &hpack.Decoder{MaxTableSize: tableField(limit), MaxHeaderListSize: Raised, MaxFields: Raised, MaxStringLength: Raised},
		xn: xn,
	}
}

// FuzzTableSizes runs one connection whose table size settings come from
// the input: either encoder (netkit's or x/net's, with a table limit of
// its own) against both decoders built to allow a table size, then random
// header lists with SETTINGS_HEADER_TABLE_SIZE changes between them. Every
// list must decode as sent by both, with the same tables (checkBlock).
//
// Input: seed drives the lists; ops[0] picks the encoder and its limit,
// ops[1] the decoders' limit and whether the encoder has it before the
// first block (it must when the limit is below 4096); then each op byte
// is a list (high bit clear) or a new setting, tableSizes[op&0x0f].
func FuzzTableSizes(f *testing.F) {
	f.Add(uint64(1), []byte{0, 2, 0, 0, 0x85, 0, 0x80, 0})
	f.Add(uint64(2), []byte{1, 0x82, 0, 0, 0x81, 0x8f, 0, 0})
	f.Add(uint64(3), []byte{6, 1, 0, 0x80, 0x8a, 0, 0})
	// Decoders allowing 65536, an encoder that has not heard: both ends'
	// tables must stay at 4096 (x/net's encoder, then netkit's).
	f.Add(uint64(4), append([]byte{1, 2}, make([]byte, 30)...))
	f.Add(uint64(5), append([]byte{0, 2}, make([]byte, 30)...))
	f.Fuzz(func(t *testing.T, seed uint64, ops []byte) {
		if len(ops) < 2 || len(ops) > 64 {
			return
		}
		encLimits := []int{4096, 0, 256, 16384, 65536}
		enc, encLimit := ops[0]&1, encLimits[int(ops[0]>>1)%len(encLimits)]
		var e encoderSide = newNetkitEnc(encLimit)
		if enc == 1 {
			e = newXNetEnc(encLimit)
		}
		decLimit := []int{4096, 8192, 65536, 1000, 100, 0}[int(ops[1]&0x7f)%6]
		d := newDecodersAllowing(decLimit)
		if decLimit < hpack.DefaultMaxTableSize || ops[1]&0x80 != 0 {
			e.setTableSize(decLimit)
		}
		g := newGen(seed)
		for i, op := range ops[2:] {
			if op&0x80 != 0 {
				n := tableSizes[int(op&0x0f)%len(tableSizes)]
				e.setTableSize(n)
				d.setTableSize(n)
				continue
			}
			l := g.list()
			where := fmt.Sprintf("encoder %d limit %d, decoders allow %d, op %d", enc, encLimit, decLimit, i)
			checkBlock(t, where, d, e, e.encode(l), l)
		}
	})
}

// tableField turns a table limit, where 0 means no dynamic table, into a
// MaxTableSize field's value, where 0 means the default and a negative
// value no table.
func tableField(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
