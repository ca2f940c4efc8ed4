package hpack

// Temporary until the table-driven decoder lands.
func huffmanDecode(dst, src []byte) ([]byte, error) { return dst, ErrHuffmanPadding }
