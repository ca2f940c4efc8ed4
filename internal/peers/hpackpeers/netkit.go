package hpackpeers

import (
	"github.com/netkit/netkit/codec/hpack"
)

// Raised is a limit far above any input of the tests: x/net's Decoder has
// no header-list, field-count or string-length limit of its own (its
// Framer and server apply some), so the comparisons raise netkit's to it.
const Raised = 1 << 30

// NewNetkitDecoder returns a netkit decoder without validation and with
// its limits raised to x/net's (none), as the comparisons need: the
// limits and the validation are tested in codec/hpack.
func NewNetkitDecoder() *hpack.Decoder {
	return &hpack.Decoder{MaxHeaderListSize: Raised, MaxFields: Raised, MaxStringLength: Raised}
}

// NetkitDecode decodes one complete header block with d and returns the
// fields it emitted (copied: the decoder's memory is only lent to emit).
func NetkitDecode(d *hpack.Decoder, block []byte) ([]Field, error) {
	l := []Field{}
	err := d.DecodeBlock(block, func(name, value []byte, sensitive bool) error {
		l = append(l, Field{Name: string(name), Value: string(value), Sensitive: sensitive})
		return nil
	})
	return l, err
}

// NetkitTable returns the entries of d's dynamic table, newest first.
func NetkitTable(d *hpack.Decoder) []Field {
	out := make([]Field, d.TableLen())
	for i := range out {
		name, value := d.TableEntry(i + 1)
		out[i] = Field{Name: string(name), Value: string(value)}
	}
	return out
}

// NetkitFields converts a header list to the encoder's type.
func NetkitFields(l []Field) []hpack.Field {
	out := make([]hpack.Field, len(l))
	for i, f := range l {
		out[i] = hpack.Field(f)
	}
	return out
}
