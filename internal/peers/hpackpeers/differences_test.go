package hpackpeers

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	xhpack "golang.org/x/net/http2/hpack"

	"github.com/netkit/netkit/codec/hpack"
)

// A difference is a documented input on which netkit and x/net disagree
// about accepting header blocks: netkit rejects it with err (a connection
// error), where x/net accepts it.
type difference struct {
	err     *hpack.Violation
	section string // the rule, where RFC 7541 or RFC 9113 states it
	example []string
	why     string
}

// differences lists every disagreement on accept or reject between netkit's
// decoder (no validation, limits raised) and x/net's. FuzzDecode fails on
// one that matches no row; TestDifferences fails on a row whose example no
// longer shows it.
var differences = []difference{
	{hpack.ErrSizeUpdateLate, "RFC 7541 §4.2",
		[]string{"82 20"},
		"a dynamic table size update after the first field of a block: x/net allows it while its dynamic table is empty (golang/go#29187)"},
	{hpack.ErrSizeUpdateMany, "RFC 7541 §4.2",
		[]string{"20 20 20 82"},
		"more than two dynamic table size updates at the start of a block: x/net takes any number; an encoder never needs more than two (the smallest size since the last block, then the final one)"},
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
// err on a block x/net accepts, or nil.
func documented(err error) *difference {
	for i := range differences {
		if errors.Is(err, differences[i].err) {
			return &differences[i]
		}
	}
	return nil
}

// TestDifferences checks every row on its example: x/net accepts every
// block, netkit the blocks before the last, and rejects the last with the
// row's error as a connection error (*hpack.SyntaxError).
func TestDifferences(t *testing.T) {
	for _, d := range differences {
		t.Run(d.err.Msg, func(t *testing.T) {
			if d.section != d.err.Section {
				t.Errorf("row cites %s, the error %s", d.section, d.err.Section)
			}
			nk, xn := NewNetkitDecoder(), xhpack.NewDecoder(4096, nil)
			blocks := d.blocks()
			for i, b := range blocks {
				if _, err := XNetDecode(xn, b); err != nil {
					t.Fatalf("x/net rejects block %d (% x): %v", i, b, err)
				}
				_, err := NetkitDecode(nk, b)
				if i < len(blocks)-1 {
					if err != nil {
						t.Fatalf("netkit rejects block %d (% x): %v", i, b, err)
					}
					continue
				}
				var se *hpack.SyntaxError
				if !errors.Is(err, d.err) || !errors.As(err, &se) {
					t.Fatalf("netkit on % x: %v, want a *SyntaxError of %v", b, err, d.err)
				}
			}
		})
	}
}

// differencesMarkdown renders differences as README.md's table.
func differencesMarkdown() string {
	var b strings.Builder
	b.WriteString("| rule | netkit's error | example blocks | why |\n|---|---|---|---|\n")
	for _, d := range differences {
		ex := make([]string, len(d.example))
		for i, s := range d.example {
			ex[i] = "`" + strings.ToUpper(s) + "`"
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", d.section, errName(d.err), strings.Join(ex, ", then "), d.why)
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
