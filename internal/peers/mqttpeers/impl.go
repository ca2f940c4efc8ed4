package mqttpeers

import (
	"errors"
	"fmt"
	"io"
	"slices"
)

// An Impl is one MQTT codec under comparison, seen through adapters from
// and to Packet.
type Impl struct {
	Name     string // "netkit", "mochi", "paho", "pahov3"
	Versions []byte // the protocol levels it speaks

	// Encode returns the bytes of p as the implementation writes them, or
	// an error wrapping ErrInexpressible when its types cannot hold p.
	Encode func(p *Packet) ([]byte, error)

	// Decode decodes one packet from the front of b on a connection of
	// protocol level v, as the implementation reads packets in real use,
	// and returns it with the number of bytes read. A panic inside the
	// implementation is returned as an error wrapping ErrPanic.
	Decode func(b []byte, v byte) (p *Packet, n int, err error)

	// ReadFrom reads and decodes one packet from r, a connection of
	// protocol level v, the way the implementation reads from its
	// network connection, with its default limits.
	ReadFrom func(r io.Reader, v byte) (*Packet, error)
}

// Speaks reports whether i speaks protocol level v.
func (i *Impl) Speaks(v byte) bool { return slices.Contains(i.Versions, v) }

// ErrPanic wraps a panic inside an implementation's decoder.
var ErrPanic = errors.New("mqttpeers: the implementation panicked")

// errShort is returned by adapters that must frame a packet themselves
// when b holds less than the whole packet.
var errShort = errors.New("mqttpeers: short input")

// recoverInto turns a panic into an error wrapping ErrPanic; call it
// deferred from a Decode with a pointer to its error result.
func recoverInto(impl string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%w: %s: %v", ErrPanic, impl, r)
	}
}
