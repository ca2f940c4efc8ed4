package buf

import "bytes"

// Index returns the offset of the first instance of needle in the readable
// bytes, relative to the reader index, or -1; an empty needle is found at 0.
// The answer, and the cost, are those of bytes.Index on Bytes(). A needle
// searched again and again may be faster prepared once as a search.Pattern
// and run on Bytes().
func (b *Buffer) Index(needle []byte) int {
	b.check()
	return bytes.Index(b.b[b.r:b.w], needle)
}
