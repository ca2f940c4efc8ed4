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
	// bits already written); n stays below 32 between bytes of s, so a
	// code (at most 30 bits) always fits.
	var acc uint64
	var n uint
	for i := 0; i < len(s); i++ {
		e := huffmanEnc[s[i]]
		l := uint(e & 0xff)
		acc = acc<<l | e>>8
		n += l
		if n >= 32 {
			n -= 32
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
// dst lacks room for the decoded string.
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
	if len(src) >= 8 {
		out := dst[len(dst):cap(dst)]
		j := 0
		for i <= len(src)-8 && j <= len(out)-8 {
			acc |= binary.BigEndian.Uint64(src[i:]) >> n
			i += int(63-n) >> 3
			n |= 56

			// 1: n ≥ 56
			e := huffmanLookup[acc>>(64-huffmanLookupBits)]
			if e>>lookupCountShift == 0 {
				goto long
			}
			binary.LittleEndian.PutUint16(out[j:], uint16(e))
			j += int(e >> lookupCountShift)
			acc <<= (e >> lookupBitsShift) & 15
			n -= uint(e>>lookupBitsShift) & 15

			// 2: n ≥ 44
			e = huffmanLookup[acc>>(64-huffmanLookupBits)]
			if e>>lookupCountShift == 0 {
				goto long
			}
			binary.LittleEndian.PutUint16(out[j:], uint16(e))
			j += int(e >> lookupCountShift)
			acc <<= (e >> lookupBitsShift) & 15
			n -= uint(e>>lookupBitsShift) & 15

			// 3: n ≥ 32
			e = huffmanLookup[acc>>(64-huffmanLookupBits)]
			if e>>lookupCountShift == 0 {
				goto long
			}
			binary.LittleEndian.PutUint16(out[j:], uint16(e))
			j += int(e >> lookupCountShift)
			acc <<= (e >> lookupBitsShift) & 15
			n -= uint(e>>lookupBitsShift) & 15

			// 4: n ≥ 20, not always enough for a long code: refill first.
			e = huffmanLookup[acc>>(64-huffmanLookupBits)]
			if e>>lookupCountShift == 0 {
				continue
			}
			binary.LittleEndian.PutUint16(out[j:], uint16(e))
			j += int(e >> lookupCountShift)
			acc <<= (e >> lookupBitsShift) & 15
			n -= uint(e>>lookupBitsShift) & 15
			continue

		long: // n ≥ 32, j ≤ len(out)-2
			{
				sym, l := huffmanDecodeLong(uint32(acc >> 32))
				if sym == huffmanEOS {
					return dst[:len(dst)+j], ErrHuffmanEOS
				}
				out[j] = byte(sym)
				j++
				acc <<= l
				n -= l
			}
		}
		dst = dst[:len(dst)+j]
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
		if e>>lookupCountShift != 0 {
			l1 := uint(e>>lookupLen1Shift) & 15
			if l1 > n {
				break
			}
			if l := uint(e>>lookupBitsShift) & 15; e>>lookupCountShift == 2 && l <= n {
				dst = append(dst, byte(e), byte(e>>8))
				acc <<= l
				n -= l
				continue
			}
			dst = append(dst, byte(e))
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
