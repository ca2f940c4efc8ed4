package hpack

import "encoding/binary"

// HuffmanLen returns the length in bytes of s encoded with the Huffman code
// of RFC 7541 Appendix B, padding included.
func HuffmanLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n += int(huffmanLens[s[i]])
	}
	return (n + 7) >> 3
}

// AppendHuffman appends s encoded with the Huffman code of RFC 7541
// Appendix B to dst, the last byte padded with one bits (a prefix of EOS),
// and returns the extended slice. It allocates only when dst lacks room for
// HuffmanLen(s) bytes.
func AppendHuffman(dst []byte, s string) []byte {
	// acc holds the n bits not yet written in its low bits (above them,
	// bits already written); n stays below 32 between steps. A step
	// encodes two bytes whose codes sum to at most 32 bits (header text:
	// the shift-or chain on acc is then one per two bytes), or one byte.
	var acc uint64
	var n uint
	i := 0
	for i < len(s)-1 {
		e1, e2 := huffmanEnc[s[i]], huffmanEnc[s[i+1]]
		l1, l2 := uint(e1&63), uint(e2&63) // & 63: no check for shifts past 63
		if l := l1 + l2; l <= 32 {
			acc = acc<<l | (e1>>8)<<l2 | e2>>8
			n += l
			i += 2
		} else {
			acc = acc<<l1 | e1>>8
			n += l1
			i++
		}
		if n >= 32 {
			n &= 31 // n - 32, with a bound the compiler sees
			dst = binary.BigEndian.AppendUint32(dst, uint32(acc>>n))
		}
	}
	if i < len(s) {
		e := huffmanEnc[s[i]]
		l := uint(e & 63)
		acc = acc<<l | e>>8
		n += l
		if n >= 32 {
			n &= 31
			dst = binary.BigEndian.AppendUint32(dst, uint32(acc>>n))
		}
	}
	if n == 0 {
		return dst
	}
	pad := -n & 7
	acc = acc<<pad | (1<<pad - 1)
	n += pad
	for n > 0 {
		n -= 8
		dst = append(dst, byte(acc>>n))
	}
	return dst
}

// AppendHuffmanDecode appends the decoding of src, a string encoded with the
// Huffman code of RFC 7541 Appendix B, to dst and returns the extended
// slice. It returns ErrHuffmanPadding when src ends with more than 7 bits
// that are not a whole code or with bits that are not a prefix of EOS (all
// ones), and ErrHuffmanEOS when src holds the EOS code (RFC 7541 §5.2); dst
// then holds the symbols decoded before the error. It allocates only when
// dst lacks room for the decoded string; like append, it may write in
// dst's spare capacity past the slice it returns.
func AppendHuffmanDecode(dst, src []byte) ([]byte, error) {
	return huffmanDecode(dst, src)
}

// huffmanDecode is AppendHuffmanDecode.
//
// The input flows through acc, a 64-bit window whose top n bits are the next
// bits to decode (the bits below them are zeros or the input's next bits).
// While at least 8 bytes of input and 8 bytes of room in dst remain, the
// fast loop refills acc with one 8-byte load (to n ≥ 56) and decodes four
// lookups of huffmanLookupBits bits, each one or two symbols; a code longer
// than the window (rare in header text) goes to the canonical decoder when n
// holds a whole code (30 bits). The careful loop finishes: it refills byte by
// byte, appends, checks each code against the bits left and checks the
// padding.
func huffmanDecode(dst, src []byte) ([]byte, error) {
	var acc uint64
	var n uint
	i := 0
	if len(src) >= 8 && cap(dst)-len(dst) >= 8 {
		var j int
		var err error
		j, i, acc, n, err = huffmanDecodeFast(dst[len(dst):cap(dst)], src)
		dst = dst[:len(dst)+j]
		if err != nil {
			return dst, err
		}
	}

	for {
		for n <= 56 && i < len(src) {
			acc |= uint64(src[i]) << (56 - n)
			n += 8
			i++
		}
		if n == 0 {
			return dst, nil
		}
		// When fewer than 57 bits are left, the input is exhausted: a code
		// longer than n is cut short, and the n bits must be padding.
		e := huffmanLookup[acc>>(64-huffmanLookupBits)]
		if c := e >> lookupCountShift; c != 0 {
			l1 := uint(huffmanLens[byte(e>>lookupSymShift)])
			if l1 > n {
				break
			}
			if l := uint(e) & 63; c == 16 && l <= n {
				dst = append(dst, byte(e>>lookupSymShift), byte(e>>(lookupSymShift+8)))
				acc <<= l
				n -= l
				continue
			}
			dst = append(dst, byte(e>>lookupSymShift))
			acc <<= l1
			n -= l1
			continue
		}
		sym, l := huffmanDecodeLong(uint32(acc >> 32))
		if l > n {
			break
		}
		if sym == huffmanEOS {
			return dst, ErrHuffmanEOS
		}
		dst = append(dst, byte(sym))
		acc <<= l
		n -= l
	}
	// n bits are left, fewer than the next code needs: padding.
	if n > 7 || acc>>(64-n) != 1<<n-1 {
		return dst, ErrHuffmanPadding
	}
	return dst, nil
}

// huffmanDecodeFast is huffmanDecode's fast loop: it decodes src into out
// while at least 8 bytes of src and 8 bytes of out remain, and returns the
// number of bytes written, the number of bytes of src read, and acc and n.
// (A function of its own so that its few variables stay in registers.)
//
// A round refills acc to n ≥ 56 bits and makes four lookups of at most 13
// bits (52 bits), collecting their one or two symbols each in w, which it
// stores at once: 8 bytes, of which kb/8 are symbols. Only the first lookup
// checks for a code longer than the window (the canonical decoder takes it);
// a later one finds the zero entry, which changes nothing, and the next
// round's first lookup sees the code again.
func huffmanDecodeFast(out, src []byte) (j, i int, acc uint64, n uint, err error) {
	for i <= len(src)-8 && j <= len(out)-8 {
		acc |= binary.BigEndian.Uint64(src[i:]) >> (n & 63)
		i += int(63-n) >> 3
		n |= 56

		e := huffmanLookup[acc>>(64-huffmanLookupBits)]
		if e>>lookupCountShift == 0 {
			// A code longer than the window: n ≥ 56 holds it.
			sym, l := huffmanDecodeLong(uint32(acc >> 32))
			if sym == huffmanEOS {
				return j, i, acc, n, ErrHuffmanEOS
			}
			out[j] = byte(sym)
			j++
			acc <<= l
			n -= l
			continue
		}
		w := uint64(e>>lookupSymShift) & 0xffff
		kb := uint(e >> lookupCountShift)
		acc <<= e & 63
		n -= uint(e) & 63

		e = huffmanLookup[acc>>(64-huffmanLookupBits)]
		w |= (uint64(e>>lookupSymShift) & 0xffff) << (kb & 63)
		kb += uint(e >> lookupCountShift)
		acc <<= e & 63
		n -= uint(e) & 63

		e = huffmanLookup[acc>>(64-huffmanLookupBits)]
		w |= (uint64(e>>lookupSymShift) & 0xffff) << (kb & 63)
		kb += uint(e >> lookupCountShift)
		acc <<= e & 63
		n -= uint(e) & 63

		e = huffmanLookup[acc>>(64-huffmanLookupBits)]
		w |= (uint64(e>>lookupSymShift) & 0xffff) << (kb & 63)
		kb += uint(e >> lookupCountShift)
		acc <<= e & 63
		n -= uint(e) & 63

		binary.LittleEndian.PutUint64(out[j:], w)
		j += int(kb >> 3)
	}
	return j, i, acc, n, nil
}
