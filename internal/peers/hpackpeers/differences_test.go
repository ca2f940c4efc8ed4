package hpackpeers

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	xhpack "golang.org/x/net/http2/hpack"

	"github.com/netkit/netkit/codec/hpack"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A difference is a documented input on which netkit and x/net disagree
// about accepting header blocks: the last block of the example is rejected
// by one and accepted by the other. When netkit rejects, err is its error
// (a connection error); when x/net rejects, xnetErr is the text of its
// error.
type difference struct {
	err     *hpack.Violation
	xnetErr string
	section string // the rule, where RFC 7541 or RFC 9113 states it
	example []string
	why     string
}

// errXNetTwoUpdates is x/net's error on a size update after the first
// representation of a block.
const errXNetTwoUpdates = "dynamic table size update MUST occur at the beginning of a header block"

// differences lists every disagreement on accept or reject between netkit's
// decoder (no validation, limits raised) and x/net's. FuzzDecode fails on
// one that matches no row; TestDifferences fails on a row whose example no
// longer shows it.
var differences = []difference{
	{err: hpack.ErrSizeUpdateLate, section: "RFC 7541 §4.2",
		example: []string{"82 20"},
		why:     "a dynamic table size update after the first field of a block: x/net allows it while its dynamic table is empty (golang/go#29187)"},
	{err: hpack.ErrSizeUpdateMany, section: "RFC 7541 §4.2",
		example: []string{"20 20 20 82"},
		why:     "more than two dynamic table size updates at the start of a block: x/net takes any number; an encoder never needs more than two (the smallest size since the last block, then the final one)"},
	{err: hpack.ErrIntegerOverflow, section: "RFC 7541 §5.1",
		example: []string{"3f 81 80 80 80 80 00 82"},
		why:     "an integer spread over more than five continuation bytes (here a size update of 32 padded with zero groups): x/net reads up to nine; five carry every value below 2^32, and netkit refuses the padding, which only wastes the decoder's time"},
	{xnetErr: errXNetTwoUpdates, section: "RFC 7541 §4.2",
		example: []string{"40 01 61 01 62", "3f 03 3f e1 1f 82"},
		why:     "two size updates at the start of a block, as an encoder must send after the peer lowered its setting and raised it again (x/net's own encoder sends them): x/net refuses the second unless its dynamic table is empty after the first, since it counts the first update as the block's first field; netkit accepts them (the differential tests feed x/net the block again without the first update)"},
}

func (d *difference) blocks() [][]byte {
	out := make([][]byte, len(d.example))
	for i, s := range d.example {
		b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
		if err != nil {
			panic(err)
		}
		out[i] = b
	}
	return out
}

// documented returns the row of differences that allows netkit's error
// nkErr on a block x/net accepts, or x/net's error xnErr on a block netkit
// accepts (one of the two is nil), or nil.
func documented(nkErr, xnErr error) *difference {
	for i := range differences {
		d := &differences[i]
		switch {
		case nkErr != nil && d.err != nil && errors.Is(nkErr, d.err):
			return d
		case xnErr != nil && d.xnetErr != "" && strings.Contains(xnErr.Error(), d.xnetErr):
			return d
		}
	}
	return nil
}

// TestDifferences checks every row on its example: both decoders accept
// the blocks before the last; on the last, netkit rejects with the row's
// error as a connection error (*hpack.SyntaxError) and x/net accepts, or
// x/net rejects with the row's error and netkit accepts.
func TestDifferences(t *testing.T) {
	for k, d := range differences {
		t.Run(fmt.Sprint(k), func(t *testing.T) {
			if d.err != nil {
				assert.Equal(t, d.err.Ref, d.section, "the row cites another section than its error")
			}
			nk, xn := NewNetkitDecoder(), xhpack.NewDecoder(4096, nil)
			blocks := d.blocks()
			for i, b := range blocks {
				_, xnErr := XNetDecode(xn, b)
				_, nkErr := NetkitDecode(nk, b)
				if i < len(blocks)-1 {
					require.NoError(t, nkErr, "block %d (% x): netkit %v, x/net %v", i, b, nkErr, xnErr)
					require.NoError(t, xnErr, "block %d (% x): netkit %v, x/net", i, b, nkErr)
					continue
				}
				if d.err != nil {
					var se *hpack.SyntaxError
					require.ErrorIs(t, nkErr, d.err, "on % x: netkit %v, want a *SyntaxError of %v; x/net %v, want nil", b, nkErr, d.err, xnErr)
					require.ErrorAs(t, nkErr, &se, "on % x: netkit %v, want a *SyntaxError of %v; x/net %v, want nil", b, nkErr, d.err, xnErr)
					require.NoError(t, xnErr, "on % x: netkit %v, want a *SyntaxError of %v; x/net", b, nkErr, d.err)
				} else {
					require.NoError(t, nkErr, "on % x: netkit", b)
					require.ErrorContains(t, xnErr, d.xnetErr, "on % x: x/net", b)
				}
				assert.Same(t, &differences[k], documented(nkErr, xnErr), "documented finds another row for the example")
			}
		})
	}
}

// differencesMarkdown renders differences as README.md's table.
func differencesMarkdown() string {
	var b strings.Builder
	b.WriteString("| rule | rejects | error | example blocks | why |\n|---|---|---|---|---|\n")
	for _, d := range differences {
		ex := make([]string, len(d.example))
		for i, s := range d.example {
			ex[i] = "`" + strings.ToUpper(s) + "`"
		}
		who, name := "x/net", "\""+d.xnetErr+"\""
		if d.err != nil {
			who, name = "netkit", "`"+errName(d.err)+"`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", d.section, who, name, strings.Join(ex, ", then "), d.why)
	}
	return b.String()
}

// errName returns the name of a sentinel of codec/hpack.
func errName(v *hpack.Violation) string {
	for name, e := range map[string]*hpack.Violation{
		"ErrTruncated": hpack.ErrTruncated, "ErrIntegerOverflow": hpack.ErrIntegerOverflow,
		"ErrIndexZero": hpack.ErrIndexZero, "ErrIndexRange": hpack.ErrIndexRange,
		"ErrHuffmanPadding": hpack.ErrHuffmanPadding, "ErrHuffmanEOS": hpack.ErrHuffmanEOS,
		"ErrStringTooLong": hpack.ErrStringTooLong, "ErrSizeUpdateLate": hpack.ErrSizeUpdateLate,
		"ErrSizeUpdateMany": hpack.ErrSizeUpdateMany, "ErrSizeUpdateLarge": hpack.ErrSizeUpdateLarge,
		"ErrSizeUpdateMissed": hpack.ErrSizeUpdateMissed, "ErrBlockUnfinished": hpack.ErrBlockUnfinished,
	} {
		if e == v {
			return name
		}
	}
	panic("hpackpeers: unnamed error " + v.Error())
}
