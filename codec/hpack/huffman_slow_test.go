package hpack

import "sort"

// A slow reference of the Huffman code for the tests: codes assigned one by
// one from the code lengths (its own canonical assignment, not the
// package's), an encoder that writes one bit at a time and a decoder that
// reads one bit at a time, looking the code read so far up in a map.

// slowCode is a symbol's code, right-aligned, and its length in bits.
type slowCode struct {
	code uint32
	len  uint8
}

var (
	slowCodes   [257]slowCode
	slowSymbols = map[slowCode]int{}
)

func init() {
	syms := make([]int, 257)
	for i := range syms {
		syms[i] = i
	}
	sort.SliceStable(syms, func(a, b int) bool { return huffmanLens[syms[a]] < huffmanLens[syms[b]] })
	code, l := uint32(0), huffmanLens[syms[0]]
	for k, s := range syms {
		if k > 0 {
			code++
			code <<= huffmanLens[s] - l
			l = huffmanLens[s]
		}
		slowCodes[s] = slowCode{code, l}
		slowSymbols[slowCode{code, l}] = s
	}
}

// slowBits writes bits one at a time, most significant first.
type slowBits struct {
	b []byte
	n int // bits written
}

func (w *slowBits) write(code uint32, l uint8) {
	for i := int(l) - 1; i >= 0; i-- {
		if w.n%8 == 0 {
			w.b = append(w.b, 0)
		}
		if code>>i&1 == 1 {
			w.b[len(w.b)-1] |= 0x80 >> (w.n % 8)
		}
		w.n++
	}
}

// pad fills the last byte with one bits.
func (w *slowBits) pad() {
	for w.n%8 != 0 {
		w.write(1, 1)
	}
}

func slowHuffmanEncode(s string) []byte {
	var w slowBits
	for i := 0; i < len(s); i++ {
		c := slowCodes[s[i]]
		w.write(c.code, c.len)
	}
	w.pad()
	return w.b
}

// slowHuffmanDecode decodes src one bit at a time: a symbol as soon as the
// bits read since the last one form a code; EOS is an error at once; at the
// end, the bits that form no code must be at most 7 ones.
func slowHuffmanDecode(src []byte) ([]byte, error) {
	out := []byte{}
	var cur slowCode
	for i := 0; i < len(src)*8; i++ {
		cur.code = cur.code<<1 | uint32(src[i/8]>>(7-i%8)&1)
		cur.len++
		s, ok := slowSymbols[cur]
		if !ok {
			continue
		}
		if s == huffmanEOS {
			return out, ErrHuffmanEOS
		}
		out = append(out, byte(s))
		cur = slowCode{}
	}
	if cur.len > 7 || cur.code != 1<<cur.len-1 {
		return out, ErrHuffmanPadding
	}
	return out, nil
}
