package hpackpeers

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	xhpack "golang.org/x/net/http2/hpack"

	"github.com/netkit/netkit/codec/hpack"
	"github.com/stretchr/testify/require"
)

func unhex(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// appendixC holds the request examples of RFC 7541 Appendix C: C.2's
// single representations and C.3 (without Huffman) and C.4 (with) as
// sequences of three blocks on one connection.
var appendixC = [][]string{
	{"400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572"},
	{"040c 2f73 616d 706c 652f 7061 7468"},
	{"1008 7061 7373 776f 7264 0673 6563 7265 74"},
	{"82"},
	{"8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
		"8286 84be 5808 6e6f 2d63 6163 6865",
		"8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"},
	{"8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
		"8286 84be 5886 a8eb 1064 9cbf",
		"8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"},
}

// appendixCResponses are the header lists of RFC 7541 C.5 and C.6; the
// seeds hold their encodings by both encoders with a 256-byte table, as
// in the RFC, where they evict.
var appendixCResponses = [][]Field{
	{{Name: ":status", Value: "302"}, {Name: "cache-control", Value: "private"},
		{Name: "date", Value: "Mon, 21 Oct 2013 20:13:21 GMT"}, {Name: "location", Value: "https://www.example.com"}},
	{{Name: ":status", Value: "307"}, {Name: "cache-control", Value: "private"},
		{Name: "date", Value: "Mon, 21 Oct 2013 20:13:21 GMT"}, {Name: "location", Value: "https://www.example.com"}},
	{{Name: ":status", Value: "200"}, {Name: "cache-control", Value: "private"},
		{Name: "date", Value: "Mon, 21 Oct 2013 20:13:22 GMT"}, {Name: "location", Value: "https://www.example.com"},
		{Name: "content-encoding", Value: "gzip"},
		{Name: "set-cookie", Value: "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1"}},
}

// fuzzSeeds returns the seed corpus of FuzzDecode, each a sequence of up to
// three blocks: Appendix C, both encoders' blocks of the C.5 responses,
// of the benchmark's request (twice, cold then warm) and of random lists,
// the bomb, and the differences' examples.
func fuzzSeeds() [][3][]byte {
	var seeds [][3][]byte
	add := func(blocks ...[]byte) {
		var s [3][]byte
		for i := range min(3, len(blocks)) {
			s[i] = bytes.Clone(blocks[i])
		}
		seeds = append(seeds, s)
	}
	for _, seq := range appendixC {
		var blocks [][]byte
		for _, h := range seq {
			blocks = append(blocks, unhex(h))
		}
		add(blocks...)
	}
	for _, enc := range []func(limit int) encoderSide{
		func(limit int) encoderSide { return newNetkitEnc(limit) },
		func(limit int) encoderSide { return newXNetEnc(limit) },
	} {
		e := enc(256)
		var blocks [][]byte
		for _, l := range appendixCResponses {
			blocks = append(blocks, bytes.Clone(e.encode(l)))
		}
		add(blocks...)
		e = enc(4096)
		add(bytes.Clone(e.encode(BenchRequest)), bytes.Clone(e.encode(BenchRequest)))
		g := newGen(7)
		e = enc(4096)
		for range 4 {
			add(bytes.Clone(e.encode(g.list())), bytes.Clone(e.encode(g.list())), bytes.Clone(e.encode(g.list())))
		}
	}
	add(BombBlock())
	for i := range differences {
		add(differences[i].blocks()...)
	}
	return seeds
}

// FuzzDecode decodes up to three blocks on one connection with netkit's
// decoder (no validation, limits raised) and x/net's (NewDecoder(4096,
// nil), DecodeFull). While both accept, they must emit the same fields and
// hold the same dynamic tables; they must agree on rejecting, but for the
// rows of differences (netkit's error names the row); any error of
// netkit's must be a connection error (*hpack.SyntaxError). A validating
// netkit decoder with the default limits reads the same blocks and must
// return only the package's error types. Nothing may panic.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, b1, b2, b3 []byte) {
		nk, xn := NewNetkitDecoder(), xhpack.NewDecoder(4096, nil)
		def, defDone := &hpack.Decoder{Validate: hpack.Request}, false
		for i, block := range [][]byte{b1, b2, b3} {
			if !defDone {
				err := def.DecodeBlock(block, func(name, value []byte, sensitive bool) error { return nil })
				var se *hpack.SyntaxError
				switch {
				case err == nil || hpack.IsStreamError(err):
				case errors.As(err, &se):
					defDone = true // the connection is over
				default:
					t.Fatalf("default decoder, block %d (% x): error of type %T: %v", i, block, err, err)
				}
			}

			nkList, nkErr := NetkitDecode(nk, block)
			xnList, xnErr := XNetDecode(xn, block)
			if nkErr != nil {
				var se *hpack.SyntaxError
				require.ErrorAs(t, nkErr, &se, "block %d (% x): netkit's error is not a *SyntaxError: %T %v", i, block, nkErr, nkErr)
			}
			switch {
			case nkErr != nil && xnErr != nil:
				return
			case nkErr != nil || xnErr != nil:
				if documented(nkErr, xnErr) == nil {
					t.Fatalf("block %d (% x): netkit and x/net disagree, and no row of differences says so\nnetkit: %v%s\nx/net:  %v%s",
						i, block, nkErr, ListString(nkList), xnErr, ListString(xnList))
				}
				return
			}
			if diff := Diff(nkList, xnList); diff != "" {
				t.Fatalf("block %d (% x): %s\nnetkit:%s\nx/net:%s", i, block, diff, ListString(nkList), ListString(xnList))
			}
			nkTab := NetkitTable(nk)
			diff := Diff(nkTab, XNetTable(xn, len(nkTab)))
			require.Equal(t, "", diff, "block %d (% x): dynamic tables differ: %s", i, block, diff)
			got, want := nk.TableSize(), TableSize(nkTab)
			require.Equal(t, want, got, "block %d: netkit's TableSize() = %d, its entries add up to %d", i, got, want)
		}
	})
}
